import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../kernel/errors/app-error.js';
import type { ActorAddress, DueJob, RepeatingSchedule, SchedulerPort } from '../../kernel/ports/scheduler.port.js';

export interface SchedulerHarness {
  scheduler: SchedulerPort;
  /** Lets `ms` of time pass: a manual clock advances, a real one is waited for. */
  advance(ms: number): Promise<void>;
  now(): number;
  /** Closes the scheduler (it may already be closed) and removes its data. */
  cleanup(): Promise<void>;
}

/** A handler call as the test saw it: the job plus the time it arrived. */
interface Call extends DueJob {
  at: number;
}

/**
 * The behaviour every SchedulerPort adapter must have; each adapter's test calls it once.
 * Intervals are a few hundred ms so a real-time adapter finishes in seconds; the adapter
 * must retry a failed delivery within a second (tests configure a short backoff).
 */
export function schedulerContract(name: string, factory: () => Promise<SchedulerHarness>): void {
  describe(`SchedulerPort contract: ${name}`, () => {
    const U = 300;
    const STEP = 20;
    const address: ActorAddress = { type: 'dca', id: 'agent-1' };
    let h: SchedulerHarness;
    let calls: Call[];

    beforeEach(async () => {
      h = await factory();
      calls = [];
    });
    afterEach(async () => {
      await h.cleanup();
    });

    /** Starts the scheduler; `onDue` may throw to fail a delivery. */
    const start = (onDue?: (job: DueJob, call: number) => Promise<void> | void) =>
      h.scheduler.start(async (job) => {
        calls.push({ ...job, at: h.now() });
        await onDue?.(job, calls.length);
      });
    const waitFor = async (done: () => boolean, maxMs: number): Promise<void> => {
      for (let waited = 0; !done(); waited += STEP) {
        if (waited >= maxMs) throw new Error(`condition not met within ${maxMs} ms`);
        await h.advance(STEP);
      }
    };
    const every = (scheduleId: string, everyMs: number, extra: Partial<RepeatingSchedule> = {}) =>
      h.scheduler.scheduleRepeating({ scheduleId, address, event: { type: 'dca.tick' }, everyMs, ...extra });
    const dues = (id: string) => calls.filter((c) => c.id === id).map((c) => c.dueAt);

    it('delivers a one-off job once, not before runAt, with its address, event and dueAt', async () => {
      await start();
      const runAt = h.now() + 2 * U;
      const event = { type: 'order.timeout', orderId: 'o-1', attempt: 2 };
      await h.scheduler.scheduleOnce({ jobId: 'timeout:o-1', address, event, runAt });
      await h.advance(U);
      expect(calls).toHaveLength(0);
      await waitFor(() => calls.length > 0, 4 * U);
      await h.advance(2 * U);
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatchObject({ id: 'timeout:o-1', kind: 'once', address, event, dueAt: runAt });
      expect(calls[0]!.at).toBeGreaterThanOrEqual(runAt);
    });

    it('delivers a job that fell due while it was not started, once started', async () => {
      const runAt = h.now() + U;
      await h.scheduler.scheduleOnce({ jobId: 'j', address, event: { type: 'x' }, runAt });
      await h.advance(2 * U);
      await start();
      await waitFor(() => calls.length > 0, 4 * U);
      expect(calls.map((c) => [c.id, c.dueAt])).toEqual([['j', runAt]]);
    });

    it('cancel prevents delivery; cancelling an absent job is fine', async () => {
      await start();
      await h.scheduler.scheduleOnce({ jobId: 'j', address, event: { type: 'x' }, runAt: h.now() + 2 * U });
      await h.scheduler.cancel('j');
      await h.scheduler.cancel('never-scheduled');
      await h.advance(4 * U);
      expect(calls).toHaveLength(0);
    });

    it('scheduling the same jobId again replaces the pending job, later or earlier', async () => {
      await start();
      const t0 = h.now();
      await h.scheduler.scheduleOnce({ jobId: 'j', address, event: { type: 'a' }, runAt: t0 + 2 * U });
      await h.scheduler.scheduleOnce({ jobId: 'j', address, event: { type: 'b' }, runAt: t0 + 4 * U });
      await h.advance(3 * U);
      expect(calls).toHaveLength(0);
      await waitFor(() => calls.length > 0, 3 * U);
      await h.scheduler.scheduleOnce({ jobId: 'k', address, event: { type: 'c' }, runAt: h.now() + 10 * U });
      await h.scheduler.scheduleOnce({ jobId: 'k', address, event: { type: 'd' }, runAt: h.now() + U });
      await waitFor(() => calls.length > 1, 4 * U);
      await h.advance(2 * U);
      expect(calls.map((c) => [c.id, c.event.type])).toEqual([
        ['j', 'b'],
        ['k', 'd'],
      ]);
      expect(calls[0]!.dueAt).toBe(t0 + 4 * U);
    });

    it('a handler can schedule its own jobId again', async () => {
      await start(async (job) => {
        if (job.event.type === 'first') {
          await h.scheduler.scheduleOnce({ jobId: job.id, address, event: { type: 'second' }, runAt: h.now() + U });
        }
      });
      await h.scheduler.scheduleOnce({ jobId: 'self', address, event: { type: 'first' }, runAt: h.now() + U });
      await waitFor(() => calls.length > 1, 6 * U);
      await h.advance(2 * U);
      expect(calls.map((c) => c.event.type)).toEqual(['first', 'second']);
    });

    it('repeats everyMs on a fixed grid, one interval after creation, each run once', async () => {
      await start();
      const before = h.now();
      await every('s', U);
      const after = h.now();
      await waitFor(() => calls.length >= 3, 6 * U);
      const runs = dues('s');
      expect(runs[0]).toBeGreaterThanOrEqual(before + U);
      expect(runs[0]).toBeLessThanOrEqual(after + U);
      expect(runs).toEqual(runs.map((_, i) => runs[0]! + i * U));
      // No burst and no duplicate: never more runs than grid points that have passed.
      expect(runs.length).toBeLessThanOrEqual(Math.floor((h.now() - runs[0]!) / U) + 1);
      for (const call of calls) {
        expect(call).toMatchObject({ id: 's', kind: 'repeat', address, event: { type: 'dca.tick' } });
        expect(call.at).toBeGreaterThanOrEqual(call.dueAt);
      }
    });

    it('honours startAt: the first run is at startAt, then on its grid', async () => {
      await start();
      const startAt = h.now() + Math.round(1.5 * U);
      await every('s', U, { startAt });
      expect(await h.scheduler.nextRun('s')).toBe(startAt);
      await waitFor(() => calls.length >= 2, 5 * U);
      expect(dues('s').slice(0, 2)).toEqual([startAt, startAt + U]);
    });

    it('removeSchedule stops a schedule; removing an absent one is fine', async () => {
      await start();
      await every('s', U);
      await waitFor(() => calls.length >= 1, 4 * U);
      await h.scheduler.removeSchedule('s');
      await h.scheduler.removeSchedule('never-scheduled');
      const seen = calls.length;
      await h.advance(4 * U);
      expect(calls).toHaveLength(seen);
      expect(await h.scheduler.nextRun('s')).toBeNull();
    });

    it('scheduling the same scheduleId again changes its interval', async () => {
      await start();
      await every('s', U);
      await waitFor(() => calls.length >= 1, 4 * U);
      const changedAt = h.now();
      await every('s', 3 * U);
      const seen = calls.length;
      await waitFor(() => calls.length >= seen + 2, 9 * U);
      const later = dues('s').slice(seen);
      expect(later[0]).toBeGreaterThanOrEqual(changedAt + 3 * U);
      expect(later[1]! - later[0]!).toBe(3 * U);
    });

    it('declaring an unchanged schedule again keeps its grid', async () => {
      await start();
      await every('s', U);
      await waitFor(() => calls.length >= 1, 4 * U);
      await h.advance(U / 3);
      await every('s', U);
      await waitFor(() => calls.length >= 2, 4 * U);
      const runs = dues('s');
      expect(runs[1]! - runs[0]!).toBe(U);
    });

    it('endAt stops a schedule: no run after it, and nextRun is then null', async () => {
      await start();
      const endAt = h.now() + Math.round(2.5 * U);
      await every('s', U, { endAt });
      await waitFor(() => calls.length >= 2, 5 * U);
      await h.advance(3 * U);
      expect(calls).toHaveLength(2);
      expect(dues('s').every((due) => due <= endAt)).toBe(true);
      expect(await h.scheduler.nextRun('s')).toBeNull();
    });

    it('nextRun reports the next due time of interval and cron schedules', async () => {
      const day = 86_400_000;
      const t0 = h.now();
      expect(await h.scheduler.nextRun('absent')).toBeNull();
      await every('later', U, { startAt: t0 + 20 * U });
      expect(await h.scheduler.nextRun('later')).toBe(t0 + 20 * U);
      await every('soon', U);
      const soon = await h.scheduler.nextRun('soon');
      expect(soon).toBeGreaterThanOrEqual(t0 + U);
      expect(soon).toBeLessThanOrEqual(h.now() + U);
      const nightly = { scheduleId: 'nightly', address, event: { type: 'report.daily' }, cron: '0 0 * * *' };
      await h.scheduler.scheduleRepeating(nightly);
      expect(await h.scheduler.nextRun('nightly')).toBe((Math.floor(h.now() / day) + 1) * day);
      await h.scheduler.scheduleRepeating({ ...nightly, endAt: h.now() + 1 });
      expect(await h.scheduler.nextRun('nightly')).toBeNull();
    });

    it('runs a cron schedule on UTC ticks', async () => {
      await start();
      await h.scheduler.scheduleRepeating({ scheduleId: 'c', address, event: { type: 'x' }, cron: '* * * * * *' });
      await waitFor(() => calls.length >= 2, 3_000 + U);
      const [first, second] = dues('c');
      expect(first! % 1000).toBe(0);
      expect(second! - first!).toBe(1000);
    });

    it('retries a failing delivery of the same run until it succeeds', async () => {
      await start((_job, call) => {
        if (call <= 2) throw new Error('venue unavailable');
      });
      const runAt = h.now() + U;
      await h.scheduler.scheduleOnce({ jobId: 'flaky', address, event: { type: 'x' }, runAt });
      await waitFor(() => calls.length >= 3, 10 * U);
      await h.advance(4 * U);
      expect(calls.map((c) => [c.id, c.dueAt])).toEqual([
        ['flaky', runAt],
        ['flaky', runAt],
        ['flaky', runAt],
      ]);
    });

    it("retries a failing run of a schedule with that run's dueAt", async () => {
      await start((_job, call) => {
        if (call === 1) throw new Error('venue unavailable');
      });
      await every('s', 4 * U);
      await waitFor(() => calls.length >= 2, 8 * U);
      const [failed, retried] = dues('s');
      expect(retried).toBe(failed);
      await waitFor(() => calls.length >= 3, 6 * U);
      expect(dues('s')[2]).toBe(failed! + 4 * U);
    });

    it('refuses a schedule without exactly one valid timing', async () => {
      const base = { scheduleId: 'bad', address, event: { type: 'x' } };
      for (const timing of [{}, { everyMs: U, cron: '* * * * *' }, { everyMs: 0 }, { cron: 'every day' }]) {
        const error = await h.scheduler.scheduleRepeating({ ...base, ...timing }).catch((e: unknown) => e);
        expect(isAppError(error) && error.code).toBe('VALIDATION_ERROR');
      }
      expect(await h.scheduler.nextRun('bad')).toBeNull();
    });

    it('after close() delivers nothing more', async () => {
      await start();
      await h.scheduler.scheduleOnce({ jobId: 'j', address, event: { type: 'x' }, runAt: h.now() + 2 * U });
      await every('s', U);
      await h.scheduler.close();
      await h.advance(4 * U);
      expect(calls).toHaveLength(0);
    });

    it('answers ping', async () => {
      await expect(h.scheduler.ping()).resolves.toBeUndefined();
    });
  });
}
