import cronParser from 'cron-parser';
import type { DcaInterval } from '../machines/dca-strategy.machine.js';

/**
 * DCA intervals (CONTRACT "Request shapes"): a cron expression (5 fields, or 6 with
 * seconds, UTC) or `every <n> <minutes|hours|days>`. Returns the schedule the scheduler
 * port takes, or the problem in words.
 */

const UNIT_MS: Record<string, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };
const EVERY = /^every\s+(\d{1,6})\s+(minute|hour|day)s?$/i;
/** Shortest interval a strategy may run at. */
export const MIN_INTERVAL_MS = 1_000;
/** Longest `every` interval, as the chat commands take it: a year and a day. */
const MAX_EVERY_MS = 366 * UNIT_MS.day!;

export function parseInterval(text: string): { ok: true; value: DcaInterval } | { ok: false; error: string } {
  const trimmed = text.trim().replace(/\s+/g, ' ');
  const every = EVERY.exec(trimmed);
  if (every) {
    const n = Number(every[1]);
    if (n < 1) return { ok: false, error: 'interval must be at least every 1 minute' };
    const everyMs = n * UNIT_MS[every[2]!.toLowerCase()]!;
    if (everyMs > MAX_EVERY_MS) return { ok: false, error: 'interval must be at most every 366 days' };
    return { ok: true, value: { text: trimmed, everyMs } };
  }
  const fields = trimmed.split(' ').length;
  if (fields === 5 || fields === 6) {
    try {
      const parsed = cronParser.parseExpression(trimmed, { tz: 'UTC' });
      const first = parsed.next().getTime();
      const second = parsed.next().getTime();
      if (second - first < MIN_INTERVAL_MS) return { ok: false, error: 'interval must be at least one second apart' };
      return { ok: true, value: { text: trimmed, cron: trimmed } };
    } catch {
      return { ok: false, error: 'interval is not a valid cron expression' };
    }
  }
  return { ok: false, error: 'interval must be a cron expression or "every <n> <minutes|hours|days>"' };
}

/** Typical gap between two runs (for cron: between the next two), used to tell a late tick from an on-time one. */
export function intervalMs(interval: DcaInterval, now: number): number {
  if (interval.everyMs !== undefined) return interval.everyMs;
  const parsed = cronParser.parseExpression(interval.cron!, { tz: 'UTC', currentDate: new Date(now) });
  const first = parsed.next().getTime();
  return parsed.next().getTime() - first;
}

/**
 * A tick delivered this long after it was due was missed (no process was running), not
 * merely delayed: at least 30 s, half an interval, at most an hour.
 */
export function lateAfterMs(interval: DcaInterval, now: number): number {
  return Math.max(30_000, Math.min(intervalMs(interval, now) / 2, 3_600_000));
}
