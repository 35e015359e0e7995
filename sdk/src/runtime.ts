/**
 * What the SDK takes from its environment, all injectable so tests (and exotic runtimes) can
 * drive them: fetch, the clock, randomness. Defaults use only what Node 20+ and browsers share.
 */
export interface SdkClock {
  /** Epoch milliseconds. */
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export interface RetryPolicy {
  /** Attempts in all, the first included (default 4). 1 switches retries off. */
  maxAttempts: number;
  /** First backoff step in ms (default 250); each retry doubles it. */
  baseDelayMs: number;
  /** Largest backoff step in ms (default 10 000). */
  maxDelayMs: number;
  /** A `Retry-After` longer than this (ms, default 60 000) is not waited for: the error is thrown at once. */
  maxRetryAfterMs: number;
}

export interface SdkRuntimeOptions {
  /** Default: `globalThis.fetch`. */
  fetch?: typeof fetch;
  clock?: SdkClock;
  /** A number in [0, 1) (default `Math.random`): the jitter of backoff delays. */
  random?: () => number;
  /** A UUID v4 (default: from `crypto.getRandomValues`): idempotency keys and JSON-RPC ids. */
  uuid?: () => string;
  /** Per attempt, in ms (default 30 000). */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
}

export interface SdkRuntime {
  fetch: typeof fetch;
  clock: SdkClock;
  random: () => number;
  uuid: () => string;
  timeoutMs: number;
  retry: RetryPolicy;
}

export const systemClock: SdkClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/** A random UUID v4 (RFC 9562) from `getRandomValues`, which, unlike `randomUUID`, browsers also give outside secure contexts. */
export function uuidV4(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function resolveRuntime(options: SdkRuntimeOptions = {}): SdkRuntime {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== 'function') throw new TypeError('No fetch available: pass one as the fetch option');
  return {
    // Bound: some browsers throw "Illegal invocation" on a fetch called off its global.
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    clock: options.clock ?? systemClock,
    random: options.random ?? Math.random,
    uuid: options.uuid ?? uuidV4,
    timeoutMs: options.timeoutMs ?? 30_000,
    retry: { maxAttempts: 4, baseDelayMs: 250, maxDelayMs: 10_000, maxRetryAfterMs: 60_000, ...options.retry },
  };
}

/**
 * The wait before retry number `retry` (1 for the first): on a 429 with `Retry-After`, that
 * many seconds plus up to one base step of jitter (never earlier than the server asked);
 * otherwise exponential backoff with "equal jitter": half the step fixed, half random.
 */
export function retryDelayMs(policy: RetryPolicy, retry: number, random: () => number, retryAfterSeconds?: number): number {
  if (retryAfterSeconds !== undefined) return retryAfterSeconds * 1000 + Math.floor(random() * policy.baseDelayMs);
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.floor(step / 2 + random() * (step / 2));
}
