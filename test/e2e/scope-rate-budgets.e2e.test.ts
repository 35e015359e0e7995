import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { Client, signInSolana, startTestService, type HttpResult, type TestService } from '../support/test-service.js';
import { codeAt } from '../support/totp-codes.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * The limits: the trade and manage budgets of an API key (the read budget is driven in
 * rate-limits-and-secrets.e2e.test.ts). Time is a driven clock: a spent minute or hour is
 * passed by moving it, never by waiting.
 */
describe('trade and manage key budgets (e2e)', () => {
  // Five seconds into an hour: a test's requests never straddle a window boundary by accident.
  const clock = new ManualClock(Math.floor(Date.now() / HOUR) * HOUR + 5_000);
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ clock });
  });
  afterAll(() => svc.stop());

  /** A key of `scope` on a fresh operator's agent; a manage key is made with a step-up token (TOTP). */
  async function keyClient(scope: 'trade' | 'manage'): Promise<Client> {
    const owner = new Client(svc.url);
    await signInSolana(owner);
    const { body: agent } = await owner.post('/api/nest/agents', { name: `${scope}-limited` });
    let stepUpToken: string | undefined;
    if (scope === 'manage') {
      const { body: totp } = await owner.post('/api/nest/auth/totp/enroll');
      await owner.post('/api/nest/auth/totp/activate', { code: await codeAt(totp.secret, clock) });
      // The activation code is spent: step-up takes the next one.
      clock.jumpTo(clock.now() + 30_000);
      const stepUp = await owner.post(`/api/nest/agents/${agent.agentId}/control/mcp/step-up`, { code: await codeAt(totp.secret, clock) });
      stepUpToken = stepUp.body.stepUpToken;
    }
    const key = await owner.post(`/api/nest/agents/${agent.agentId}/keys`, { name: scope, scope, ...(stepUpToken ? { stepUpToken } : {}) });
    expect(key.status).toBe(201);
    const client = new Client(svc.url);
    client.bearer = key.body.secret;
    return client;
  }

  const verify = (client: Client): Promise<HttpResult> => client.post('/api/nest/auth/verify');
  const header = (result: HttpResult, name: string): number => Number(result.headers.get(name));

  /** Moves the clock to `offsetMs` into the next hour. */
  const nextHour = (offsetMs: number) => clock.jumpTo(Math.floor(clock.now() / HOUR) * HOUR + HOUR + offsetMs);

  const budgets = [
    { scope: 'trade', perMinute: 60, perHour: 1000 },
    { scope: 'manage', perMinute: 30, perHour: 500 },
  ] as const;

  for (const { scope, perMinute, perHour } of budgets) {
    it(`a ${scope} key gets ${perMinute} requests a minute, then 429 with Retry-After; headers on every response`, async () => {
      nextHour(5_000);
      const client = await keyClient(scope);
      // Ten seconds into a minute: the window resets in 50 s.
      clock.jumpTo(Math.floor(clock.now() / MINUTE) * MINUTE + MINUTE + 10_000);
      for (let i = 1; i <= perMinute; i++) {
        const ok = await verify(client);
        expect(ok.status).toBe(200);
        expect(ok.headers.get('x-ratelimit-limit')).toBe(String(perMinute));
        expect(ok.headers.get('x-ratelimit-remaining')).toBe(String(perMinute - i));
        expect(header(ok, 'x-ratelimit-reset')).toBe(50);
      }
      const limited = await verify(client);
      expect(limited).toMatchObject({ status: 429, body: { statusCode: 429, message: 'Too Many Requests', error: 'Too Many Requests' } });
      expect(limited.headers.get('x-ratelimit-limit')).toBe(String(perMinute));
      expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(header(limited, 'retry-after')).toBe(50);
      // A refused request costs nothing: the budget is whole again in the next minute.
      expect((await verify(client)).status).toBe(429);
      await clock.advance(50_000);
      const again = await verify(client);
      expect(again.status).toBe(200);
      expect(again.headers.get('x-ratelimit-remaining')).toBe(String(perMinute - 1));
    });

    it(`a ${scope} key gets ${perHour} requests an hour, spread over minutes, then 429 until the hour ends`, async () => {
      nextHour(5_000);
      const client = await keyClient(scope);
      clock.jumpTo(Math.floor(clock.now() / MINUTE) * MINUTE + MINUTE + 1_000);
      let sent = 0;
      while (sent < perHour) {
        const now = Math.min(perMinute, perHour - sent);
        const answers = await Promise.all(Array.from({ length: now }, () => verify(client)));
        expect(answers.map((answer) => answer.status)).toEqual(Array<number>(now).fill(200));
        sent += now;
        if (sent < perHour) clock.jumpTo(clock.now() + MINUTE);
      }
      // The minute may have budget left; the hour has none, and it is the window reported.
      clock.jumpTo(clock.now() + MINUTE);
      const limited = await verify(client);
      expect(limited.status).toBe(429);
      expect(limited.headers.get('x-ratelimit-limit')).toBe(String(perHour));
      expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
      const untilHourEnds = Math.ceil((Math.floor(clock.now() / HOUR) * HOUR + HOUR - clock.now()) / 1000);
      expect(header(limited, 'retry-after')).toBe(untilHourEnds);
      expect(header(limited, 'x-ratelimit-reset')).toBe(untilHourEnds);
      expect(untilHourEnds).toBeGreaterThan(60);
      nextHour(1_000);
      const fresh = await verify(client);
      expect(fresh.status).toBe(200);
      expect(fresh.headers.get('x-ratelimit-remaining')).toBe(String(perMinute - 1));
    });
  }
});
