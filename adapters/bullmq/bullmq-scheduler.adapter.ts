import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { Queue, Worker, type Job, type JobSchedulerJson, type RepeatOptions } from 'bullmq';
import { Redis } from 'ioredis';
import { AppError } from '../../kernel/errors/app-error.js';
import { settlesWithin } from '../../kernel/shared/settles-within.js';
import type {
  ActorAddress,
  ActorEvent,
  DueJob,
  DueJobHandler,
  OneOffJob,
  RepeatingSchedule,
  SchedulerPort,
} from '../../kernel/ports/scheduler.port.js';
import { compact } from '../scheduler/job-record.model.js';
import {
  consoleSchedulerLogger,
  firstDueAt,
  nextDueAfter,
  validateOneOff,
  validateRepeating,
  type DeliveryErrorCallback,
  type SchedulerLogger,
  type ScheduleTiming,
} from '../scheduler/schedule-timing.helpers.js';

export interface BullmqSchedulerOptions {
  redisUrl: string;
  queueName: string;
  /** Key prefix of the queue (BullMQ's default is `bull`). */
  prefix?: string;
  /** Jobs a worker delivers at once. */
  concurrency?: number;
  logger?: SchedulerLogger;
  /** Deliveries of one run before it is dropped. */
  attempts?: number;
  /** First retry delay; doubles per failure. */
  backoffMs?: number;
  onError?: DeliveryErrorCallback;
}

interface OnceData {
  kind: 'once';
  jobId: string;
  address: ActorAddress;
  event: ActorEvent;
  runAt: number;
}

interface RepeatData extends ScheduleTiming {
  kind: 'repeat';
  scheduleId: string;
  address: ActorAddress;
  event: ActorEvent;
}

type JobData = OnceData | RepeatData;

/** Deletes a hash field only while it still names the given BullMQ job. */
const RELEASE_ONCE = `
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0`;

const LOCK_DURATION_MS = 10_000;
const STALLED_INTERVAL_MS = 5_000;

/**
 * A scheduler on BullMQ: one-off jobs are delayed jobs, repeating schedules are job
 * schedulers; BullMQ's locks deliver each run once across workers and retry failures.
 * It owns its Redis connections. Timing follows `schedule-timing.helpers.ts`, so it
 * agrees with the in-process scheduler (missed runs collapse into the first missed one).
 *
 * A one-off job's BullMQ id is fresh per `scheduleOnce` and a hash maps the port's job id
 * to it: a job that is running cannot be removed, so re-scheduling (or cancelling) the
 * same id from its own handler must still win, and a run whose id is no longer mapped is
 * stale and skipped.
 */
export class BullmqScheduler implements SchedulerPort {
  private readonly redis: Redis;
  private readonly queue: Queue<JobData>;
  private readonly onceKey: string;
  private readonly jobOptions: { attempts: number; backoff: { type: 'exponential'; delay: number } };
  private readonly logger: SchedulerLogger;
  private worker: Worker<JobData> | undefined;
  private closed = false;

  constructor(private readonly options: BullmqSchedulerOptions) {
    const prefix = options.prefix ?? 'bull';
    this.logger = options.logger ?? consoleSchedulerLogger;
    // BullMQ needs maxRetriesPerRequest null: its blocking commands must wait out reconnects.
    this.redis = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
    this.redis.on('error', (err: unknown) => this.logger.warn({ err }, 'Scheduler Redis connection error'));
    this.queue = new Queue<JobData>(options.queueName, { connection: this.redis, prefix });
    this.queue.on('error', (err: unknown) => this.logger.warn({ err }, 'Scheduler queue error'));
    this.onceKey = `${prefix}:${options.queueName}:scheduler:once`;
    this.jobOptions = {
      attempts: options.attempts ?? 5,
      backoff: { type: 'exponential', delay: options.backoffMs ?? 1_000 },
    };
  }

  async start(handler: DueJobHandler): Promise<void> {
    if (this.closed) throw new AppError('SHUTTING_DOWN', 'The scheduler is closed');
    if (this.worker) throw AppError.internal('The scheduler is already started');
    this.worker = new Worker<JobData>(this.options.queueName, (job) => this.process(job, handler), {
      connection: this.redis,
      prefix: this.options.prefix ?? 'bull',
      concurrency: this.options.concurrency ?? 8,
      // A process that dies holding a job (and a job scheduler's next run, which BullMQ
      // creates only after picking up the current one) is noticed within ~10 s rather than
      // BullMQ's default ~60 s. Running handlers keep renewing their lock every lockDuration/2.
      lockDuration: LOCK_DURATION_MS,
      stalledInterval: STALLED_INTERVAL_MS,
    });
    this.worker.on('error', (err: unknown) => this.logger.warn({ err }, 'Scheduler worker error'));
    await this.worker.waitUntilReady();
  }

  async scheduleOnce(job: OneOffJob): Promise<void> {
    validateOneOff(job);
    const bullId = `once-${randomUUID()}`;
    // Map first: from here on any older BullMQ job of this id is stale, even if it is running.
    const result = await this.redis.multi().hget(this.onceKey, job.jobId).hset(this.onceKey, job.jobId, bullId).exec();
    const previous = result?.[0]?.[1];
    if (typeof previous === 'string') await this.queue.remove(previous);
    const data: OnceData = { kind: 'once', jobId: job.jobId, address: job.address, event: job.event, runAt: job.runAt };
    await this.queue.add('once', data, {
      ...this.jobOptions,
      jobId: bullId,
      delay: Math.max(0, job.runAt - Date.now()),
      removeOnComplete: true,
      removeOnFail: { count: 1000 },
    });
  }

  async scheduleRepeating(schedule: RepeatingSchedule): Promise<void> {
    validateRepeating(schedule);
    const { scheduleId, address, event, everyMs, cron, startAt, endAt } = schedule;
    const data: RepeatData = compact({ kind: 'repeat', scheduleId, address, event, everyMs, cron, startAt, endAt });
    const existing = await this.queue.getJobScheduler(scheduleId);
    const previous = existing?.template?.data as RepeatData | undefined;
    // Re-declaring an unchanged schedule (e.g. at every boot) must not move its pending run.
    if (isDeepStrictEqual(previous, data)) return;
    const sameGrid = previous !== undefined && previous.everyMs === everyMs && previous.cron === cron && previous.startAt === startAt;
    const now = Date.now();
    const due = sameGrid && existing?.next != null ? existing.next : firstDueAt(data, now);
    if (due === null || (endAt !== undefined && due > endAt)) {
      await this.queue.removeJobScheduler(scheduleId);
      return;
    }
    // A new grid starts afresh; BullMQ would otherwise keep the old pending run.
    if (existing && !sameGrid) await this.queue.removeJobScheduler(scheduleId);
    const repeat =
      everyMs !== undefined ? everyOptions(everyMs, startAt, now, sameGrid ? existing : undefined) : cronOptions(cron!, startAt);
    if (endAt !== undefined) repeat.endDate = endAt;
    await this.queue.upsertJobScheduler(scheduleId, repeat, {
      name: 'repeat',
      data,
      opts: { ...this.jobOptions, removeOnComplete: true, removeOnFail: { count: 1000 } },
    });
  }

  async cancel(jobId: string): Promise<void> {
    const result = await this.redis.multi().hget(this.onceKey, jobId).hdel(this.onceKey, jobId).exec();
    const previous = result?.[0]?.[1];
    if (typeof previous === 'string') await this.queue.remove(previous);
  }

  async removeSchedule(scheduleId: string): Promise<void> {
    await this.queue.removeJobScheduler(scheduleId);
  }

  async nextRun(scheduleId: string): Promise<number | null> {
    const scheduler = await this.queue.getJobScheduler(scheduleId);
    if (!scheduler || scheduler.next == null) return null;
    const endAt = (scheduler.template?.data as RepeatData | undefined)?.endAt;
    return endAt !== undefined && scheduler.next > endAt ? null : scheduler.next;
  }

  async ping(): Promise<void> {
    // Commands queue while Redis is down (maxRetriesPerRequest null), so bound the wait.
    if (!(await settlesWithin(this.redis.ping(), 2_000))) throw new AppError('DEPENDENCY_UNAVAILABLE', 'Redis did not answer PING');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.worker?.close();
    await this.queue.close();
    // QUIT would wait in the offline queue forever while Redis is unreachable.
    if (this.redis.status === 'ready') await this.redis.quit().catch(() => this.redis.disconnect());
    else this.redis.disconnect();
  }

  private async process(job: Job<JobData>, handler: DueJobHandler): Promise<void> {
    const due = toDueJob(job);
    const data = job.data;
    if (data.kind === 'once' && (await this.redis.hget(this.onceKey, data.jobId)) !== job.id) return;
    // BullMQ creates an interval schedule's next run before checking its end date.
    const skip = data.kind === 'repeat' && data.endAt !== undefined && due.dueAt > data.endAt;
    try {
      if (!skip) await handler(due);
    } catch (error) {
      const attempt = job.attemptsMade + 1;
      const willRetry = attempt < (job.opts.attempts ?? 1);
      this.report(error, due, attempt, willRetry);
      if (!willRetry) await this.finish(job);
      throw error;
    }
    await this.finish(job);
  }

  /** Releases a one-off id, or removes a schedule that has no run left. */
  private async finish(job: Job<JobData>): Promise<void> {
    const data = job.data;
    if (data.kind === 'once') {
      await this.redis.eval(RELEASE_ONCE, 1, this.onceKey, data.jobId, job.id!);
      return;
    }
    if (data.endAt === undefined) return;
    // Judge by the current template: the schedule may have been extended meanwhile.
    const scheduler = await this.queue.getJobScheduler(data.scheduleId);
    const current = scheduler?.template?.data as RepeatData | undefined;
    if (current && nextDueAfter(current, toDueJob(job).dueAt, Date.now()) === null) {
      await this.queue.removeJobScheduler(data.scheduleId);
    }
  }

  private report(error: unknown, job: DueJob, attempt: number, willRetry: boolean): void {
    // The actor and event too: a job id alone (`dca:<id>`) does not say what failed to happen to what.
    const fields = { err: error, jobId: job.id, kind: job.kind, address: job.address, event: job.event.type, dueAt: job.dueAt, attempt };
    if (willRetry) this.logger.warn(fields, 'Scheduled delivery failed; retrying with backoff');
    else this.logger.error(fields, 'Scheduled delivery failed too often; dropping this run');
    try {
      this.options.onError?.(error, job, { attempt, willRetry });
    } catch {
      // A broken callback must not change what BullMQ does with the job.
    }
  }
}

function toDueJob(job: Job<JobData>): DueJob {
  const data = job.data;
  if (data.kind === 'once') {
    return { id: data.jobId, kind: 'once', address: data.address, event: data.event, dueAt: data.runAt };
  }
  return { id: data.scheduleId, kind: 'repeat', address: data.address, event: data.event, dueAt: schedulerRunTime(job) };
}

/**
 * BullMQ's Lua names a scheduler job `repeat:<schedulerId>:<due ms>`: the due time
 * verbatim. `job.delay` is overwritten by a retry's backoff, and `timestamp + opts.delay`
 * only equals the due time while BullMQ has not clamped a past one to delay 0.
 */
function schedulerRunTime(job: Job<JobData>): number {
  const id = job.id ?? '';
  const dueAt = Number(id.slice(id.lastIndexOf(':') + 1));
  return Number.isFinite(dueAt) && id.startsWith('repeat:') ? dueAt : job.timestamp + (job.opts.delay ?? 0);
}

/**
 * BullMQ places an interval schedule's first run at the next `k * every + offset` after
 * its own clock reading, so the grid phase (offset) puts it on our grid without racing
 * that reading; a start date further than one interval ahead is passed as is.
 */
function everyOptions(everyMs: number, startAt: number | undefined, now: number, keep: JobSchedulerJson | undefined): RepeatOptions {
  if (startAt !== undefined && startAt - now >= everyMs && !keep) return { every: everyMs, startDate: startAt };
  const anchor = startAt ?? now;
  const phase = ((anchor % everyMs) + everyMs) % everyMs;
  // BullMQ reads offset 0 as "none" (run now), so a zero phase is written as a whole interval.
  return { every: everyMs, offset: keep?.offset ?? (phase === 0 ? everyMs : phase) };
}

/** cron-parser's next tick is strictly after the start date, so step back 1 ms to include startAt. */
function cronOptions(cron: string, startAt: number | undefined): RepeatOptions {
  return { pattern: cron, tz: 'UTC', ...(startAt === undefined ? {} : { startDate: startAt - 1 }) };
}
