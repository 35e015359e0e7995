/**
 * The operator client with the service's refresh cookie (`sessionCookie`, as the console runs
 * it) against the real service: the refresh token never held by the client, refreshes from the
 * cookie with the pre-login CSRF token, the cookie sent to the refresh route only and dropped
 * at logout, `resume()`, and `onSessionEnded` once the session was ended elsewhere.
 */
import nacl from 'tweetnacl';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { naclSigner, OperatorClient, type OperatorClientOptions } from '../../sdk/src/index.js';
import { Client, PUBLIC_URL, startTestService, type TestService } from '../support/test-service.js';
import { DrivenClock } from './sdk-fakes.js';

const REFRESH = '/api/nest/auth/refresh';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.stop());

/** A cookie-session client whose requests (path, headers, body) are recorded on the way through. */
function cookieClient(options: Partial<OperatorClientOptions> = {}) {
  const seen: Array<{ path: string; headers: Record<string, string>; body: unknown }> = [];
  const fetchImpl: typeof fetch = (input, init = {}) => {
    seen.push({
      path: new URL(String(input)).pathname,
      headers: { ...(init.headers as Record<string, string>) },
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
    });
    return fetch(input, init);
  };
  const operator = new OperatorClient({ baseUrl: svc.url, publicUrl: PUBLIC_URL, fetch: fetchImpl, sessionCookie: true, ...options });
  return { operator, seen };
}

describe('OperatorClient with the refresh cookie (e2e)', () => {
  it('refreshes from the cookie (no token in the body, the pre-login CSRF token), which goes to the refresh route only', async () => {
    const clock = new DrivenClock(Date.now());
    const { operator, seen } = cookieClient({ clock });
    await operator.signInWithSolana(naclSigner(nacl.sign.keyPair()));
    await operator.agents.list();
    clock.time += 14.5 * 60_000;
    await operator.agents.list();
    await operator.session.refresh();
    const refreshes = seen.filter((request) => request.path === REFRESH);
    expect(refreshes).toHaveLength(2);
    for (const refresh of refreshes) {
      expect(refresh.body).toEqual({});
      expect(refresh.headers.cookie).toMatch(/(^|; )refresh_token=[\w.-]+/);
      expect(refresh.headers['x-csrf-token']).toEqual(expect.any(String));
    }
    // The second refresh presented the cookie the first one rotated in.
    expect(refreshes[1]?.headers.cookie).not.toBe(refreshes[0]?.headers.cookie);
    expect(seen.filter((request) => request.path !== REFRESH && request.headers.cookie?.includes('refresh_token'))).toEqual([]);
    await expect(operator.agents.create({ name: 'after-cookie-refresh' })).resolves.toMatchObject({ name: 'after-cookie-refresh' });

    await operator.signOut();
    await expect(operator.resume()).resolves.toBeUndefined();
    expect(seen.at(-1)?.headers.cookie ?? '').not.toContain('refresh_token');
  });

  it('resume() answers the session the cookie holds, or undefined when there is none', async () => {
    const { operator } = cookieClient();
    await expect(operator.resume()).resolves.toBeUndefined();
    const user = await operator.signInWithSolana(naclSigner(nacl.sign.keyPair()));
    await expect(operator.resume()).resolves.toEqual(user);
    await expect(operator.agents.create({ name: 'after-resume' })).resolves.toMatchObject({ name: 'after-resume' });
  });

  it('onSessionEnded: a call refused because the session was ended elsewhere forgets it and says so once', async () => {
    const ended = vi.fn();
    const { operator } = cookieClient({ onSessionEnded: ended });
    await operator.signInWithSolana(naclSigner(nacl.sign.keyPair()));
    // Another tab signs the same session out.
    const elsewhere = new Client(svc.url);
    elsewhere.bearer = await operator.session.accessToken();
    await elsewhere.refreshCsrf();
    expect((await elsewhere.post('/api/nest/auth/logout')).status).toBe(200);

    await expect(operator.agents.list()).rejects.toMatchObject({ code: 'auth_error', status: 401, message: 'Unauthorized' });
    expect(ended).toHaveBeenCalledTimes(1);
    expect(operator.session.signedIn).toBe(false);
  });

  it('a refusal that is not about the session (a claim with a bad signature) leaves it signed in', async () => {
    const ended = vi.fn();
    const { operator } = cookieClient({ onSessionEnded: ended });
    await operator.signInWithSolana(naclSigner(nacl.sign.keyPair()));
    const agent = await operator.agents.create({ name: 'claimed-wrongly' });
    const forger = { ...naclSigner(nacl.sign.keyPair()), address: operator.user.walletAddress };
    await expect(operator.agents.claim(agent.agentId, forger)).rejects.toMatchObject({ status: 401 });
    expect(ended).not.toHaveBeenCalled();
    expect(operator.session.signedIn).toBe(true);
  });
});
