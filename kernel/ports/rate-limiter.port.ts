/**
 * Rate limiter port: counts hits per caller key in fixed windows and says whether one more
 * request may pass. The Redis adapter shares one budget between processes; the in-process
 * one serves a single process and tests. Every adapter passes
 * `test/contracts/rate-limiter.contract.ts`.
 */
import { AppError } from '../errors/app-error.js';

/** One budget: at most `limit` hits per fixed window of `windowMs`. */
export interface RateWindow {
  /** Unique within one hit, e.g. `minute`; adapters key counters by it. */
  name: string;
  /** Positive integer. */
  limit: number;
  /** Positive integer; windows start at multiples of it since the epoch. */
  windowMs: number;
}

/** The answer to one hit, about its most constraining window. */
export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Hits still allowed in that window after this one (never negative). */
  remaining: number;
  /** Whole seconds (rounded up) until that window resets. */
  resetSeconds: number;
  /** When denied: whole seconds (rounded up) until every exhausted window has reset. */
  retryAfterSeconds?: number;
}

/**
 * Semantics every adapter keeps:
 * - fixed windows aligned to multiples of `windowMs` since the epoch, per the injected clock;
 * - one hit is checked against ALL `windows` atomically: it passes only if every window has
 *   budget left, and then counts in every window;
 * - a denied hit consumes no budget in any window (a blocked caller's retries do not
 *   push its recovery further out);
 * - the decision reports the most constraining window: least remaining, ties broken by the
 *   one resetting latest.
 */
export interface RateLimiterPort {
  /**
   * Counts one hit of `key` (an id such as `apikey:<id>` or `ip:<addr>`, never a secret).
   * Throws `DEPENDENCY_UNAVAILABLE` when the backend cannot answer: callers refuse the
   * request rather than let it through unmetered.
   */
  hit(key: string, windows: readonly RateWindow[]): Promise<RateLimitDecision>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Key scopes of API keys and identity tokens (interface section 2). */
export type RateScope = 'read' | 'trade' | 'manage';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
export const perMinute = (limit: number): RateWindow => ({ name: 'minute', limit, windowMs: MINUTE });
const perHour = (limit: number): RateWindow => ({ name: 'hour', limit, windowMs: HOUR });

/** Interface section 8: an API key's budget depends on its scope. */
const SCOPED: Readonly<Record<RateScope, readonly RateWindow[]>> = Object.freeze({
  read: Object.freeze([perMinute(120), perHour(3000)]),
  trade: Object.freeze([perMinute(60), perHour(1000)]),
  manage: Object.freeze([perMinute(30), perHour(500)]),
});

/**
 * The service's limits as data (interface section 8 and limits not shown).
 * Identity tokens get the limits of API keys of their scope; `public` (and `.well-known`)
 * is counted per client IP.
 */
export const RATE_POLICIES = Object.freeze({
  apiKey: SCOPED,
  identityToken: SCOPED,
  session: Object.freeze([perMinute(300)]),
  widget: Object.freeze([perMinute(30)]),
  public: Object.freeze([perMinute(60)]),
});

/** Start (epoch ms) of the window of `windowMs` that contains `nowMs`. */
export function windowStart(nowMs: number, windowMs: number): number {
  return Math.floor(nowMs / windowMs) * windowMs;
}

/** Rejects windows no adapter can count; a wrong policy is a programming error (500). */
export function assertRateWindows(windows: readonly RateWindow[]): void {
  const names = new Set<string>();
  for (const w of windows) {
    const ok = Number.isSafeInteger(w.limit) && w.limit > 0 && Number.isSafeInteger(w.windowMs) && w.windowMs > 0;
    if (!ok || w.name === '' || names.has(w.name)) {
      throw AppError.internal(`Invalid rate limit window: ${JSON.stringify(w)}`);
    }
    names.add(w.name);
  }
  if (names.size === 0) throw AppError.internal('A rate limit hit needs at least one window');
}

/**
 * The decision from each window's count after the hit was applied (or, when denied, the
 * unchanged counts). Shared so that every adapter reports exactly the same numbers.
 */
export function decideRateLimit(
  windows: readonly RateWindow[],
  counts: readonly number[],
  allowed: boolean,
  nowMs: number,
): RateLimitDecision {
  const seconds = (resetAt: number): number => Math.max(0, Math.ceil((resetAt - nowMs) / 1000));
  let chosen: { limit: number; remaining: number; resetAt: number } | undefined;
  let retryAt = nowMs;
  windows.forEach((w, i) => {
    const count = counts[i] ?? 0;
    const resetAt = windowStart(nowMs, w.windowMs) + w.windowMs;
    const remaining = Math.max(0, w.limit - count);
    if (count >= w.limit) retryAt = Math.max(retryAt, resetAt);
    const tighter = !chosen || remaining < chosen.remaining || (remaining === chosen.remaining && resetAt > chosen.resetAt);
    if (tighter) chosen = { limit: w.limit, remaining, resetAt };
  });
  if (!chosen) throw AppError.internal('A rate limit hit needs at least one window');
  const decision: RateLimitDecision = {
    allowed,
    limit: chosen.limit,
    remaining: chosen.remaining,
    resetSeconds: seconds(chosen.resetAt),
  };
  if (!allowed) decision.retryAfterSeconds = seconds(retryAt);
  return decision;
}
