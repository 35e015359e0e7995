import { describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { InProcessRateLimiter } from '../../adapters/rate-limit/in-process-rate-limiter.adapter.js';
import { RATE_POLICIES, type RateWindow } from '../../kernel/ports/rate-limiter.port.js';
import { rateLimiterContract } from '../contracts/rate-limiter.contract.js';

rateLimiterContract('in-process', async (clock) => {
  const limiter = new InProcessRateLimiter({ clock });
  return { limiter, cleanup: () => limiter.close() };
});

const minute = (limit: number): RateWindow[] => [{ name: 'minute', limit, windowMs: 60_000 }];

describe('InProcessRateLimiter', () => {
  it('prunes counters whose windows have all reset', async () => {
    const clock = new ManualClock();
    const limiter = new InProcessRateLimiter({ clock });
    for (let i = 0; i < 50; i += 1) await limiter.hit(`ip:${i}`, minute(5));
    expect(limiter.size).toBe(50);
    await clock.advance(2 * 60_000);
    await limiter.hit('ip:new', minute(5));
    expect(limiter.size).toBe(1);
  });

  it('never holds more than maxKeys, forgetting the least recently seen first', async () => {
    const clock = new ManualClock();
    const limiter = new InProcessRateLimiter({ clock, maxKeys: 3 });
    for (const key of ['a', 'b', 'c']) await limiter.hit(key, minute(1));
    // A denied hit counts as "seen": `a` is now the most recent and survives.
    expect(await limiter.hit('a', minute(1))).toMatchObject({ allowed: false });
    await limiter.hit('d', minute(1));
    expect(limiter.size).toBe(3);
    expect(await limiter.hit('a', minute(1))).toMatchObject({ allowed: false });
    // `b` was evicted, so its budget started over.
    expect(await limiter.hit('b', minute(1))).toMatchObject({ allowed: true });
    expect(limiter.size).toBe(3);
  });

  it('applies the published policies as given', async () => {
    const limiter = new InProcessRateLimiter({ clock: new ManualClock() });
    expect(await limiter.hit('key:1', RATE_POLICIES.apiKey.read)).toMatchObject({ limit: 120, remaining: 119 });
    expect(await limiter.hit('key:2', RATE_POLICIES.identityToken.manage)).toMatchObject({ limit: 30, remaining: 29 });
    expect(await limiter.hit('ip:1', RATE_POLICIES.public)).toMatchObject({ limit: 60, remaining: 59 });
    expect(RATE_POLICIES.apiKey.trade.map((w) => [w.limit, w.windowMs])).toEqual([
      [60, 60_000],
      [1000, 3_600_000],
    ]);
    expect(RATE_POLICIES.session[0]?.limit).toBe(300);
    expect(RATE_POLICIES.widget[0]?.limit).toBe(30);
  });

  it('refuses to work once closed', async () => {
    const limiter = new InProcessRateLimiter({ clock: new ManualClock() });
    await limiter.close();
    await expect(limiter.hit('k', minute(1))).rejects.toMatchObject({ code: 'SHUTTING_DOWN' });
  });
});
