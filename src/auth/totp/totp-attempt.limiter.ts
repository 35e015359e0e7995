import { AppError } from '../../errors/app-error.js';
import type { ClockPort } from '../../ports/clock.port.js';
import type { StorePort } from '../../ports/store.port.js';
import { isVersionConflict } from './totp.model.js';

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

// Enough to ride out honest contention; more than this on one user is itself abuse.
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
    for (let attempt = 0; attempt < CAS_RETRIES; attempt++) {
      const doc = await store.get<AttemptLog>(collection, key);
      const now = clock.now();
      const recent = (doc?.data.attempts ?? []).filter((at) => at > now - windowMs);
      if (recent.length >= maxFailures) {
        // The refused attempt is not logged, so the lockout ends when the window passes.
        throw tooManyAttempts(Math.min(...recent) + windowMs - now);
      }
      try {
        await store.put<AttemptLog>(collection, key, {
          data: { attempts: [...recent, now] },
          expectedVersion: doc?.version ?? 0,
          expiresAt: now + windowMs,
        });
        return now;
      } catch (error) {
        if (!isVersionConflict(error)) throw error;
      }
    }
    throw tooManyAttempts(1000);
  }

  /**
   * Gives back a reservation after a successful verification. Best effort: if it cannot
   * be written the attempt stays counted, which errs on the strict side.
   */
  async refund(key: string, reservedAt: number): Promise<void> {
    const { store, collection } = this.options;
    for (let attempt = 0; attempt < CAS_RETRIES; attempt++) {
      try {
        const doc = await store.get<AttemptLog>(collection, key);
        const index = doc ? doc.data.attempts.indexOf(reservedAt) : -1;
        if (!doc || index < 0) return;
        const attempts = doc.data.attempts.filter((_, i) => i !== index);
        if (attempts.length === 0) {
          await store.delete(collection, key, doc.version);
        } else {
          await store.put<AttemptLog>(collection, key, {
            data: { attempts },
            expectedVersion: doc.version,
            ...(doc.expiresAt === undefined ? {} : { expiresAt: doc.expiresAt }),
          });
        }
        return;
      } catch (error) {
        if (!isVersionConflict(error)) return;
      }
    }
  }
}

function tooManyAttempts(waitMs: number): AppError {
  return new AppError('RATE_LIMITED', 'Too many verification attempts', {
    envelope: 'standard',
    retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
  });
}
