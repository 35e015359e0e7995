// @vitest-environment happy-dom
/**
 * The console's shell: sign-in until there is a session (the ops page opens without one), then
 * the navigation with the signed-in wallet and the page of the address; `/hub/api-keys` is the
 * agents page; signing out ends the session on the service and shows sign-in again.
 */
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from '../src/app.js';
import { FakeService, json, OPERATOR, signedInService } from './support/fake-service.js';

beforeEach(() => {
  const publicKey = { toString: () => OPERATOR.walletAddress };
  vi.stubGlobal('solana', { publicKey, connect: async () => ({ publicKey }), signMessage: async () => new Uint8Array(64) });
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('App', () => {
  it('opens /hub/api-keys as the agents page after sign-in, and signs out', async () => {
    const service = await signedInService();
    service
      .on('GET', '/api/nest/agents', () => json(200, { items: [] }))
      .on('POST', '/api/nest/auth/logout', () => json(200, { success: true }));
    window.history.replaceState(null, '', '/hub/api-keys');
    render(<App />);
    await waitFor(() => expect(window.location.pathname).toBe('/agents'));
    fireEvent.click(screen.getByRole('button', { name: 'Sign in with a Solana wallet' }));
    await screen.findByRole('heading', { name: 'Agents', level: 1 });
    const main = screen.getByRole('navigation', { name: 'Main' });
    expect(main.querySelector('[aria-current="page"]')?.textContent).toBe('Agents');
    expect(screen.getByTitle(OPERATOR.walletAddress).textContent).toBe('Fake11…1111');

    fireEvent.click(screen.getByRole('button', { name: 'Sign out' }));
    await screen.findByRole('button', { name: 'Sign in with a Solana wallet' });
    expect(service.calls('POST', '/api/nest/auth/logout')).toHaveLength(1);
  });

  it('opens the ops page without a wallet session', () => {
    vi.stubGlobal('fetch', new FakeService().fetch);
    window.history.replaceState(null, '', '/ops');
    render(<App />);
    expect(screen.getByRole('heading', { name: 'Service operations' })).toBeTruthy();
    expect(screen.getByLabelText('Ops token')).toBeTruthy();
  });
});
