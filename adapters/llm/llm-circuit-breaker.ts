import { BrokenCircuitError, CircuitState, ConsecutiveBreaker, circuitBreaker, handleWhen, type CircuitBreakerPolicy } from 'cockatiel';
import { AppError, isAppError } from '../../kernel/errors/app-error.js';
import type { BreakerLogger } from '../resilience/provider-breaker.js';

export interface LlmBreakerOptions {
  /** Provider name in `Circuit breaker open for provider: <name>`. */
  provider: string;
  /** Consecutive provider failures that open the circuit. */
  failureThreshold: number;
  /** How long the circuit stays open before one half-open probe is let through. */
  halfOpenAfterMs: number;
  logger?: BreakerLogger;
}

/** The limits: after the breaker opens, callers wait 60 seconds. */
export const DEFAULT_BREAKER: Omit<LlmBreakerOptions, 'provider'> = { failureThreshold: 5, halfOpenAfterMs: 60_000 };

/**
 * A cockatiel circuit breaker that counts only `LLM_PROVIDER_UNAVAILABLE` (5xx, network,
 * timeout, unreadable answers). Credential, rate-limit and token-limit errors say nothing
 * about the provider's health, so they neither open the circuit nor keep it open.
 * While open, calls fail at once with `LLM_CIRCUIT_BREAKER_OPEN` and a `retryAfterSeconds`
 * counting down to the half-open probe.
 */
export class LlmCircuitBreaker {
  private readonly policy: CircuitBreakerPolicy;
  /** cockatiel measures open time with `Date.now()`; we mirror it to tell callers how long to wait. */
  private openedAt = 0;

  constructor(private readonly options: LlmBreakerOptions) {
    this.policy = circuitBreaker(
      handleWhen((error) => isAppError(error) && error.code === 'LLM_PROVIDER_UNAVAILABLE'),
      { halfOpenAfter: options.halfOpenAfterMs, breaker: new ConsecutiveBreaker(options.failureThreshold) },
    );
    this.policy.onBreak(() => {
      this.openedAt = Date.now();
      options.logger?.warn(
        { breaker: options.provider, failures: options.failureThreshold, openMs: options.halfOpenAfterMs },
        'circuit breaker opened: calls to the provider fail at once',
      );
    });
    this.policy.onReset(() => options.logger?.info({ breaker: options.provider }, 'circuit breaker closed: the provider answers again'));
  }

  /** `closed`, `open`, `half-open` (a probe is running) or `isolated`. */
  get state(): 'closed' | 'open' | 'half-open' | 'isolated' {
    switch (this.policy.state) {
      case CircuitState.Closed:
        return 'closed';
      case CircuitState.Open:
        return 'open';
      case CircuitState.HalfOpen:
        return 'half-open';
      default:
        return 'isolated';
    }
  }

  async execute<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await this.policy.execute(fn);
    } catch (error) {
      if (error instanceof BrokenCircuitError) throw this.openError(error);
      throw error;
    }
  }

  /** The error an open circuit answers with; also used by `ping`. */
  openError(cause?: unknown): AppError {
    const remainingMs = this.openedAt + this.options.halfOpenAfterMs - Date.now();
    return AppError.circuitBreakerOpen(this.options.provider, remainingMs / 1000, { code: 'LLM_CIRCUIT_BREAKER_OPEN', cause });
  }
}
