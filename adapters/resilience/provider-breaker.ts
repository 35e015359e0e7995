import {
  BrokenCircuitError,
  CircuitState,
  ConsecutiveBreaker,
  TaskCancelledError,
  TimeoutStrategy,
  circuitBreaker,
  handleWhen,
  timeout,
  type TimeoutPolicy,
  type CircuitBreakerPolicy,
} from 'cockatiel';
import type { Logger } from 'pino';
import { AppError, isAppError, isFaultKind } from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';

/** What the safety path and the EVM status route read. */
export type BreakerState = 'closed' | 'open' | 'half_open';

/** Where a breaker says it opened (warn) and closed again (info): a provider outage shows in the logs as it starts and ends. */
export type BreakerLogger = Pick<Logger, 'info' | 'warn'>;

export interface ProviderBreakerOptions {
  /** Provider name in `Circuit breaker open for provider: <provider>`. */
  provider: string;
  /** Consecutive provider failures that open the circuit (`CIRCUIT_BREAKER_THRESHOLD`). */
  threshold: number;
  /** How long the circuit stays open before one probe is let through (`CIRCUIT_BREAKER_OPEN_MS`). */
  openMs?: number;
  /** Budget of one call (`PROVIDER_TIMEOUT_MS`); a call past it fails with PROVIDER_UNAVAILABLE. 0: no timeout. */
  timeoutMs: number;
  /** Time source of the open window; default the system clock. */
  clock?: Pick<ClockPort, 'now'>;
  logger?: BreakerLogger;
}

export interface ProviderCallOptions {
  /** Overrides `timeoutMs` for one call (an execution that waits for confirmation needs longer). */
  timeoutMs?: number;
  /**
   * A call the venue may answer without its provider (a token from its own list): its
   * failures count, but its success is no evidence that the provider is well, so it
   * neither ends a streak of failures nor closes the circuit as the half-open probe.
   */
  weak?: boolean;
}

/** The limits: after the breaker opens, callers wait 60 seconds. */
const DEFAULT_OPEN_MS = 60_000;

const systemClock: Pick<ClockPort, 'now'> = { now: () => Date.now() };
/** The signal of a call without a timeout: nothing ever aborts it. */
const NEVER_ABORTED = new AbortController().signal;

/** 503 for everything that is the provider's fault and may pass: 5xx, 429, network, timeout, garbage. */
export function providerUnavailable(
  provider: string,
  reason: string,
  options: { details?: Record<string, unknown>; retryAfterSeconds?: number; cause?: unknown } = {},
): AppError {
  return new AppError('PROVIDER_UNAVAILABLE', `Provider unavailable: ${provider} (${reason})`, {
    details: { provider, ...options.details },
    ...(options.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: options.retryAfterSeconds }),
    cause: options.cause,
  });
}

/**
 * True when a failure says the provider is unwell: timeouts, network errors, 5xx, 429.
 * A business refusal (no route, unknown token, insufficient funds) is the caller's
 * problem and leaves the circuit as it is. Errors no adapter translated (a library's
 * network error) count as unwell: they never mean "your request was wrong".
 */
export function isProviderFailure(error: unknown): boolean {
  if (!isAppError(error)) return true;
  if (error.code === 'CIRCUIT_BREAKER_OPEN') return false;
  return isFaultKind(error.kind) || error.kind === 'rate_limited';
}

/**
 * Timeout plus circuit breaker for one provider, built on cockatiel. cockatiel counts
 * consecutive failures and moves closed → open → half-open → closed; the open window is
 * timed here on the injected clock (cockatiel itself reads `Date.now()`), so tests drive
 * it without waiting and `retryAfterSeconds` counts down on the same clock. While open,
 * and while the one half-open probe runs, calls fail at once without reaching the provider.
 */
export class ProviderBreaker {
  readonly provider: string;
  private readonly policy: CircuitBreakerPolicy;
  private readonly clock: Pick<ClockPort, 'now'>;
  private readonly openMs: number;
  private openedAt = 0;
  private readonly deadlines = new Map<number, TimeoutPolicy>();

  constructor(private readonly options: ProviderBreakerOptions) {
    this.provider = options.provider;
    this.clock = options.clock ?? systemClock;
    this.openMs = options.openMs ?? DEFAULT_OPEN_MS;
    // halfOpenAfter 0: `gate()` keeps callers out for `openMs`, so the first call cockatiel
    // sees after a break is, by construction, the half-open probe.
    this.policy = circuitBreaker(handleWhen(isProviderFailure), { halfOpenAfter: 0, breaker: new ConsecutiveBreaker(options.threshold) });
    this.policy.onBreak(() => {
      this.openedAt = this.clock.now();
      options.logger?.warn(
        { breaker: this.provider, failures: options.threshold, openMs: this.openMs },
        'circuit breaker opened: calls to the provider fail at once',
      );
    });
    this.policy.onReset(() => options.logger?.info({ breaker: this.provider }, 'circuit breaker closed: the provider answers again'));
  }

  state(): BreakerState {
    switch (this.policy.state) {
      case CircuitState.Closed:
        return 'closed';
      case CircuitState.HalfOpen:
        return 'half_open';
      default:
        // Open past its window: the next call is the probe, which is what half-open means to a reader.
        return this.remainingMs() > 0 ? 'open' : 'half_open';
    }
  }

  /**
   * Runs `fn` under the timeout and the breaker; `signal` aborts when the timeout fires.
   * A timeout of 0 means none (an in-process provider such as the paper venue).
   */
  async execute<T>(fn: (signal: AbortSignal) => Promise<T>, options: ProviderCallOptions = {}): Promise<T> {
    this.gate();
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs;
    if (options.weak) return this.executeWeak(fn, timeoutMs);
    try {
      return await this.policy.execute(() => this.underDeadline(fn, timeoutMs));
    } catch (error) {
      if (error instanceof BrokenCircuitError) throw this.openError(error);
      throw error;
    }
  }

  /** Outside the policy, which then only hears of a provider failure (see `weak`). */
  private async executeWeak<T>(fn: (signal: AbortSignal) => Promise<T>, timeoutMs: number): Promise<T> {
    try {
      return await this.underDeadline(fn, timeoutMs);
    } catch (error) {
      // Counted as the policy counts any failure (and it opens the circuit at the threshold).
      if (isProviderFailure(error)) await this.policy.execute(() => Promise.reject(error)).catch(() => undefined);
      throw error;
    }
  }

  private async underDeadline<T>(fn: (signal: AbortSignal) => Promise<T>, timeoutMs: number): Promise<T> {
    const deadline = this.deadline(timeoutMs);
    if (!deadline) return fn(NEVER_ABORTED);
    try {
      return await deadline.execute((_context, signal) => fn(signal));
    } catch (error) {
      if (error instanceof TaskCancelledError)
        throw providerUnavailable(this.provider, `timed out after ${timeoutMs} ms`, { cause: error });
      throw error;
    }
  }

  /** One timeout policy per budget, built once: a policy per call cost more than the paper venue's work. */
  private deadline(timeoutMs: number): TimeoutPolicy | undefined {
    if (timeoutMs <= 0) return undefined;
    let policy = this.deadlines.get(timeoutMs);
    if (!policy) {
      // Aggressive: the caller gets its answer at the deadline even if `fn` ignores the signal.
      policy = timeout(timeoutMs, TimeoutStrategy.Aggressive);
      this.deadlines.set(timeoutMs, policy);
    }
    return policy;
  }

  /** The error an open circuit answers with (the trading errors). */
  openError(cause?: unknown): AppError {
    return AppError.circuitBreakerOpen(this.provider, this.remainingMs() / 1000, { cause });
  }

  private gate(): void {
    const state = this.policy.state;
    if (state === CircuitState.HalfOpen) throw this.openError();
    if (state === CircuitState.Open && this.remainingMs() > 0) throw this.openError();
  }

  private remainingMs(): number {
    return this.policy.state === CircuitState.Open ? this.openedAt + this.openMs - this.clock.now() : 0;
  }
}
