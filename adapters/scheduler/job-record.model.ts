import type { ActorAddress, ActorEvent, DueJob } from '../../kernel/ports/scheduler.port.js';
import type { CollectionSpec } from '../../kernel/ports/store.port.js';
import type { ScheduleTiming } from './schedule-timing.helpers.js';

export const DEFAULT_SCHEDULER_COLLECTION = 'scheduler.jobs';

/**
 * The one index of the scheduler collection: when a process should next look at a
 * record — its due time, its retry time after a failure, or its lease expiry while a
 * process delivers it (so a run whose process died is found again by the same query).
 */
export const WAKE_INDEX = 'wakeAt';

/** The collections the in-process scheduler needs; the composition root passes them to `store.init`. */
export function schedulerCollections(collection = DEFAULT_SCHEDULER_COLLECTION): CollectionSpec[] {
  return [{ name: collection, indexes: [WAKE_INDEX] }];
}

export const SCHEDULER_COLLECTIONS: CollectionSpec[] = schedulerCollections();

/** A process's hold on one run: others skip the record until `until`. */
export interface JobClaim {
  token: string;
  until: number;
  /** The run being delivered; an update of the schedule meanwhile changes the record's `dueAt`. */
  dueAt: number;
  /**
   * When the run was claimed (absent in claims written before it was kept). Runs that fell
   * due before it were collapsed into this delivery; one that falls due after it, while the
   * delivery still runs, is the next run, delivered once as soon as this one is settled.
   */
  at?: number;
}

/** One pending one-off job or one repeating schedule, as persisted. */
export interface JobRecord extends ScheduleTiming {
  kind: 'once' | 'repeat';
  id: string;
  address: ActorAddress;
  event: ActorEvent;
  /** Due time of the pending run. */
  dueAt: number;
  /** Failed attempts of the pending run (a lease that expired counts as one). */
  attempts: number;
  /** Set after a failure: the pending run is retried at this time. */
  retryAt?: number;
  claim?: JobClaim;
}

/** One-off jobs and schedules have separate id spaces in the port. */
export function recordId(kind: JobRecord['kind'], id: string): string {
  return `${kind}:${id}`;
}

export function wakeAt(record: JobRecord): number {
  return record.claim ? record.claim.until : (record.retryAt ?? record.dueAt);
}

export function toDueJob(record: JobRecord, dueAt: number): DueJob {
  return { id: record.id, kind: record.kind, address: record.address, event: record.event, dueAt };
}

/** Drops undefined fields so every store serialises the record the same way. */
export function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
