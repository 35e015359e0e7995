import { setTimeout as sleep } from 'node:timers/promises';
import { AppError, isAppError } from '../errors/app-error.js';

/** Cap of one wait: with 20 retries a lost race costs at most about a second of waiting. */
export const MAX_CONFLICT_BACKOFF_MS = 50;

/**
 * How long to wait before retry `attempt` (0 for the first retry) of a write that lost a
 * compare-and-set race: full-jitter exponential backoff (a random wait up to 1, 2, 4 ... ms,
 * capped), so that two writers hammering one record take turns instead of colliding again.
 * The one backoff of the service: the actor runtime and `updateRecord` both use it.
 */
export function conflictBackoffMs(attempt: number, random: () => number = Math.random): number {
  return random() * Math.min(MAX_CONFLICT_BACKOFF_MS, 2 ** attempt);
}

/** Waits `conflictBackoffMs(attempt)`. */
export function conflictBackoff(attempt: number): Promise<void> {
  return sleep(conflictBackoffMs(attempt));
}

/** A store's compare-and-set refusal (`AppError('VERSION_CONFLICT')`). */
export function isVersionConflict(error: unknown): error is AppError {
  return isAppError(error) && error.code === 'VERSION_CONFLICT';
}

/**
 * The 409 of a write that kept losing its compare-and-set: `key` is `<type or collection>/<id>`.
 * Its own class so that a caller whose contract answers a lost race in its own words (429
 * `Too many verification attempts`, 409 idempotency in progress) can catch exactly this.
 */
export class ConcurrentUpdatesGaveUp extends AppError {
  constructor(key: string, attempts: number) {
    super('RESOURCE_CONFLICT', `Concurrent updates to ${key}: gave up after ${attempts} attempts`, { retryable: true });
  }
}

export function concurrentUpdatesGaveUp(key: string, attempts: number): AppError {
  return new ConcurrentUpdatesGaveUp(key, attempts);
}

/** Whether `error` is the give-up of `retryOnConflict` / `updateRecord(s)` (or the runtime's). */
export function isConcurrentUpdatesGaveUp(error: unknown): error is ConcurrentUpdatesGaveUp {
  return error instanceof ConcurrentUpdatesGaveUp;
}
