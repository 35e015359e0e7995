/**
 * Scheduler port: one-off delayed jobs and repeating schedules that, when due, hand
 * an event for an actor to the runtime. Delivery is at least once: handlers must be
 * idempotent (e.g. derive ids from `dueAt`). Every adapter passes
 * `test/contracts/scheduler.contract.ts`.
 */

/** Where a due job delivers its event: an actor of a machine type. */
export interface ActorAddress {
  type: string;
  id: string;
}

/** A serialisable actor event: `type` plus JSON fields. */
export interface ActorEvent {
  type: string;
  [key: string]: unknown;
}

export interface OneOffJob {
  /** Unique; scheduling the same id again replaces the pending job. */
  jobId: string;
  address: ActorAddress;
  event: ActorEvent;
  /** Epoch ms when it is due. */
  runAt: number;
}

export interface RepeatingSchedule {
  /** Unique; scheduling the same id again updates the schedule. */
  scheduleId: string;
  address: ActorAddress;
  event: ActorEvent;
  /** Exactly one of `everyMs` or `cron` (5- or 6-field expression, UTC). */
  everyMs?: number;
  cron?: string;
  /** Epoch ms; first run is at or after it. */
  startAt?: number;
  /** Epoch ms; no run after it. */
  endAt?: number;
}

/** What the handler receives when a job or schedule is due. */
export interface DueJob {
  /** The job id, or the schedule id for a repeating schedule. */
  id: string;
  kind: 'once' | 'repeat';
  address: ActorAddress;
  event: ActorEvent;
  /** Epoch ms the run was due (not when it was delivered). */
  dueAt: number;
}

export type DueJobHandler = (job: DueJob) => Promise<void>;

export interface SchedulerPort {
  /** Starts delivering due jobs to `handler`. Jobs due while stopped are delivered then. */
  start(handler: DueJobHandler): Promise<void>;
  scheduleOnce(job: OneOffJob): Promise<void>;
  /** Creates or updates a repeating schedule. */
  scheduleRepeating(schedule: RepeatingSchedule): Promise<void>;
  /** Removes a pending one-off job; no error when absent. */
  cancel(jobId: string): Promise<void>;
  /** Removes a repeating schedule; no error when absent. */
  removeSchedule(scheduleId: string): Promise<void>;
  /** The next due time of a schedule, or null when absent or finished. */
  nextRun(scheduleId: string): Promise<number | null>;
  ping(): Promise<void>;
  /** Stops taking jobs, waits for running handlers, releases connections. */
  close(): Promise<void>;
}
