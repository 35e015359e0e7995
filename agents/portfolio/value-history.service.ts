import type { Logger } from 'pino';
import { isAppError } from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { CommitWrite, StoredDocument, StorePort } from '../../kernel/ports/store.port.js';
import type { TradingSubject } from './portfolio.types.js';
import { subjectKey, subjectOfKey } from './portfolio.records.js';
import { type PriceLookup, valuePositions } from './position-valuation.js';
import type { PositionsService } from './positions.service.js';
import {
  DAY_MS,
  HOUR_MS,
  HOUR_SERIES,
  MINUTE_SERIES,
  type SampleReason,
  type SamplingRecord,
  VALUE_HISTORY,
  type ValuePeriodRecord,
  type ValuePoint,
  type ValueSeries,
  periodKey,
} from './value-history.records.js';
import { Thinning, withPoint } from './value-points.js';

/** A fill publishes a `position.updated` per leg: one reading once both are in. */
const SETTLE_MS = 1_000;
/**
 * After a change's reading, an account is read again for changes at most this much later
 * (one reading then covers every change in between): a day keeps one point a minute anyway,
 * and an account trading many times a minute (DCA at scale) must not cost a reading per fill.
 */
const CHANGE_GAP_MS = 60_000;
/** Both series take every reading (the minute's and the hour's last one are kept). */
const SERIES: readonly ValueSeries[] = [MINUTE_SERIES, HOUR_SERIES];
const MAX_ATTEMPTS = 5;
const SWEEP_PAGE = 100;
/** Period documents read at once: a busy account's day holds up to 1,440 readings, a month 744. */
const READ_PAGE = 10;
/** Accounts valued at once by the sweep: each reads its positions and asks the venue for prices. */
const SWEEP_CONCURRENCY = 4;

export interface ValueHistoryDeps {
  store: StorePort;
  clock: ClockPort;
  logger: Logger;
  positions: Pick<PositionsService, 'list'>;
  price: PriceLookup;
  /** Gap between two periodic readings of an account that holds something. */
  intervalMs: number;
  /** Days a reading is kept. */
  retentionDays: number;
  /** Whether the account's agent or bot has ended (archived, deleted, gone): its periodic readings stop. */
  ended(subject: TradingSubject): Promise<boolean>;
}

export interface HistoryRange {
  /** Epoch ms, inclusive. */
  from: number;
  /** Epoch ms, inclusive. */
  to: number;
  /** At most this many points: more are thinned to the last reading of each equal slice of their time. */
  maxPoints: number;
}

/**
 * The portfolio's value over time, kept by the service: a reading (value, cost
 * basis, realized and unrealized PnL, as the PnL totals compute them) after each balance
 * change (a fill, a faucet deposit, a withdrawal: every `position.updated`), and every
 * `intervalMs` while the account holds something (the sweep, a due job). Readings are a
 * derived record: one lost to a crash between a fill and its reading is made up by the next
 * periodic one, so they are written after the change, not inside its commit.
 */
export class ValueHistory {
  /**
   * Accounts with a change reading under way, by subject key: `settling` until the first
   * reading, then `cooling` for the gap, `dirty` when a change came meanwhile.
   */
  private readonly accounts = new Map<string, { phase: 'settling' | 'cooling'; dirty: boolean; cancel: () => void }>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private stopped = false;

  constructor(private readonly deps: ValueHistoryDeps) {}

  /**
   * Told of a balance change: one reading once the change settles (the legs of a fill arrive
   * together), then at most one more per gap, taken at its end, for the changes made meanwhile.
   */
  changed(subject: TradingSubject): void {
    if (this.stopped) return;
    const key = subjectKey(subject);
    const account = this.accounts.get(key);
    if (account) {
      if (account.phase === 'cooling') account.dirty = true; // a settling reading sees this change too
      return;
    }
    const cancel = this.deps.clock.setTimer(() => this.takeChangeReading(subject), SETTLE_MS);
    this.accounts.set(key, { phase: 'settling', dirty: false, cancel });
  }

  /** The change reading, then the gap; at the gap's end, another reading if a change came meanwhile. */
  private takeChangeReading(subject: TradingSubject): void {
    const key = subjectKey(subject);
    this.track(
      this.sample(subject, 'change').catch((error: unknown) =>
        this.deps.logger.error({ err: error, subject: key }, 'portfolio value reading failed'),
      ),
    );
    const account: { phase: 'cooling'; dirty: boolean; cancel: () => void } = { phase: 'cooling', dirty: false, cancel: () => undefined };
    account.cancel = this.deps.clock.setTimer(() => {
      this.accounts.delete(key);
      if (account.dirty && !this.stopped) this.takeChangeReading(subject);
    }, CHANGE_GAP_MS);
    this.accounts.set(key, account);
  }

  /**
   * Takes a reading now and keeps it. A periodic reading is taken only while it is still due
   * (another process may have just taken it) and only of an account that holds something and
   * whose agent or bot has not ended; an account left empty stops being sampled until its next
   * change, an ended one for good.
   * Resolves with the point kept, or null when none was.
   */
  async sample(subject: TradingSubject, reason: SampleReason): Promise<ValuePoint | null> {
    const key = subjectKey(subject);
    if (reason === 'periodic') {
      // Before any pricing: another process may have just taken it, or the agent ended.
      const sampling = await this.deps.store.get<SamplingRecord>(VALUE_HISTORY.sampling, key);
      if (!sampling || sampling.data.nextSampleAt > this.deps.clock.now()) return null;
      if (await this.deps.ended(subject)) {
        await this.stopSampling(key);
        return null;
      }
    }
    const records = await this.deps.positions.list(subject);
    const holds = records.some((record) => record.amountBase !== '0');
    if (reason === 'periodic' && !holds) {
      await this.stopSampling(key);
      return null;
    }
    const { totals } = await valuePositions(records, this.deps.price);
    const at = this.deps.clock.now();
    const point: ValuePoint = { at, ...totals, reason };
    const ids = SERIES.map((series) => periodKey(key, series.period(at)));
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const [sampling, periods] = await Promise.all([
        this.deps.store.get<SamplingRecord>(VALUE_HISTORY.sampling, key),
        Promise.all(SERIES.map((series, i) => this.deps.store.get<ValuePeriodRecord>(series.collection, ids[i] as string))),
      ]);
      if (reason === 'periodic' && (!sampling || sampling.data.nextSampleAt > at)) return null;
      const writes: CommitWrite[] = [];
      SERIES.forEach((series, i) => {
        const doc = periods[i] ?? null;
        const points = withPoint(doc?.data.points ?? [], point, series.bucketMs);
        if (points === null) return; // a later reading of this bucket is kept already
        const id = ids[i] as string;
        writes.push({
          op: 'put',
          collection: series.collection,
          id,
          input: {
            data: { subject: key, period: series.period(at), points } satisfies ValuePeriodRecord,
            expectedVersion: doc?.version ?? 0,
            indexes: { [VALUE_HISTORY.periodIndex]: id },
            expiresAt: series.expiresAt(at, this.deps.retentionDays),
          },
        });
      });
      if (writes.length === 0) return null;
      writes.push(...this.samplingWrites(key, sampling, holds ? at + this.deps.intervalMs : null));
      try {
        await this.deps.store.commit(writes);
        return point;
      } catch (error) {
        if (isAppError(error) && error.code === 'VERSION_CONFLICT') continue; // another reading of this account: read again
        throw error;
      }
    }
    this.deps.logger.warn({ subject: key }, 'portfolio value reading dropped: the account was written concurrently');
    return null;
  }

  /**
   * The periodic readings (a due job, every minute): each account whose reading is due. One
   * account's failure is logged and left due for the next sweep, never the whole sweep's.
   */
  async sweep(): Promise<{ sampled: number; failed: number }> {
    const now = this.deps.clock.now();
    let sampled = 0;
    let failed = 0;
    let cursor: string | undefined;
    do {
      const page = await this.deps.store.find<SamplingRecord>(
        VALUE_HISTORY.sampling,
        { index: VALUE_HISTORY.dueIndex, lte: now },
        { limit: SWEEP_PAGE, ...(cursor ? { cursor } : {}) },
      );
      const outcomes = await inGroups(page.items, SWEEP_CONCURRENCY, (doc) =>
        this.samplePeriodic(doc.data.subject).then(
          (point) => (point ? 'sampled' : 'skipped'),
          (error: unknown) => {
            this.deps.logger.error({ err: error, subject: doc.data.subject }, 'periodic portfolio value reading failed');
            return 'failed';
          },
        ),
      );
      sampled += outcomes.filter((outcome) => outcome === 'sampled').length;
      failed += outcomes.filter((outcome) => outcome === 'failed').length;
      cursor = page.nextCursor;
    } while (cursor);
    return { sampled, failed };
  }

  private samplePeriodic(key: string): Promise<ValuePoint | null> {
    const subject = subjectOfKey(key);
    if (!subject) return Promise.reject(new Error(`Not a trading subject key: ${key}`));
    return this.sample(subject, 'periodic');
  }

  /**
   * The readings of `range`, oldest first, thinned to `maxPoints` as they are read (never more
   * than `maxPoints + 1` held), never older than the retention. A range whose slices are an
   * hour or longer reads the hourly series (a month document per month: a year is twelve or
   * thirteen reads); when that series holds fewer readings than asked for, the minute series
   * from the hour of its first reading says more at little cost. A shorter range reads the
   * minute series.
   */
  async read(subject: TradingSubject, range: HistoryRange): Promise<ValuePoint[]> {
    const key = subjectKey(subject);
    // The hourly copy of a reading outlives its minute copy by up to a month: the retention holds for both.
    const kept = { ...range, from: Math.max(range.from, this.deps.clock.now() - this.deps.retentionDays * DAY_MS) };
    if ((kept.to - kept.from) / kept.maxPoints < HOUR_MS) return (await this.readSeries(MINUTE_SERIES, key, kept)).points();
    const hourly = await this.readSeries(HOUR_SERIES, key, kept);
    if (hourly.firstAt === undefined || hourly.seen >= kept.maxPoints) return hourly.points();
    const from = Math.max(kept.from, Math.floor(hourly.firstAt / HOUR_MS) * HOUR_MS);
    return (await this.readSeries(MINUTE_SERIES, key, { ...kept, from })).points();
  }

  private async readSeries(series: ValueSeries, key: string, range: HistoryRange): Promise<Thinning> {
    const thinning = new Thinning(range.maxPoints, range.to);
    let cursor: string | undefined;
    do {
      const page = await this.deps.store.find<ValuePeriodRecord>(
        series.collection,
        { index: VALUE_HISTORY.periodIndex, gte: periodKey(key, series.period(range.from)), lte: periodKey(key, series.period(range.to)) },
        { limit: READ_PAGE, ...(cursor ? { cursor } : {}) },
      );
      for (const period of page.items) {
        if (period.data.subject !== key) continue; // never another account's readings, whatever ids come to look like
        for (const point of period.data.points) if (point.at >= range.from && point.at <= range.to) thinning.add(point);
      }
      cursor = page.nextCursor;
    } while (cursor);
    return thinning;
  }

  /** Stops scheduling readings after changes and waits for the readings under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const account of this.accounts.values()) account.cancel();
    this.accounts.clear();
    await Promise.all([...this.inFlight]);
  }

  private samplingWrites(key: string, sampling: StoredDocument<SamplingRecord> | null, nextSampleAt: number | null): CommitWrite[] {
    if (nextSampleAt === null)
      return sampling ? [{ op: 'delete', collection: VALUE_HISTORY.sampling, id: key, expectedVersion: sampling.version }] : [];
    return [
      {
        op: 'put',
        collection: VALUE_HISTORY.sampling,
        id: key,
        input: {
          data: { subject: key, nextSampleAt } satisfies SamplingRecord,
          expectedVersion: sampling?.version ?? 0,
          indexes: { [VALUE_HISTORY.dueIndex]: nextSampleAt },
        },
      },
    ];
  }

  private async stopSampling(key: string): Promise<void> {
    const sampling = await this.deps.store.get<SamplingRecord>(VALUE_HISTORY.sampling, key);
    if (!sampling) return;
    try {
      await this.deps.store.commit(this.samplingWrites(key, sampling, null));
    } catch (error) {
      // Written meanwhile (a change's reading): that writer decided whether it is still sampled.
      if (!(isAppError(error) && error.code === 'VERSION_CONFLICT')) throw error;
    }
  }

  private track(work: Promise<unknown>): void {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }
}

/** `visit` over `items`, at most `size` at a time, outcomes in order. */
async function inGroups<T, R>(items: readonly T[], size: number, visit: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let start = 0; start < items.length; start += size) out.push(...(await Promise.all(items.slice(start, start + size).map(visit))));
  return out;
}
