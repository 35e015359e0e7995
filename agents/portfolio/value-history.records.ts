import type { CollectionSpec } from '../../kernel/ports/store.port.js';

/**
 * Where the portfolio value history lives: two series of the same readings. `days` holds one
 * document per (account, UTC day) with a reading per minute; `months` one per (account, UTC
 * month) with a reading per hour, so a long range reads a few month documents instead of a
 * day document per day. Both are indexed by `subjectPeriod` = `<subject>|<period>` (a range
 * of periods is one index range read) and expire after the retention. `sampling` holds one
 * document per account that holds something, indexed by when its next periodic reading is
 * due, so the sweep reads only the accounts that are due.
 */
export const VALUE_HISTORY = {
  days: 'portfolio.value_days',
  months: 'portfolio.value_months',
  periodIndex: 'subjectPeriod',
  sampling: 'portfolio.value_sampling',
  dueIndex: 'nextSampleAt',
} as const;

export const VALUE_HISTORY_COLLECTIONS: CollectionSpec[] = [
  { name: VALUE_HISTORY.days, indexes: [VALUE_HISTORY.periodIndex] },
  { name: VALUE_HISTORY.months, indexes: [VALUE_HISTORY.periodIndex] },
  { name: VALUE_HISTORY.sampling, indexes: [VALUE_HISTORY.dueIndex] },
];

/** Why a point was taken: a balance changed (fill, deposit, withdrawal), or the periodic sample. */
export type SampleReason = 'change' | 'periodic';

/** One reading of the account's value. USD figures are two-decimal strings, as the PnL totals are. */
export interface ValuePoint {
  /** Epoch ms of the reading. */
  at: number;
  valueUsd: string;
  costBasisUsd: string;
  realizedPnlUsd: string;
  unrealizedPnlUsd: string;
  reason: SampleReason;
}

/** One period's readings of one account, one per bucket of its series. */
export interface ValuePeriodRecord {
  subject: string;
  /** `YYYY-MM-DD` (days) or `YYYY-MM` (months), UTC. */
  period: string;
  /** In time order. */
  points: ValuePoint[];
}

export interface SamplingRecord {
  subject: string;
  /** Epoch ms the next periodic reading is due. */
  nextSampleAt: number;
}

const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/** A series of readings: its collection, one reading kept per bucket, documents per period. */
export interface ValueSeries {
  collection: string;
  bucketMs: number;
  /** The period (document) a reading at `at` belongs to. */
  period(at: number): string;
  /** When that period's document expires, `retentionDays` after the period ends. */
  expiresAt(at: number, retentionDays: number): number;
}

/** A reading a minute, a document a day. */
export const MINUTE_SERIES: ValueSeries = {
  collection: VALUE_HISTORY.days,
  bucketMs: MINUTE_MS,
  period: (at) => new Date(at).toISOString().slice(0, 10),
  expiresAt: (at, retentionDays) => Math.floor(at / DAY_MS) * DAY_MS + (retentionDays + 1) * DAY_MS,
};

/** A reading an hour, a document a month: what long ranges read. */
export const HOUR_SERIES: ValueSeries = {
  collection: VALUE_HISTORY.months,
  bucketMs: HOUR_MS,
  period: (at) => new Date(at).toISOString().slice(0, 7),
  expiresAt: (at, retentionDays) => {
    const date = new Date(at);
    return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) + retentionDays * DAY_MS;
  },
};

/** A period document's id and `subjectPeriod` index value: ordered by account, then by period. */
export function periodKey(subject: string, period: string): string {
  return `${subject}|${period}`;
}
