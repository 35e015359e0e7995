import { Redis } from 'ioredis';
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

export interface RedisRateLimiterOptions {
  redisUrl: string;
  /** Prefix of every key, e.g. `ars:`; tests use a unique one each. */
  keyPrefix: string;
  clock: ClockPort;
  /** Bound of each call, connecting included; past it the hit fails as unavailable. Default 1000. */
  timeoutMs?: number;
  /** CLIENT SETNAME of the connection, so an operator (or a test) can find it. */
  connectionName?: string;
  logger?: (message: string, fields: Record<string, unknown>) => void;
}

/**
 * Counters outlive their window by this much: a process whose clock lags another's by less
 * still finds (and adds to) the shared counter. It costs memory only, never correctness,
 * because the window start is part of the key.
 */
const EXPIRY_GRACE_MS = 60_000;

/**
 * KEYS: one counter per window (`…:<name>:<windowStart>`). ARGV: limit and expiry (ms) of
 * each window, in KEYS order. Returns `{allowed (1|0), count_1, …, count_n}`: the counts
 * after the hit when allowed, unchanged when denied.
 *
 * One script, so check-all-then-increment is atomic across processes: two hits can never
 * both see the last unit of budget, and a denied hit writes nothing.
 */
const HIT_SCRIPT = `
local counts = {}
local allowed = 1
for i = 1, #KEYS do
  local count = tonumber(redis.call('GET', KEYS[i]) or '0') or 0
  counts[i] = count
  if count >= tonumber(ARGV[2 * i - 1]) then allowed = 0 end
end
if allowed == 1 then
  for i = 1, #KEYS do
    counts[i] = redis.call('INCR', KEYS[i])
    redis.call('PEXPIRE', KEYS[i], ARGV[2 * i])
  end
end
table.insert(counts, 1, allowed)
return counts
`;

type HitScript = (numKeys: number, ...args: (string | number)[]) => Promise<unknown>;

/**
 * Rate limiter over Redis: one budget shared by every process on the same Redis and
 * prefix. Windows start where the injected clock says (not Redis TIME), so tests drive
 * time and all processes agree as far as their clocks do. When Redis is down or slow the
 * hit throws `DEPENDENCY_UNAVAILABLE`: the request is refused, never let through unmetered.
 */
export class RedisRateLimiter implements RateLimiterPort {
  private readonly options: RedisRateLimiterOptions;
  private readonly command: Redis;
  private closed = false;

  constructor(options: RedisRateLimiterOptions) {
    this.options = options;
    this.command = new Redis(options.redisUrl, {
      lazyConnect: true,
      connectionName: options.connectionName ?? 'rate-limiter',
      // A backstop only (see `guard`, which bounds each call): drops commands a Redis that
      // stopped answering would otherwise keep queued for good.
      commandTimeout: (options.timeoutMs ?? 1_000) * 10,
      // Fail queued hits after one reconnect attempt instead of piling them up in an outage.
      maxRetriesPerRequest: 1,
    });
    // Without a listener ioredis prints every connection error as unhandled.
    this.command.on('error', (error: unknown) => options.logger?.('rate limiter redis connection error', { error }));
    this.command.defineCommand('rateLimitHit', { lua: HIT_SCRIPT });
  }

  async hit(key: string, windows: readonly RateWindow[]): Promise<RateLimitDecision> {
    this.assertOpen();
    assertRateWindows(windows);
    const now = this.options.clock.now();
    const keys: string[] = [];
    const args: number[] = [];
    for (const w of windows) {
      const start = windowStart(now, w.windowMs);
      keys.push(this.counterKey(key, w.name, start));
      args.push(w.limit, start + w.windowMs - now + EXPIRY_GRACE_MS);
    }
    const script = (this.command as unknown as { rateLimitHit: HitScript }).rateLimitHit.bind(this.command);
    const reply = await this.guard(script(keys.length, ...keys, ...args));
    const values = Array.isArray(reply) ? reply.map(Number) : [];
    if (values.length !== windows.length + 1 || values.some((v) => !Number.isFinite(v))) {
      throw new AppError('DEPENDENCY_UNAVAILABLE', 'The rate limiter (Redis) gave an unreadable answer');
    }
    return decideRateLimit(windows, values.slice(1), values[0] === 1, now);
  }

  async ping(): Promise<void> {
    this.assertOpen();
    await this.guard(this.command.ping());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const conn = this.command;
    // QUIT politely; a connection that never connected (or is gone) is just dropped.
    if (conn.status === 'wait' || conn.status === 'end') return conn.disconnect();
    await conn.quit().then(
      () => undefined,
      () => conn.disconnect(),
    );
  }

  /**
   * The `{key}` hash tag keeps all windows of one caller in one cluster slot, which a
   * multi-key script requires; the window start in the key makes a new window a new counter.
   */
  private counterKey(key: string, windowName: string, start: number): string {
    return `${this.options.keyPrefix}rl:{${key}}:${windowName}:${start}`;
  }

  /**
   * Bounds a call by `timeoutMs`, connecting and the offline queue included. The bound is
   * checked once the event loop has read its sockets (a timer's `setImmediate` runs after the
   * poll phase): a process busy past the bound with Redis's reply already in the socket counts
   * the reply, instead of blaming Redis for its own lag and refusing the request with a 503.
   */
  private async guard<T>(work: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => setImmediate(() => reject(new Error('Command timed out'))), this.options.timeoutMs ?? 1_000);
    });
    // Whichever loses the race must not surface as an unhandled rejection.
    timedOut.catch(() => undefined);
    work.catch(() => undefined);
    try {
      return await Promise.race([work, timedOut]);
    } catch (cause) {
      if (cause instanceof AppError) throw cause;
      throw new AppError('DEPENDENCY_UNAVAILABLE', 'The rate limiter (Redis) is unavailable', {
        retryable: true,
        cause,
      });
    } finally {
      clearTimeout(timer);
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new AppError('SHUTTING_DOWN', 'The rate limiter is closed');
  }
}
