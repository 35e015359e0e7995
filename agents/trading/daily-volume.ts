import { setTimeout as sleep } from 'node:timers/promises';
import { AppError, isAppError } from '../../kernel/errors/app-error.js';
import type { CollectionSpec, CommitWrite, StorePort } from '../../kernel/ports/store.port.js';
import { formatUsd, fromMicros, toMicros } from '../../kernel/vocabulary/amounts.js';
import { KeyedQueue } from './keyed-queue.js';
import type { TradingSubject } from '../portfolio/portfolio.types.js';
import { subjectKey } from '../portfolio/portfolio.records.js';

/**
 * The risk policy's daily volume: USD of orders sent per account per UTC day. A
 * reservation is taken atomically with the limit check (compare-and-set), so two
 * concurrent orders cannot both slip under the limit; a failed order gives its share back.
 * Kept in integer micro-dollars: a float sum drifts (1.37 + 69.37 + 29.26 is a hair over
 * 100, refusing the order that lands exactly on a $100 limit).
 */

export const DAILY_VOLUME_COLLECTION: CollectionSpec = { name: 'trading.daily-volume', indexes: [] };
const TWO_DAYS_MS = 2 * 24 * 60 * 60 * 1000;
const MAX_ATTEMPTS = 20;

interface VolumeRecord {
  micros?: number;
  /** Records written before micro-dollars: a float sum of USD. */
  usd?: number;
}

export class DailyVolume {
  private readonly queue = new KeyedQueue();

  constructor(private readonly store: StorePort) {}

  /** Adds `usd` to today's volume, or throws 400 when it would pass `limitUsd`. */
  async reserve(subject: TradingSubject, usd: number, limitUsd: number, at: number): Promise<void> {
    await this.change(subject, at, reserving(usd, limitUsd));
  }

  /**
   * The compare-and-set write that reserves `usd` of today's volume, read now, to commit with
   * the order that takes it (so the order in `submitting` and its reservation are one unit of
   * work); throws the 400 of `reserve` when it would pass `limitUsd`.
   */
  async reserveWrite(subject: TradingSubject, usd: number, limitUsd: number, at: number): Promise<CommitWrite> {
    const id = idOf(subject, at);
    const doc = await this.store.get<VolumeRecord>(DAILY_VOLUME_COLLECTION.name, id);
    const micros = reserving(usd, limitUsd)(microsOf(doc?.data));
    return {
      op: 'put',
      collection: DAILY_VOLUME_COLLECTION.name,
      id,
      input: { data: { micros }, expectedVersion: doc?.version ?? 0, expiresAt: at + TWO_DAYS_MS },
    };
  }

  /** Throws the refusal of `reserve` when `usd` more would pass `limitUsd` today; reserves nothing (a trade's preflight). */
  async check(subject: TradingSubject, usd: number, limitUsd: number, at: number): Promise<void> {
    const doc = await this.store.get<VolumeRecord>(DAILY_VOLUME_COLLECTION.name, idOf(subject, at));
    reserving(usd, limitUsd)(microsOf(doc?.data));
  }

  async release(subject: TradingSubject, usd: number, at: number): Promise<void> {
    const amount = toMicros(usd);
    await this.change(subject, at, (used) => Math.max(0, used - amount));
  }

  private change(subject: TradingSubject, at: number, next: (used: number) => number): Promise<void> {
    const id = idOf(subject, at);
    return this.queue.run(id, () => this.write(id, at, next));
  }

  private async write(id: string, at: number, next: (used: number) => number): Promise<void> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const doc = await this.store.get<VolumeRecord>(DAILY_VOLUME_COLLECTION.name, id);
      const micros = next(microsOf(doc?.data));
      try {
        await this.store.put(DAILY_VOLUME_COLLECTION.name, id, {
          data: { micros },
          expectedVersion: doc?.version ?? 0,
          expiresAt: at + TWO_DAYS_MS,
        });
        return;
      } catch (error) {
        if (!isAppError(error) || error.code !== 'VERSION_CONFLICT') throw error;
        await sleep(Math.random() * Math.min(20, 2 ** attempt));
      }
    }
    throw new AppError('RESOURCE_CONFLICT', 'Concurrent orders on this account: daily volume not updated, retry', { retryable: true });
  }
}

/** Today's volume after taking `usd`; refuses past `limitUsd`. */
function reserving(usd: number, limitUsd: number): (used: number) => number {
  const amount = toMicros(usd);
  return (used) => {
    if (used + amount > toMicros(limitUsd)) {
      throw new AppError(
        'RISK_LIMIT_EXCEEDED',
        `Order would exceed the daily volume limit of $${formatUsd(limitUsd)} (risk policy; $${formatUsd(fromMicros(used))} used today)`,
      );
    }
    return used + amount;
  };
}

function microsOf(record: VolumeRecord | undefined): number {
  return record?.micros ?? toMicros(record?.usd ?? 0);
}

function idOf(subject: TradingSubject, at: number): string {
  return `${subjectKey(subject)}|${new Date(at).toISOString().slice(0, 10)}`;
}
