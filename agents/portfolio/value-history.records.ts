import type { CollectionSpec } from '../../src/ports/store.port.js';

/**
 * Where the portfolio value history lives. `days` holds one document per (account, UTC day)
 * with that day's points, indexed by `subjectDay` = `<subject>|<YYYY-MM-DD>` so a range of
 * days is one index range read; each day expires after the retention. `sampling` holds one
 * document per account that holds something, indexed by when its next periodic sample is
 * due, so the sweep reads only the accounts that are due.
 */
export const VALUE_HISTORY = {
  days: 'portfolio.value_days',
  dayIndex: 'subjectDay',
  sampling: 'portfolio.value_sampling',
  dueIndex: 'nextSampleAt',
} as const;

export const VALUE_HISTORY_COLLECTIONS: CollectionSpec[] = [
  { name: VALUE_HISTORY.days, indexes: [VALUE_HISTORY.dayIndex] },
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

export interface ValueDayRecord {
  subject: string;
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  /** In time order. */
  points: ValuePoint[];
}

export interface SamplingRecord {
  subject: string;
  /** Epoch ms the next periodic sample is due. */
  nextSampleAt: number;
}

const DAY_MS = 86_400_000;

/** The UTC day of an epoch ms, `YYYY-MM-DD`. */
export function dayOf(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** Epoch ms of the start of the UTC day `at` falls in. */
export function startOfDay(at: number): number {
  return Math.floor(at / DAY_MS) * DAY_MS;
}

/** A day document's id and `subjectDay` index value: ordered by account, then by day. */
export function dayKey(subject: string, day: string): string {
  return `${subject}|${day}`;
}

export { DAY_MS };
