import cronParser from 'cron-parser';
import type { DcaInterval } from '../../machines/dca-strategy.machine.js';
import type { DcaInterval as CommandInterval } from '../chat/intent.types.js';

/**
 * DCA intervals (request shapes), one grammar for every route: a cron expression
 * (5 fields, or 6 with seconds, UTC) or the `every` form the chat commands take too
 * (`every 4 hours`, `every hour`, `every 30 min`, `every 2h`, `each day`, `every week`,
 * `hourly`, `daily`, `weekly`). Returns the schedule the scheduler port takes, or the problem in words.
 */

/** The `every` form as numbers: `every 4 hours` is `{every: 4, unit: 'hours'}` (weeks are 7 days). */
export type EveryInterval = CommandInterval;

const UNIT_MS: Record<EveryInterval['unit'], number> = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 };
const UNIT_WORDS: Record<string, EveryInterval['unit']> = {
  m: 'minutes',
  min: 'minutes',
  mins: 'minutes',
  minute: 'minutes',
  minutes: 'minutes',
  h: 'hours',
  hr: 'hours',
  hrs: 'hours',
  hour: 'hours',
  hours: 'hours',
  d: 'days',
  day: 'days',
  days: 'days',
};
/** `every|each [n] <unit>`: a clause, found inside a command or matched whole (REST and MCP). */
export const EVERY_SOURCE = String.raw`\b(?:every|each)\s+(?:(\d+)\s*)?(m|mins?|minutes?|h|hrs?|hours?|d|days?|weeks?)\b`;
/** `hourly`, `daily`, `weekly`. */
export const INTERVAL_WORD_SOURCE = String.raw`\b(hourly|daily|weekly)\b`;
const EVERY_WHOLE = new RegExp(`^${EVERY_SOURCE}$`, 'i');
const WORD_WHOLE = new RegExp(`^${INTERVAL_WORD_SOURCE}$`, 'i');
/** Longest `every` interval: a year and a day. */
const MAX_EVERY_MS = 366 * UNIT_MS.days;
/**
 * Shortest gap between two buys of a strategy, cron or `every` alike: a minute. (Six-field
 * cron used to allow one a second while `every` stopped at a minute.) Only tests of the
 * scheduler lower it (`DCA_MIN_INTERVAL_SECONDS`), never below a second nor above a minute.
 */
export const MIN_INTERVAL_MS = 60_000;

/** What a refused interval's `details.hint` says: the floor and every form that works. */
export const INTERVAL_HINT =
  'An interval is at least one minute apart: a cron expression in UTC (5 fields, or 6 with seconds; e.g. "0 9 * * 1", ' +
  '"*/15 * * * *"), or "every <n> <minutes|hours|days|weeks>" ("every 30 minutes", "every 30 min", "every 2h", "every 4 hours", ' +
  '"every 3 days"), or one of "every hour", "every day", "every week", "hourly", "daily", "weekly"; at most every 366 days.';

/** The interval a match of `EVERY_SOURCE` names (groups: count, unit word). */
export function everyOf(count: string | undefined, word: string): EveryInterval {
  const lower = word.toLowerCase();
  const n = count === undefined ? 1 : Number(count);
  return lower.startsWith('week') ? { every: n * 7, unit: 'days' } : { every: n, unit: UNIT_WORDS[lower]! };
}

/** The interval a match of `INTERVAL_WORD_SOURCE` names. */
export function wordInterval(word: string): EveryInterval {
  const lower = word.toLowerCase();
  return lower === 'hourly' ? { every: 1, unit: 'hours' } : { every: lower === 'daily' ? 1 : 7, unit: 'days' };
}

/** Why an `every` interval is out of bounds (at least a minute, at most 366 days), or undefined. */
export function everyProblem(interval: EveryInterval): string | undefined {
  if (interval.every < 1) return 'interval must be at least every 1 minute';
  if (interval.every * UNIT_MS[interval.unit] > MAX_EVERY_MS) return 'interval must be at most every 366 days';
  return undefined;
}

export function parseInterval(
  text: string,
  minIntervalMs = MIN_INTERVAL_MS,
): { ok: true; value: DcaInterval } | { ok: false; error: string } {
  const trimmed = text.trim().replace(/\s+/g, ' ');
  const every = EVERY_WHOLE.exec(trimmed);
  const word = every ? null : WORD_WHOLE.exec(trimmed);
  if (every || word) {
    const interval = every ? everyOf(every[1], every[2]!) : wordInterval(word![1]!);
    const problem = everyProblem(interval);
    if (problem) return { ok: false, error: problem };
    return { ok: true, value: { text: trimmed, everyMs: interval.every * UNIT_MS[interval.unit] } };
  }
  const fields = trimmed.split(' ').length;
  if (fields === 5 || fields === 6) {
    let seconds: readonly number[];
    try {
      const parsed = cronParser.parseExpression(trimmed, { tz: 'UTC' });
      seconds = parsed.fields.second;
      parsed.next(); // an expression that never fires throws here
    } catch {
      return { ok: false, error: 'interval is not a valid cron expression' };
    }
    if (shortestCronGapMs(seconds) < minIntervalMs)
      return { ok: false, error: `interval must be at least ${minIntervalMs / 1000} seconds apart` };
    return { ok: true, value: { text: trimmed, cron: trimmed } };
  }
  return { ok: false, error: 'interval must be a cron expression or "every <n> <minutes|hours|days>"' };
}

/**
 * The shortest gap a cron can leave between two runs, for floors up to a minute: a cron
 * without a seconds field (or with one second) runs at most once a minute; with several
 * seconds, the closest two of them, or the last of one minute and the first of the next
 * (assumed to match too: an odd expression is refused rather than allowed a burst).
 */
function shortestCronGapMs(seconds: readonly number[]): number {
  if (seconds.length <= 1) return 60_000;
  const sorted = [...seconds].sort((a, b) => a - b);
  let gap = 60 - sorted[sorted.length - 1]! + sorted[0]!;
  for (let i = 1; i < sorted.length; i++) gap = Math.min(gap, sorted[i]! - sorted[i - 1]!);
  return gap * 1000;
}

/** Typical gap between two runs (for cron: between the next two), used to tell a late tick from an on-time one. */
function intervalMs(interval: DcaInterval, now: number): number {
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
