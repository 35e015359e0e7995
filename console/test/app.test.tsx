// @vitest-environment happy-dom
/**
 * The console's shell: on load it picks up the session the refresh cookie holds, else sign-in
 * until there is a session (the ops page opens without one), then the navigation with the
 * signed-in wallet and the page of the address; `/hub/api-keys` is the agents page; signing out
 * ends the session on the service and shows sign-in again, as does a session the service ended.
 */
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from '../src/app.js';
import { FakeService, json, OPERATOR, refusal } from './support/fake-service.js';

const LOGIN = { accessToken: 'session-token', refreshToken: 'refresh-token', user: OPERATOR };

/** The service with sign-in routes; the refresh cookie holds a session when `cookie` says so. */
function service(cookie: 'session' | 'none'): FakeService {
  const fake = new FakeService()
    .on('GET', '/api/nest/auth/csrf', () => json(200, { csrfToken: 'csrf-token' }))
    .on('POST', '/api/nest/auth/nonce', () =>
      json(200, { message: `example.com wants you to sign in\n${OPERATOR.walletAddress}\n\nNonce: 1` }),
    )
    .on('POST', '/api/nest/auth/login', () => json(200, LOGIN))
    .on('POST', '/api/nest/auth/refresh', () => (cookie === 'session' ? json(200, LOGIN) : refusal(401, 'Unauthorized')))
    .on('POST', '/api/nest/auth/logout', () => json(200, { success: true }));
  vi.stubGlobal('fetch', fake.fetch);
  return fake;
}

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
    const fake = service('none').on('GET', '/api/nest/agents', () => json(200, { items: [] }));
    window.history.replaceState(null, '', '/hub/api-keys');
    render(<App />);
    await waitFor(() => expect(window.location.pathname).toBe('/agents'));
    fireEvent.click(await screen.findByRole('button', { name: 'Sign in with a Solana wallet' }));
    await screen.findByRole('heading', { name: 'Agents', level: 1 });
    const main = screen.getByRole('navigation', { name: 'Main' });
    expect(main.querySelector('[aria-current="page"]')?.textContent).toBe('Agents');
    expect(screen.getByTitle(OPERATOR.walletAddress).textContent).toBe('Fake11…1111');

    fireEvent.click(screen.getByRole('button', { name: 'Sign out' }));
    await screen.findByRole('button', { name: 'Sign in with a Solana wallet' });
    expect(fake.calls('POST', '/api/nest/auth/logout')).toHaveLength(1);
  });

  it('picks up the session the refresh cookie holds on load: no wallet signature, the token never in the request body', async () => {
    const fake = service('session').on('GET', '/api/nest/agents', () => json(200, { items: [] }));
    window.history.replaceState(null, '', '/agents');
    render(<App />);
    await screen.findByRole('heading', { name: 'Agents', level: 1 });
    expect(screen.getByTitle(OPERATOR.walletAddress)).toBeTruthy();
    expect(fake.calls('POST', '/api/nest/auth/login')).toHaveLength(0);
    const [refresh] = fake.calls('POST', '/api/nest/auth/refresh');
    expect(refresh?.body).toEqual({});
    expect(refresh?.headers.get('x-csrf-token')).toBe('csrf-token');
  });

  it('shows sign-in again once the service says the session is over (signed out in another tab)', async () => {
    const fake = service('session').on('GET', '/api/nest/agents', () => json(200, { items: [] }));
    window.history.replaceState(null, '', '/agents');
    render(<App />);
    await screen.findByRole('heading', { name: 'Agents', level: 1 });
    // Another tab signed out: the session is revoked, so every call with its access token is refused.
    fake
      .on('GET', '/api/nest/agents', () => refusal(401, 'Unauthorized'))
      .on('POST', '/api/nest/auth/verify', () => refusal(401, 'Unauthorized'))
      .on('POST', '/api/nest/auth/refresh', () => refusal(401, 'Unauthorized'));
    fireEvent.click(screen.getByRole('link', { name: 'Agents' }));
    await screen.findByRole('button', { name: 'Sign in with a Solana wallet' });
  });

  it('opens the ops page without a wallet session', () => {
    vi.stubGlobal('fetch', new FakeService().fetch);
    window.history.replaceState(null, '', '/ops');
    render(<App />);
    expect(screen.getByRole('heading', { name: 'Service operations' })).toBeTruthy();
    expect(screen.getByLabelText('Ops token')).toBeTruthy();
  });
});
