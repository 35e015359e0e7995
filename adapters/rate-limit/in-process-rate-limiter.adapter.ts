import { AppError } from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import {
  assertRateWindows,
  decideRateLimit,
  windowStart,
  type RateLimitDecision,
  type RateLimiterPort,
  type RateWindow,
} from '../../kernel/ports/rate-limiter.port.js';

export interface InProcessRateLimiterOptions {
  clock: ClockPort;
  /** Most caller keys held at once; beyond it the least recently seen is forgotten. Default 100,000. */
  maxKeys?: number;
}

interface Counter {
  /** Start of the window this count belongs to; a later start means the count is 0. */
  start: number;
  count: number;
}

interface KeyState {
  counters: Map<string, Counter>;
  /** When the last of its windows resets; after it the entry is garbage. */
  expiresAt: number;
}

const DEFAULT_MAX_KEYS = 100_000;
/** Clock time between sweeps of expired keys: a full scan, so not on every hit. */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * Rate limiter for one process (and tests). A hit runs synchronously, so it is atomic
 * with respect to every other hit without locks. Memory is bounded: expired keys are swept
 * lazily on hits (no timers to stop), and past `maxKeys` the least recently seen key is
 * evicted. Eviction restarts that caller's budget, a deliberate trade of a little leniency
 * for a hard memory bound; size `maxKeys` above the number of active callers.
 */
export class InProcessRateLimiter implements RateLimiterPort {
  private readonly clock: ClockPort;
  private readonly maxKeys: number;
  /** Map order is recency order: every hit re-inserts its key at the end. */
  private readonly keys = new Map<string, KeyState>();
  private nextSweepAt = -Infinity;
  /** Window lists already validated (policies are constants, held weakly). */
  private readonly checked = new WeakSet<readonly RateWindow[]>();
  private closed = false;

  constructor(options: InProcessRateLimiterOptions) {
    this.clock = options.clock;
    this.maxKeys = Math.max(1, Math.floor(options.maxKeys ?? DEFAULT_MAX_KEYS));
  }

  async hit(key: string, windows: readonly RateWindow[]): Promise<RateLimitDecision> {
    if (this.closed) throw new AppError('SHUTTING_DOWN', 'The rate limiter is closed');
    // Policies are a few constant arrays: each is checked once, not on every hit.
    if (!this.checked.has(windows)) {
      assertRateWindows(windows);
      this.checked.add(windows);
    }
    const now = this.clock.now();
    this.sweep(now);

    const state = this.keys.get(key) ?? { counters: new Map<string, Counter>(), expiresAt: now };
    // Per window: its counter, reset to 0 when it belongs to an earlier window. Counters are
    // updated in place: a hit allocates nothing for a caller already known.
    const counts: number[] = [];
    let allowed = true;
    for (const w of windows) {
      const start = windowStart(now, w.windowMs);
      const counter = state.counters.get(w.name);
      const count = counter && counter.start === start ? counter.count : 0;
      counts.push(count);
      if (count >= w.limit) allowed = false;
    }
    if (allowed) {
      for (let i = 0; i < windows.length; i++) {
        const w = windows[i]!;
        const start = windowStart(now, w.windowMs);
        const count = (counts[i] ?? 0) + 1;
        counts[i] = count;
        const counter = state.counters.get(w.name);
        if (counter) {
          counter.start = start;
          counter.count = count;
        } else state.counters.set(w.name, { start, count });
        state.expiresAt = Math.max(state.expiresAt, start + w.windowMs);
      }
    }
    // A denied caller is touched too, so a hammering client stays remembered (and blocked).
    this.keys.delete(key);
    if (state.counters.size > 0) this.remember(key, state);
    return decideRateLimit(windows, counts, allowed, now);
  }

  async ping(): Promise<void> {
    if (this.closed) throw new AppError('SHUTTING_DOWN', 'The rate limiter is closed');
  }

  async close(): Promise<void> {
    this.closed = true;
    this.keys.clear();
  }

  /** Number of caller keys held; lets tests check that memory stays bounded. */
  get size(): number {
    return this.keys.size;
  }

  private remember(key: string, state: KeyState): void {
    while (this.keys.size >= this.maxKeys) {
      const oldest = this.keys.keys().next();
      if (oldest.done) break;
      this.keys.delete(oldest.value);
    }
    this.keys.set(key, state);
  }

  private sweep(now: number): void {
    // The second test catches a clock set backwards, which would otherwise stall sweeping.
    if (now < this.nextSweepAt && now >= this.nextSweepAt - SWEEP_INTERVAL_MS) return;
    this.nextSweepAt = now + SWEEP_INTERVAL_MS;
    for (const [key, state] of this.keys) if (state.expiresAt <= now) this.keys.delete(key);
  }
}
