import cronParser from 'cron-parser';
import { AppError } from '../../kernel/errors/app-error.js';
import type { DueJob, OneOffJob, RepeatingSchedule } from '../../kernel/ports/scheduler.port.js';

/**
 * Timing rules shared by every scheduler adapter, so the in-process and BullMQ ones
 * agree on where a schedule's runs fall:
 * - `everyMs`: a fixed grid `anchor + k * everyMs`; the anchor is `startAt`, or the
 *   creation time without it. Without `startAt` the first run is one interval after
 *   creation; with a future `startAt` it is `startAt`; with a past one it is the first
 *   grid point after now (runs before the schedule existed are not owed).
 * - `cron`: UTC; the first run is the first tick at or after `startAt` and after now.
 * - A run is never after `endAt`; a schedule with no run left is finished.
 * - Missed runs (process down, or a run delivered later than the next was due) collapse:
 *   the pending run is delivered once with its own `dueAt` (the first missed one), and
 *   the next run is the first grid point after the delivery, never a burst.
 */
export type ScheduleTiming = Pick<RepeatingSchedule, 'everyMs' | 'cron' | 'startAt' | 'endAt'>;

/** The first run of a new (or re-timed) schedule, or null when it has none. */
export function firstDueAt(timing: ScheduleTiming, now: number): number | null {
  let due: number | null;
  if (timing.everyMs !== undefined) {
    const { everyMs, startAt } = timing;
    if (startAt !== undefined && startAt > now) due = startAt;
    else due = firstGridPointAfter(startAt ?? now, everyMs, now);
  } else {
    const from = timing.startAt === undefined ? now : Math.max(now, timing.startAt - 1);
    due = cronTickAfter(timing.cron!, from);
  }
  return withinEnd(timing, due);
}

/** The run after the one due at `dueAt`, delivered at `now`: the first grid point after both. */
export function nextDueAfter(timing: ScheduleTiming, dueAt: number, now: number): number | null {
  const due =
    timing.everyMs !== undefined
      ? firstGridPointAfter(dueAt, timing.everyMs, Math.max(dueAt, now))
      : cronTickAfter(timing.cron!, Math.max(dueAt, now));
  return withinEnd(timing, due);
}

/** The smallest `anchor + k * every` (k >= 1 when anchor >= after) that is strictly after `after`. */
function firstGridPointAfter(anchor: number, every: number, after: number): number {
  const k = Math.max(1, Math.floor((after - anchor) / every) + 1);
  return anchor + k * every;
}

/** The first cron tick strictly after `after` (epoch ms), in UTC; null when none. */
function cronTickAfter(cron: string, after: number): number | null {
  try {
    return cronParser
      .parseExpression(cron, { currentDate: new Date(after), tz: 'UTC' })
      .next()
      .getTime();
  } catch {
    return null;
  }
}

function withinEnd(timing: ScheduleTiming, due: number | null): number | null {
  return due === null || (timing.endAt !== undefined && due > timing.endAt) ? null : due;
}

/** Refuses a one-off job the port's types allow but no adapter can honour. */
export function validateOneOff(job: OneOffJob): void {
  const errors = [...addressErrors(job, 'jobId', job.jobId)];
  if (!Number.isFinite(job.runAt)) errors.push('runAt must be epoch milliseconds');
  if (errors.length > 0) throw AppError.validation(errors);
}

/** Refuses a schedule without exactly one valid timing (interval or cron). */
export function validateRepeating(schedule: RepeatingSchedule): void {
  const errors = [...addressErrors(schedule, 'scheduleId', schedule.scheduleId)];
  const { everyMs, cron, startAt, endAt } = schedule;
  if ((everyMs === undefined) === (cron === undefined)) {
    errors.push('exactly one of everyMs or cron is required');
  } else if (everyMs !== undefined && (!Number.isInteger(everyMs) || everyMs <= 0)) {
    errors.push('everyMs must be a positive integer');
  } else if (cron !== undefined && !isValidCron(cron)) {
    errors.push('cron must be a valid 5- or 6-field expression');
  }
  if (startAt !== undefined && !Number.isFinite(startAt)) errors.push('startAt must be epoch milliseconds');
  if (endAt !== undefined && !Number.isFinite(endAt)) errors.push('endAt must be epoch milliseconds');
  if (errors.length > 0) throw AppError.validation(errors);
}

function isValidCron(cron: string): boolean {
  const fields = cron.trim().split(/\s+/).length;
  if (fields !== 5 && fields !== 6) return false;
  try {
    cronParser.parseExpression(cron, { tz: 'UTC' });
    return true;
  } catch {
    return false;
  }
}

function addressErrors(job: Pick<OneOffJob, 'address' | 'event'>, idName: string, id: unknown): string[] {
  const errors: string[] = [];
  if (typeof id !== 'string' || id.length === 0) errors.push(`${idName} must be a non-empty string`);
  if (typeof job.address?.type !== 'string' || typeof job.address?.id !== 'string') {
    errors.push('address must have string type and id');
  }
  if (typeof job.event?.type !== 'string') errors.push('event.type must be a string');
  return errors;
}

/** Exponential backoff for the retry after `attempt` failures (1-based), capped at 5 minutes. */
export function retryDelayMs(baseMs: number, attempt: number): number {
  return Math.min(baseMs * 2 ** Math.max(0, attempt - 1), 300_000);
}

/** The slice of a pino logger the schedulers use; pino's `Logger` fits as is. */
export interface SchedulerLogger {
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** Called on every failed delivery; `willRetry` is false when the run is dropped. */
export type DeliveryErrorCallback = (error: unknown, job: DueJob, info: { attempt: number; willRetry: boolean }) => void;

/** Fallback when no logger is injected: failures must never vanish silently. */
export const consoleSchedulerLogger: SchedulerLogger = {
  warn: (fields, message) => console.warn(message, fields),
  error: (fields, message) => console.error(message, fields),
};
