import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { Client, signInSolana, startTestService, type TestService } from '../support/test-service.js';
import { codeAt } from '../support/totp-codes.js';

/** Every file under a directory, as raw bytes. */
function rawFiles(dir: string): Buffer[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? rawFiles(path) : [readFileSync(path)];
  });
}

describe('rate limits and secrets at rest (e2e)', () => {
  // Mid-minute, so a test's requests never straddle a window boundary.
  const clock = new ManualClock(Math.floor(Date.now() / 3_600_000) * 3_600_000 + 5_000);
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ clock });
  });
  afterAll(() => svc.stop());

  it('a read key gets 120 requests a minute, then 429 with Retry-After; headers on every response', async () => {
    const alice = new Client(svc.url);
    await signInSolana(alice);
    const { body: agent } = await alice.post('/api/nest/agents', { name: 'limited' });
    const { body: key } = await alice.post(`/api/nest/agents/${agent.agentId}/keys`, { name: 'reader', scope: 'read' });
    const client = new Client(svc.url);
    client.bearer = key.secret;
    for (let i = 1; i <= 120; i++) {
      const ok = await client.post('/api/nest/auth/verify');
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-ratelimit-limit')).toBe('120');
      expect(ok.headers.get('x-ratelimit-remaining')).toBe(String(120 - i));
      expect(Number(ok.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
    }
    const limited = await client.post('/api/nest/auth/verify');
    expect(limited).toMatchObject({ status: 429, body: { statusCode: 429, message: 'Too Many Requests', error: 'Too Many Requests' } });
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    await clock.advance(60_000);
    expect((await client.post('/api/nest/auth/verify')).status).toBe(200);
  });

  it('a session gets 300 requests a minute', async () => {
    clock.jumpTo(Math.ceil(clock.now() / 60_000) * 60_000 + 1_000);
    const bob = new Client(svc.url);
    await signInSolana(bob);
    const results = await Promise.all(Array.from({ length: 301 }, () => bob.get('/api/nest/agents')));
    expect(results.filter((r) => r.status === 200)).toHaveLength(300);
    expect(results.filter((r) => r.status === 429)).toHaveLength(1);
  });

  it('no key secret, refresh token or TOTP secret is stored in clear or logged', async () => {
    const carol = new Client(svc.url);
    const session = await signInSolana(carol);
    const { body: agent } = await carol.post('/api/nest/agents', { name: 'secretive' });
    const { body: key } = await carol.post(`/api/nest/agents/${agent.agentId}/keys`, { name: 'k', scope: 'trade' });
    const { body: totp } = await carol.post('/api/nest/auth/totp/enroll');
    await carol.post('/api/nest/auth/totp/activate', { code: await codeAt(totp.secret, clock) });
    await clock.advance(30_000);
    const { body: stepUp } = await carol.post(`/api/nest/agents/${agent.agentId}/control/mcp/step-up`, {
      code: await codeAt(totp.secret, clock),
    });
    const keyClient = new Client(svc.url);
    keyClient.bearer = key.secret;
    await keyClient.post('/api/nest/auth/verify');

    const secrets = {
      apiKey: key.secret,
      refreshToken: session.refreshToken,
      accessToken: session.accessToken,
      totpSecret: totp.secret,
      stepUpToken: stepUp.stepUpToken,
      walletSecretKey: Buffer.from(session.wallet.secretKey).toString('hex'),
    };
    const stored = rawFiles(join(svc.dataDir, 'store'));
    const logs = svc.logs.join('\n');
    expect(logs.length).toBeGreaterThan(1000);
    for (const [name, value] of Object.entries(secrets)) {
      expect({ name, inStore: stored.some((file) => file.includes(value)) }).toEqual({ name, inStore: false });
      expect({ name, inLogs: logs.includes(value) }).toEqual({ name, inLogs: false });
    }
  });
});
