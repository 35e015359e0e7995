import { randomUUID } from 'node:crypto';
import { AppError, isAppError } from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { DueJob, DueJobHandler, OneOffJob, RepeatingSchedule, SchedulerPort } from '../../kernel/ports/scheduler.port.js';
import type { StoredDocument, StorePort } from '../../kernel/ports/store.port.js';
import { updateRecord } from '../../kernel/shared/record-update.js';
import {
  DEFAULT_SCHEDULER_COLLECTION,
  WAKE_INDEX,
  recordId,
  schedulerCollections,
  toDueJob,
  wakeAt,
  type JobClaim,
  type JobRecord,
} from './job-record.model.js';
import { claimedRecord, oneOffRecord, repeatingRecord, settledRecord, type DeliveryOutcome } from './job-record.transitions.js';
import {
  consoleSchedulerLogger,
  nextDueAfter,
  validateOneOff,
  validateRepeating,
  type DeliveryErrorCallback,
  type SchedulerLogger,
} from './schedule-timing.helpers.js';

export { SCHEDULER_COLLECTIONS } from './job-record.model.js';

/** See `minScanIntervalMs`: well under the lag a due run may take, and ~8 DCA ticks a scan at 10,000 one-minute strategies. */
const DEFAULT_MIN_SCAN_INTERVAL_MS = 50;
/**
 * See `batchSize`. A DCA tick is in flight for a few group commits (~0.1-0.3 s on a loaded
 * machine), so 32 slots capped the process near 32 / 0.2 s = 160 ticks a second whatever its
 * CPU, under the 833 a second of 50,000 one-minute strategies; 256 leave room for that rate at
 * a second of latency, and the runs taken together share their commits.
 */
const DEFAULT_BATCH_SIZE = 256;

export interface InProcessSchedulerOptions {
  store: StorePort;
  clock: ClockPort;
  /** Collection of pending runs; the scheduler declares it to the store itself on start. */
  collection?: string;
  /** How long a claim on a run lasts; a handler running longer may be delivered twice. */
  leaseMs?: number;
  /** Longest sleep between scans, so runs scheduled by other processes are found. */
  pollIntervalMs?: number;
  /** Most deliveries in flight in this process, and the page size of a scan. */
  batchSize?: number;
  /**
   * Least time from a scan that delivered runs to the next scan (default 50 ms): runs falling
   * due meanwhile are claimed and delivered together, so their writes share the store's
   * commits (one commit and one flush for several ticks). A run due after a quiet spell is
   * delivered at once; a busy scheduler delivers up to this much later than it would.
   */
  minScanIntervalMs?: number;
  /** Deliveries of one run before it is dropped. */
  maxAttempts?: number;
  /** First retry delay; doubles per failure. */
  backoffMs?: number;
  onError?: DeliveryErrorCallback;
  logger?: SchedulerLogger;
}

/**
 * A scheduler whose due times live in the store, so it needs no extra infrastructure
 * and survives restarts: runs due while no process was up are delivered at start.
 * Processes sharing a store claim each run with a CAS write (a lease) before delivering
 * it, so a run is delivered once normally and again only if its process dies mid-delivery.
 * Missed runs of a schedule collapse into one delivery with the first missed `dueAt`
 * (see `schedule-timing.helpers.ts`).
 */
export class InProcessScheduler implements SchedulerPort {
  private readonly store: StorePort;
  private readonly clock: ClockPort;
  private readonly collection: string;
  private readonly leaseMs: number;
  private readonly pollIntervalMs: number;
  private readonly batchSize: number;
  private readonly minScanIntervalMs: number;
  private readonly maxAttempts: number;
  private readonly backoffMs: number;
  private readonly onError: DeliveryErrorCallback | undefined;
  private readonly logger: SchedulerLogger;
  private handler: DueJobHandler | undefined;
  private closed = false;
  private initialised: Promise<void> | undefined;
  private timer: { at: number; cancel: () => void } | undefined;
  private scanning: Promise<void> | undefined;
  private rescan = false;
  /** When the last scan that delivered a run started (clock time): the next waits `minScanIntervalMs` after it. */
  private lastDeliveringScanAt = Number.NEGATIVE_INFINITY;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(options: InProcessSchedulerOptions) {
    this.store = options.store;
    this.clock = options.clock;
    this.collection = options.collection ?? DEFAULT_SCHEDULER_COLLECTION;
    this.leaseMs = options.leaseMs ?? 60_000;
    this.pollIntervalMs = options.pollIntervalMs ?? 5_000;
    this.batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
    this.minScanIntervalMs = options.minScanIntervalMs ?? DEFAULT_MIN_SCAN_INTERVAL_MS;
    this.maxAttempts = options.maxAttempts ?? 5;
    this.backoffMs = options.backoffMs ?? 1_000;
    this.onError = options.onError;
    this.logger = options.logger ?? consoleSchedulerLogger;
  }

  async start(handler: DueJobHandler): Promise<void> {
    if (this.closed) throw new AppError('SHUTTING_DOWN', 'The scheduler is closed');
    if (this.handler) throw AppError.internal('The scheduler is already started');
    await this.init();
    this.handler = handler;
    this.kick();
  }

  async scheduleOnce(job: OneOffJob): Promise<void> {
    validateOneOff(job);
    await this.update(recordId('once', job.jobId), () => oneOffRecord(job));
  }

  async scheduleRepeating(schedule: RepeatingSchedule): Promise<void> {
    validateRepeating(schedule);
    const now = this.clock.now();
    await this.update(recordId('repeat', schedule.scheduleId), (previous) => repeatingRecord(previous, schedule, now));
  }

  async cancel(jobId: string): Promise<void> {
    await this.update(recordId('once', jobId), (current) => (current ? null : undefined));
  }

  async removeSchedule(scheduleId: string): Promise<void> {
    await this.update(recordId('repeat', scheduleId), (current) => (current ? null : undefined));
  }

  async nextRun(scheduleId: string): Promise<number | null> {
    await this.init();
    const doc = await this.store.get<JobRecord>(this.collection, recordId('repeat', scheduleId));
    if (!doc) return null;
    const record = doc.data;
    // While the pending run is being delivered, the next one is the run after it.
    if (record.claim && record.claim.dueAt === record.dueAt) {
      return nextDueAfter(record, record.dueAt, record.claim.at ?? this.clock.now());
    }
    return record.dueAt;
  }

  async ping(): Promise<void> {
    await this.store.ping();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.timer?.cancel();
    this.timer = undefined;
    await this.scanning;
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private init(): Promise<void> {
    // init is additive and idempotent, so calling it besides the composition root is safe.
    this.initialised ??= this.store.init(schedulerCollections(this.collection)).catch((error: unknown) => {
      this.initialised = undefined;
      throw error;
    });
    return this.initialised;
  }

  /** Runs one scan now, or right after the one under way. */
  private kick(): void {
    if (!this.handler || this.closed) return;
    if (this.scanning) {
      this.rescan = true;
      return;
    }
    this.scanning = this.scan().finally(() => {
      this.scanning = undefined;
      if (this.rescan) {
        this.rescan = false;
        this.kick();
      }
    });
  }

  private async scan(): Promise<void> {
    const now = this.clock.now();
    try {
      for (let round = 0; round < 10 && !this.closed; round++) {
        const free = this.batchSize - this.inFlight.size;
        if (free <= 0) break;
        const page = await this.store.find<JobRecord>(this.collection, { index: WAKE_INDEX, lte: now }, { limit: free });
        if (this.closed) break;
        // Claimed together: each claim is a durable write, and concurrent writes share one
        // commit, so a page costs one commit instead of one per due run (a backlog otherwise
        // drains at 1 / commit time).
        const claims = await Promise.allSettled(page.items.map((doc) => this.claim(doc, now)));
        let lost = 0;
        let failure: unknown;
        page.items.forEach((doc, i) => {
          const claim = claims[i]!;
          if (claim.status === 'rejected') failure ??= claim.reason;
          if (claim.status === 'fulfilled' && claim.value && !this.closed) {
            this.lastDeliveringScanAt = now;
            this.deliver(doc.id, claim.value);
          } else lost++;
        });
        // Runs claimed next to a failed claim are delivered first; the failure then ends this scan.
        if (failure !== undefined) throw failure;
        // Scan again only when more may be due: a full page, or records that changed under us.
        if (page.items.length < free && lost === 0) break;
      }
      const next = await this.store.find<JobRecord>(this.collection, { index: WAKE_INDEX, gte: 0 }, { limit: 1 });
      const earliest = next.items[0]?.indexes[WAKE_INDEX];
      // When every slot is busy, the deliveries' completions trigger the next scan.
      if (typeof earliest === 'number' && (earliest > now || this.inFlight.size < this.batchSize)) {
        this.wakeBy(Math.max(earliest, now + 1));
      }
    } catch (error) {
      this.logger.error({ err: error }, 'Scheduler scan failed; retrying at the next poll');
    } finally {
      this.wakeBy(now + this.pollIntervalMs);
    }
  }

  /**
   * Arms the timer for `at` (but not sooner than `minScanIntervalMs` after the last scan that delivered)
   * unless it already fires earlier; never sleeps past a poll.
   */
  private wakeBy(at: number): void {
    if (!this.handler || this.closed) return;
    const now = this.clock.now();
    // A run already due goes at once (the wait is for runs still to come, to gather them).
    const gathered = at > now ? Math.max(at, this.lastDeliveringScanAt + this.minScanIntervalMs) : at;
    const when = Math.min(gathered, now + this.pollIntervalMs);
    if (this.timer && this.timer.at <= when) return;
    this.timer?.cancel();
    const timer = {
      at: when,
      cancel: this.clock.setTimer(() => {
        if (this.timer === timer) this.timer = undefined;
        this.kick();
      }, when - now),
    };
    this.timer = timer;
  }

  private async claim(
    doc: StoredDocument<JobRecord>,
    now: number,
  ): Promise<{ record: JobRecord; claim: JobClaim; version: number } | null> {
    const record = doc.data;
    if (wakeAt(record) > now) return null;
    // A run taken over after an expired lease keeps its first claim time: the runs that fell
    // due since are not collapsed into a re-delivery the first one may already have handled.
    const claim: JobClaim = { token: randomUUID(), until: now + this.leaseMs, dueAt: record.dueAt, at: record.claim?.at ?? now };
    const claimed = claimedRecord(record, claim);
    try {
      const written = await this.store.put(this.collection, doc.id, {
        data: claimed,
        expectedVersion: doc.version,
        indexes: { [WAKE_INDEX]: claim.until },
      });
      return { record: claimed, claim, version: written.version };
    } catch (error) {
      if (isConflict(error)) return null;
      throw error;
    }
  }

  private deliver(docId: string, claimed: { record: JobRecord; claim: JobClaim; version: number }): void {
    const { record, claim } = claimed;
    const job = toDueJob(record, claim.dueAt);
    const attempt = record.attempts + 1;
    const run = (async () => {
      let outcome: DeliveryOutcome = 'done';
      if (record.attempts >= this.maxAttempts) {
        outcome = 'drop';
        const error = new Error('Lease expired too often: the delivering process died or overran leaseMs');
        this.report(error, job, attempt, false);
      } else {
        try {
          await this.handler!(job);
        } catch (error) {
          outcome = attempt < this.maxAttempts ? 'retry' : 'drop';
          this.report(error, job, attempt, outcome === 'retry');
        }
      }
      await this.settle(docId, claimed, outcome, attempt);
    })().catch((error: unknown) => {
      const message = 'Settling a delivery failed; it is delivered again when its lease expires';
      this.logger.error({ err: error, jobId: job.id }, message);
    });
    this.inFlight.add(run);
    void run.finally(() => {
      // Runs left for lack of a slot are taken by the next scan once one frees (the scan
      // arms no timer while every slot is busy); otherwise the settle armed the next wake.
      const wasFull = this.inFlight.size >= this.batchSize;
      this.inFlight.delete(run);
      if (wasFull) this.wakeBy(this.clock.now());
    });
  }

  /**
   * Records the outcome of a delivery, unless the record was replaced or removed meanwhile.
   * Written first over the record as this process claimed it, without reading it again (a
   * CAS on the claim's version: nothing else wrote it in the usual case); read and decided
   * again only when that write finds the record changed.
   */
  private async settle(
    docId: string,
    claimed: { record: JobRecord; claim: JobClaim; version: number },
    outcome: DeliveryOutcome,
    attempt: number,
  ): Promise<void> {
    const now = this.clock.now();
    const change = (current: JobRecord | undefined) => settledRecord(current, claimed.claim, outcome, attempt, now, this.backoffMs);
    const next = change(claimed.record);
    try {
      if (next === null) {
        await this.store.delete(this.collection, docId, claimed.version);
        return;
      }
      if (next !== undefined) {
        await this.store.put(this.collection, docId, {
          data: next,
          expectedVersion: claimed.version,
          indexes: { [WAKE_INDEX]: wakeAt(next) },
        });
        this.wakeBy(wakeAt(next));
        return;
      }
    } catch (error) {
      if (!isConflict(error)) throw error;
    }
    await this.update(docId, change);
  }

  /**
   * CAS read-modify-write (`updateRecord`: retried on conflicts with backoff); `change`
   * returns null to delete, undefined to leave.
   */
  private async update(docId: string, change: (current: JobRecord | undefined) => JobRecord | null | undefined): Promise<void> {
    await this.init();
    const { doc, changed } = await updateRecord<JobRecord>(this.store, { collection: this.collection, id: docId }, (current) => {
      const next = change(current?.data);
      if (next === undefined) return null;
      if (next === null) return { delete: true };
      return { data: next, indexes: { [WAKE_INDEX]: wakeAt(next) } };
    });
    if (changed && doc) this.wakeBy(wakeAt(doc.data));
  }

  private report(error: unknown, job: DueJob, attempt: number, willRetry: boolean): void {
    // The actor and event too: a job id alone (`dca:<id>`) does not say what failed to happen to what.
    const fields = { err: error, jobId: job.id, kind: job.kind, address: job.address, event: job.event.type, dueAt: job.dueAt, attempt };
    if (willRetry) this.logger.warn(fields, 'Scheduled delivery failed; retrying with backoff');
    else this.logger.error(fields, 'Scheduled delivery failed too often; dropping this run');
    try {
      this.onError?.(error, job, { attempt, willRetry });
    } catch {
      // A broken callback must not stall the scheduler.
    }
  }
}

function isConflict(error: unknown): boolean {
  return isAppError(error) && error.code === 'VERSION_CONFLICT';
}
