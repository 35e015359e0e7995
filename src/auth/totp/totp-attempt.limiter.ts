import { AppError } from '../../../kernel/errors/app-error.js';
import type { ClockPort } from '../../../kernel/ports/clock.port.js';
import type { StorePort } from '../../../kernel/ports/store.port.js';
import { isConcurrentUpdatesGaveUp } from '../../../kernel/shared/conflict-backoff.js';
import { updateRecord } from '../../../kernel/shared/record-update.js';

interface AttemptLog {
  /** Epoch ms of each counted attempt inside the window (a sliding log). */
  attempts: number[];
}

export interface TotpAttemptLimiterOptions {
  store: StorePort;
  clock: ClockPort;
  collection: string;
  maxFailures: number;
  windowMs: number;
}

// Enough to ride out honest contention; more than this on one user is itself abuse (429).
const CAS_RETRIES = 10;

/**
 * Counts verification attempts per user in the store, so every process shares the limit.
 * An attempt is reserved *before* the code is checked and refunded on success: that way
 * concurrent guesses cannot all slip past a check-then-count race, and only failures
 * stay counted. A sliding log (not a fixed window) stops bursts straddling a boundary.
 */
export class TotpAttemptLimiter {
  constructor(private readonly options: TotpAttemptLimiterOptions) {}

  /**
   * Counts one attempt for `key`.
   * @returns the reservation's timestamp, to hand to `refund` when the attempt succeeds.
   * @throws AppError RATE_LIMITED (429) while `maxFailures` attempts sit in the window.
   */
  async reserve(key: string): Promise<number> {
    const { store, clock, collection, maxFailures, windowMs } = this.options;
    let reservedAt = 0;
    try {
      await updateRecord<AttemptLog>(
        store,
        { collection, id: key },
        (doc) => {
          const now = clock.now();
          const recent = (doc?.data.attempts ?? []).filter((at) => at > now - windowMs);
          // The refused attempt is not logged, so the lockout ends when the window passes.
          if (recent.length >= maxFailures) throw tooManyAttempts(Math.min(...recent) + windowMs - now);
          reservedAt = now;
          return { data: { attempts: [...recent, now] }, expiresAt: now + windowMs };
        },
        { maxAttempts: CAS_RETRIES },
      );
      return reservedAt;
    } catch (error) {
      if (isConcurrentUpdatesGaveUp(error)) throw tooManyAttempts(1000);
      throw error;
    }
  }

  /**
   * Gives back a reservation after a successful verification. Best effort: if it cannot
   * be written the attempt stays counted, which errs on the strict side.
   */
  async refund(key: string, reservedAt: number): Promise<void> {
    const { store, collection } = this.options;
    await updateRecord<AttemptLog>(
      store,
      { collection, id: key },
      (doc) => {
        const index = doc ? doc.data.attempts.indexOf(reservedAt) : -1;
        if (!doc || index < 0) return null;
        const attempts = doc.data.attempts.filter((_, i) => i !== index);
        if (attempts.length === 0) return { delete: true };
        return { data: { attempts }, ...(doc.expiresAt === undefined ? {} : { expiresAt: doc.expiresAt }) };
      },
      { maxAttempts: CAS_RETRIES },
    ).catch(() => undefined);
  }
}

function tooManyAttempts(waitMs: number): AppError {
  return new AppError('RATE_LIMITED', 'Too many verification attempts', {
    envelope: 'standard',
    retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
  });
}
