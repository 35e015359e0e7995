import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import type { RateLimitDecision, RateLimiterPort, RateWindow } from '../../kernel/ports/rate-limiter.port.js';

export interface RateLimiterHarness {
  /** Must read "now" from the clock it was given, so the contract drives time. */
  limiter: RateLimiterPort;
  /** Closes the limiter and removes its data. */
  cleanup(): Promise<void>;
}

const MINUTE = 60_000;
const HOUR = 3_600_000;
const perMinute = (limit: number): RateWindow => ({ name: 'minute', limit, windowMs: MINUTE });
const perHour = (limit: number): RateWindow => ({ name: 'hour', limit, windowMs: HOUR });

/** The behaviour every RateLimiterPort adapter must have; each adapter's test calls this once. */
export function rateLimiterContract(name: string, factory: (clock: ManualClock) => Promise<RateLimiterHarness>): void {
  describe(`RateLimiterPort contract: ${name}`, () => {
    const open: RateLimiterHarness[] = [];
    // Starts on an hour boundary (2026-01-01T00:00Z), so offsets below are offsets into windows.
    const harness = async () => {
      const clock = new ManualClock();
      const made = await factory(clock);
      open.push(made);
      return { limiter: made.limiter, clock, hits: (key: string, windows: RateWindow[], n: number) => hits(made.limiter, key, windows, n) };
    };
    afterEach(async () => {
      await Promise.all(open.splice(0).map((made) => made.cleanup()));
    });

    it('allows exactly the limit, then denies with Retry-After to the window end', async () => {
      const { limiter, clock, hits } = await harness();
      await clock.advance(15_500);
      const allowed = await hits('k', [perMinute(5)], 5);
      expect(allowed.map((d) => [d.allowed, d.remaining])).toEqual([
        [true, 4],
        [true, 3],
        [true, 2],
        [true, 1],
        [true, 0],
      ]);
      expect(allowed.every((d) => d.limit === 5 && d.resetSeconds === 45)).toBe(true);
      expect(await limiter.hit('k', [perMinute(5)])).toEqual({
        allowed: false,
        limit: 5,
        remaining: 0,
        resetSeconds: 45,
        retryAfterSeconds: 45,
      });
    });

    it('enforces a minute and an hour window together, reporting the tighter one', async () => {
      const { limiter, clock, hits } = await harness();
      const windows = [perMinute(3), perHour(5)];
      expect(await limiter.hit('k', windows)).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 60 });
      await hits('k', windows, 2);
      expect(await limiter.hit('k', windows)).toMatchObject({ allowed: false, limit: 3, retryAfterSeconds: 60 });
      await clock.advance(MINUTE);
      expect(await limiter.hit('k', windows)).toMatchObject({ allowed: true, limit: 5, remaining: 1 });
      expect(await limiter.hit('k', windows)).toEqual({ allowed: true, limit: 5, remaining: 0, resetSeconds: 3540 });
      // A fresh minute does not help once the hour is spent: retry when the hour resets.
      await clock.advance(MINUTE);
      expect(await limiter.hit('k', windows)).toEqual({
        allowed: false,
        limit: 5,
        remaining: 0,
        resetSeconds: 3480,
        retryAfterSeconds: 3480,
      });
      await clock.advance(HOUR - 2 * MINUTE);
      expect(await limiter.hit('k', windows)).toMatchObject({ allowed: true, remaining: 2 });
    });

    it('breaks a tie in remaining by the window that resets latest', async () => {
      const { limiter, clock } = await harness();
      await clock.advance(10_000);
      expect(await limiter.hit('k', [perMinute(2), perHour(2)])).toEqual({
        allowed: true,
        limit: 2,
        remaining: 1,
        resetSeconds: 3590,
      });
      // Both exhausted: retry only once the later of the two has reset.
      expect(await limiter.hit('k', [perMinute(2), perHour(2)])).toMatchObject({ allowed: true, remaining: 0 });
      expect(await limiter.hit('k', [perMinute(2), perHour(2)])).toMatchObject({ allowed: false, retryAfterSeconds: 3590 });
    });

    it('consumes no budget in any window on a denied hit', async () => {
      const { limiter, clock, hits } = await harness();
      const windows = [perMinute(2), perHour(3)];
      await hits('k', windows, 2);
      const denied = await hits('k', windows, 10);
      expect(denied.every((d) => !d.allowed)).toBe(true);
      await clock.advance(MINUTE);
      // Had the denied hits counted in the hour, this one would be refused.
      expect(await limiter.hit('k', windows)).toMatchObject({ allowed: true, limit: 3, remaining: 0 });
      expect(await limiter.hit('k', windows)).toMatchObject({ allowed: false, limit: 3, retryAfterSeconds: 3540 });
    });

    it('resets at the window boundary, aligned to multiples of windowMs', async () => {
      const { limiter, clock, hits } = await harness();
      await clock.advance(42_000);
      await hits('k', [perMinute(2)], 2);
      await clock.advance(MINUTE - 42_000 - 1);
      expect(await limiter.hit('k', [perMinute(2)])).toMatchObject({ allowed: false, resetSeconds: 1, retryAfterSeconds: 1 });
      await clock.advance(1);
      expect(await limiter.hit('k', [perMinute(2)])).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 60 });
    });

    it('rounds resetSeconds up from an unaligned now', async () => {
      const { limiter, clock } = await harness();
      clock.jumpTo(Date.UTC(2026, 0, 1, 10, 30, 45, 250));
      expect(await limiter.hit('k', [perMinute(10)])).toMatchObject({ remaining: 9, resetSeconds: 15 });
      expect(await limiter.hit('h', [perHour(10)])).toMatchObject({ remaining: 9, resetSeconds: 1755 });
    });

    it('keeps keys independent', async () => {
      const { limiter, hits } = await harness();
      await hits('a', [perMinute(1)], 1);
      expect(await limiter.hit('a', [perMinute(1)])).toMatchObject({ allowed: false });
      expect(await limiter.hit('b', [perMinute(1)])).toMatchObject({ allowed: true, remaining: 0 });
    });

    it('lets exactly the limit through when hits arrive at once', async () => {
      const { limiter } = await harness();
      const windows = [perMinute(120), perHour(3000)];
      const decisions = await Promise.all(Array.from({ length: 200 }, () => limiter.hit('burst', windows)));
      const allowed = decisions.filter((d) => d.allowed);
      expect(allowed).toHaveLength(120);
      // Each allowed hit saw its own count: no two read the same value.
      expect(new Set(allowed.map((d) => d.remaining)).size).toBe(120);
      expect(decisions.filter((d) => !d.allowed).every((d) => d.retryAfterSeconds === 60)).toBe(true);
    });

    it('refuses windows it cannot count', async () => {
      const { limiter } = await harness();
      for (const windows of [[], [perMinute(0)], [perMinute(1), perMinute(2)], [{ name: 'x', limit: 1, windowMs: 0.5 }]]) {
        await expect(limiter.hit('k', windows)).rejects.toMatchObject({ code: 'INTERNAL_SERVICE_ERROR' });
      }
    });

    it('answers ping', async () => {
      const { limiter } = await harness();
      await expect(limiter.ping()).resolves.toBeUndefined();
    });
  });
}

/** `n` hits one after another (order matters for `remaining`). */
async function hits(limiter: RateLimiterPort, key: string, windows: RateWindow[], n: number): Promise<RateLimitDecision[]> {
  const decisions: RateLimitDecision[] = [];
  for (let i = 0; i < n; i += 1) decisions.push(await limiter.hit(key, windows));
  return decisions;
}
