// @vitest-environment happy-dom
/**
 * Loading, empty and error states as a person meets them: loading is announced politely, an
 * error is an alert with the service's message word for word, nothing at all when there is none;
 * and a page's read (`useLoad`) goes from loading to its data or to the error.
 */
import { cleanup, render, screen } from '@testing-library/preact';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AgentsPage } from '../src/pages/agents.page.js';
import { Empty, ErrorText, Loading } from '../src/components/status.js';
import { json, refusal, signedInService } from './support/fake-service.js';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('status components', () => {
  it('announces loading politely, naming what loads', () => {
    render(<Loading what="orders" />);
    const status = screen.getByRole('status');
    expect(status.textContent).toBe('Loading orders…');
    expect(status.getAttribute('aria-live')).toBe('polite');
  });

  it('shows an empty state as plain text, not as an alert', () => {
    render(<Empty>No orders yet.</Empty>);
    expect(screen.getByText('No orders yet.')).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('shows an error as an alert, and nothing without one', () => {
    const { rerender } = render(<ErrorText text="Unauthorized" />);
    expect(screen.getByRole('alert').textContent).toBe('Unauthorized');
    rerender(<ErrorText text={undefined} />);
    expect(screen.queryByRole('alert')).toBeNull();
  });
});

describe('a page read: loading, then its data, its empty state or its error', () => {
  it('says it is loading until the answer, then the empty state', async () => {
    const service = await signedInService();
    const list = service.held('GET', '/api/nest/agents');
    render(<AgentsPage />);
    await list.arrived;
    expect(screen.getByRole('status').textContent).toBe('Loading agents…');
    list.answer(json(200, { items: [] }));
    await screen.findByText('No agents yet: create your first one above.');
    expect(screen.queryByRole('status')).toBeNull();
  });

  it("shows the service's error and no empty state", async () => {
    const service = await signedInService();
    service.on('GET', '/api/nest/agents', () => refusal(401, 'Token has been revoked'));
    render(<AgentsPage />);
    expect((await screen.findByRole('alert')).textContent).toBe('Token has been revoked');
    expect(screen.queryByText(/No agents yet/)).toBeNull();
    expect(screen.queryByRole('status')).toBeNull();
  });

  it('says when the service does not answer at all', async () => {
    const service = await signedInService();
    service.on('GET', '/api/nest/agents', () => Promise.reject(new TypeError('fetch failed')));
    render(<AgentsPage />);
    const alert = await screen.findByRole('alert', {}, { timeout: 10_000 });
    expect(alert.textContent).toBe('The service did not answer (Request failed: fetch failed). Check your connection and try again.');
  }, 20_000);
});
