import type { OneOffJob, RepeatingSchedule } from '../../kernel/ports/scheduler.port.js';
import { compact, type JobClaim, type JobRecord } from './job-record.model.js';
import { firstDueAt, nextDueAfter, retryDelayMs } from './schedule-timing.helpers.js';

/**
 * The pure state changes of a scheduler record; the adapter writes each result with a
 * CAS put (or deletes on null), so concurrent processes apply them one at a time.
 */

export type DeliveryOutcome = 'done' | 'retry' | 'drop';

/** A fresh record without a claim: a delivery of the replaced one in flight leaves it alone. */
export function oneOffRecord(job: OneOffJob): JobRecord {
  return { kind: 'once', id: job.jobId, address: job.address, event: job.event, dueAt: job.runAt, attempts: 0 };
}

/** The record for a created or updated schedule; null when it has no run left. */
export function repeatingRecord(previous: JobRecord | undefined, schedule: RepeatingSchedule, now: number): JobRecord | null {
  const { scheduleId, address, event, everyMs, cron, startAt, endAt } = schedule;
  const timing = compact({ everyMs, cron, startAt, endAt });
  // An unchanged grid keeps its pending run (and any claim on it), so declaring the same
  // schedule at every boot neither skips nor repeats a run.
  const kept =
    previous?.kind === 'repeat' && previous.everyMs === everyMs && previous.cron === cron && previous.startAt === startAt
      ? previous
      : undefined;
  const dueAt = kept ? kept.dueAt : firstDueAt(timing, now);
  if (dueAt === null || (endAt !== undefined && dueAt > endAt)) return null;
  return compact({
    kind: 'repeat' as const,
    id: scheduleId,
    address,
    event,
    ...timing,
    dueAt,
    attempts: kept?.attempts ?? 0,
    retryAt: kept?.retryAt,
    claim: previous?.claim,
  });
}

/** Takes the pending run for one delivery attempt. */
export function claimedRecord(record: JobRecord, claim: JobClaim): JobRecord {
  // An expired lease means the delivering process died (or overran): count it as a
  // failed attempt, so a run that kills its process is eventually dropped.
  const attempts = record.claim ? record.attempts + 1 : record.attempts;
  return compact({ ...record, attempts, retryAt: undefined, claim });
}

/**
 * The record after a delivery: undefined leaves it alone (replaced, removed or taken over
 * meanwhile), null deletes it (a one-off done or dropped, a schedule finished).
 */
export function settledRecord(
  current: JobRecord | undefined,
  claim: JobClaim,
  outcome: DeliveryOutcome,
  attempt: number,
  now: number,
  backoffMs: number,
): JobRecord | null | undefined {
  if (current?.claim?.token !== claim.token) return undefined;
  const released = { ...current, claim: undefined, retryAt: undefined };
  // The schedule was re-timed during the delivery: its new pending run stands.
  if (current.dueAt !== claim.dueAt) return compact(released);
  if (outcome === 'retry') {
    return compact({ ...released, attempts: attempt, retryAt: now + retryDelayMs(backoffMs, attempt) });
  }
  if (current.kind === 'once') return null;
  // From the claim, not from now: a run that fell due while this delivery was running is
  // not skipped (a slow tick must not cost the next one); it is delivered right after.
  const next = nextDueAfter(current, claim.dueAt, claim.at ?? now);
  return next === null ? null : compact({ ...released, dueAt: next, attempts: 0 });
}
