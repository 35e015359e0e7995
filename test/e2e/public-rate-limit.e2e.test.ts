import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { Client, signInSolana, solanaWallet, startTestService, type TestService } from '../support/test-service.js';

/**
 * Limits not shown: public routes get a per-IP budget. Sign-in is one of them
 * (a nonce is a stored record), and every public route draws on one counter per address.
 */
describe('per-IP budget of public routes (e2e)', () => {
  // Mid-minute, so the requests never straddle a window boundary.
  const clock = new ManualClock(Math.floor(Date.now() / 3_600_000) * 3_600_000 + 5_000);
  const LIMIT = 8;
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ clock, env: { PUBLIC_RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
  });
  afterAll(() => svc.stop());

  it('counts sign-in, refresh, OpenAPI and discovery against one budget per address; 429 after it, sessions unaffected', async () => {
    const alice = new Client(svc.url);
    // csrf, nonce, login, csrf again: four public requests.
    const { refreshToken } = await signInSolana(alice);
    const session = await alice.get('/api/nest/agents');
    expect(session.status).toBe(200);
    expect(session.headers.get('x-ratelimit-limit')).toBe('300');

    const anonymous = new Client(svc.url);
    const publicCalls = [
      () => anonymous.get('/api/nest/openapi.json'),
      () => anonymous.get('/.well-known/mcp.json'),
      () => anonymous.post('/api/nest/auth/evm/nonce'),
      () => anonymous.post('/api/nest/auth/refresh', { refreshToken }),
    ];
    for (const [i, call] of publicCalls.entries()) {
      const answer = await call();
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-ratelimit-limit')).toBe(String(LIMIT));
      expect(answer.headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - 5 - i));
    }

    const wallet = solanaWallet();
    for (const refused of [
      await anonymous.post('/api/nest/auth/nonce', { walletAddress: wallet.address }),
      await anonymous.post('/api/nest/auth/login', { message: 'm', signature: 's', walletAddress: wallet.address }),
      await anonymous.get('/api/nest/auth/csrf'),
    ]) {
      expect(refused).toMatchObject({ status: 429, body: { statusCode: 429, message: 'Too Many Requests', error: 'Too Many Requests' } });
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // A signed-in operator is counted by its session, not its address.
    expect((await alice.get('/api/nest/agents')).status).toBe(200);

    await clock.advance(60_000);
    const again = await anonymous.post('/api/nest/auth/nonce', { walletAddress: wallet.address });
    expect(again.status).toBe(200);
    expect(again.headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - 1));
  });

  it('behind one trusted proxy (TRUST_PROXY=1), counts each forwarded client on its own and cannot be fooled by a forged hop', async () => {
    const proxied = await startTestService({ clock, env: { PUBLIC_RATE_LIMIT_PER_MINUTE: '2', TRUST_PROXY: '1' } });
    try {
      // As nginx appends it: `<what the client sent>, <the client's address>`.
      const nonce = (forwardedFor: string) =>
        fetch(`${proxied.url}/api/nest/auth/evm/nonce`, { method: 'POST', headers: { 'x-forwarded-for': forwardedFor } });
      for (const client of ['203.0.113.7', '198.51.100.9']) {
        expect((await nonce(client)).status, client).toBe(200);
        expect((await nonce(client)).status, client).toBe(200);
        expect((await nonce(client)).status, client).toBe(429);
      }
      // A client writing its own X-Forwarded-For gets no fresh address: only the hop the proxy added counts.
      expect((await nonce('192.0.2.1, 203.0.113.7')).status).toBe(429);
    } finally {
      await proxied.stop();
    }
  });
});
