import { setTimeout as sleep } from 'node:timers/promises';
import { AppError, isAppError } from '../../kernel/errors/app-error.js';
import type { CollectionSpec, CommitWrite, StorePort } from '../../kernel/ports/store.port.js';
import { formatUsd, fromMicros, toMicros } from '../../kernel/vocabulary/amounts.js';
import type { TradingSubject } from '../portfolio/portfolio.types.js';
import { subjectKey } from '../portfolio/portfolio.records.js';

/**
 * The withdrawal settings' daily cap: USD withdrawn per account per UTC day, in integer
 * micro-dollars. A withdrawal reserves its share in the same commit that creates it (a
 * compare-and-set on this record), so of concurrent withdrawals only those that fit are
 * created; one that fails before anything moved gives its share back.
 */
export const WITHDRAWAL_CAP_COLLECTION: CollectionSpec = { name: 'withdrawals.daily', indexes: [] };
const TWO_DAYS_MS = 2 * 24 * 60 * 60 * 1000;

interface CapRecord {
  micros: number;
}

function capExceededMessage(capUsd: number, usedMicros: number): string {
  return `Withdrawal would exceed the daily cap of $${formatUsd(capUsd)} ($${formatUsd(fromMicros(usedMicros))} used today)`;
}

export class WithdrawalCap {
  constructor(private readonly store: StorePort) {}

  /** The UTC day a time counts on. */
  static dayOf(at: number): string {
    return new Date(at).toISOString().slice(0, 10);
  }

  /** The write that reserves `usd` of the day's cap, read now; throws 400 RISK_LIMIT_EXCEEDED when it would pass `capUsd`. */
  async reserveWrite(subject: TradingSubject, usd: number, capUsd: number, day: string): Promise<CommitWrite> {
    const id = `${subjectKey(subject)}|${day}`;
    const doc = await this.store.get<CapRecord>(WITHDRAWAL_CAP_COLLECTION.name, id);
    const used = doc?.data.micros ?? 0;
    const next = used + toMicros(usd);
    if (next > toMicros(capUsd)) throw new AppError('RISK_LIMIT_EXCEEDED', capExceededMessage(capUsd, used));
    return {
      op: 'put',
      collection: WITHDRAWAL_CAP_COLLECTION.name,
      id,
      input: { data: { micros: next }, expectedVersion: doc?.version ?? 0, expiresAt: Date.parse(day) + TWO_DAYS_MS },
    };
  }

  /** Gives back a reservation whose withdrawal moved nothing. */
  async release(subject: TradingSubject, usd: number, day: string): Promise<void> {
    const id = `${subjectKey(subject)}|${day}`;
    for (let attempt = 0; attempt < 20; attempt++) {
      const doc = await this.store.get<CapRecord>(WITHDRAWAL_CAP_COLLECTION.name, id);
      if (!doc) return;
      try {
        await this.store.put(WITHDRAWAL_CAP_COLLECTION.name, id, {
          data: { micros: Math.max(0, doc.data.micros - toMicros(usd)) },
          expectedVersion: doc.version,
          expiresAt: Date.parse(day) + TWO_DAYS_MS,
        });
        return;
      } catch (error) {
        if (!isAppError(error) || error.code !== 'VERSION_CONFLICT') throw error;
        await sleep(Math.random() * Math.min(20, 2 ** attempt));
      }
    }
  }
}
