import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { LmdbStore } from '../../adapters/lmdb/lmdb-store.adapter.js';
import { MemoryStore } from '../support/memory-store.adapter.js';
import {
  InProcessScheduler,
  SCHEDULER_COLLECTIONS,
  type InProcessSchedulerOptions,
} from '../../adapters/scheduler/in-process-scheduler.adapter.js';
import { DEFAULT_SCHEDULER_COLLECTION, recordId } from '../../adapters/scheduler/job-record.model.js';
import type { SchedulerLogger } from '../../adapters/scheduler/schedule-timing.helpers.js';
import type { DueJob } from '../../kernel/ports/scheduler.port.js';
import { schedulerContract } from '../contracts/scheduler.contract.js';

const silent: SchedulerLogger = { warn: () => {}, error: () => {} };
const address = { type: 'dca', id: 'agent-1' };

/** Lets promise chains started by a delivery finish (the manual clock only drives timers). */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** One store and clock shared by every scheduler made, standing for several processes. */
async function world() {
  const clock = new ManualClock();
  const store = new MemoryStore(clock);
  await store.init(SCHEDULER_COLLECTIONS);
  const made: InProcessScheduler[] = [];
  const make = (options: Partial<InProcessSchedulerOptions> = {}) => {
    const scheduler = new InProcessScheduler({ store, clock, backoffMs: 50, logger: silent, ...options });
    made.push(scheduler);
    return scheduler;
  };
  const advance = async (ms: number) => {
    await clock.advance(ms);
    await settle();
  };
  return { clock, store, make, advance };
}

schedulerContract('in-process (MemoryStore + ManualClock)', async () => {
  const w = await world();
  const scheduler = w.make();
  return { scheduler, advance: w.advance, now: () => w.clock.now(), cleanup: () => scheduler.close() };
});

describe('InProcessScheduler', () => {
  it('after downtime delivers a missed one-off job once and a missed schedule once, then keeps its grid', async () => {
    const w = await world();
    const t0 = w.clock.now();
    const first = w.make();
    await first.start(async () => {});
    await first.scheduleOnce({ jobId: 'late', address, event: { type: 'order.timeout' }, runAt: t0 + 10_000 });
    await first.scheduleRepeating({ scheduleId: 'beat', address, event: { type: 'dca.tick' }, everyMs: 1_000 });
    await first.close();

    // Down for 20.5 s: ten one-second runs and the one-off fell due meanwhile.
    w.clock.jumpTo(t0 + 20_500);
    const calls: DueJob[] = [];
    const second = w.make();
    await second.start(async (job) => void calls.push(job));
    await settle();
    expect(calls.map((c) => [c.id, c.dueAt]).sort()).toEqual([
      ['beat', t0 + 1_000],
      ['late', t0 + 10_000],
    ]);
    expect(await second.nextRun('beat')).toBe(t0 + 21_000);
    await w.advance(2_000);
    expect(calls.filter((c) => c.id === 'beat').map((c) => c.dueAt)).toEqual([t0 + 1_000, t0 + 21_000, t0 + 22_000]);
    await second.close();
  });

  it('two instances on one store deliver each due run exactly once', async () => {
    const w = await world();
    const t0 = w.clock.now();
    const calls: Array<DueJob & { by: string }> = [];
    const [a, b] = [w.make(), w.make()];
    for (let i = 0; i < 20; i++) {
      await (i % 2 ? a : b).scheduleOnce({ jobId: `j${i}`, address, event: { type: 'x' }, runAt: t0 + 100 * i });
    }
    await a.scheduleRepeating({ scheduleId: 'beat', address, event: { type: 'dca.tick' }, everyMs: 250 });
    // Starting both at once makes their first scans race for the same records.
    await Promise.all([
      a.start(async (job) => void calls.push({ ...job, by: 'a' })),
      b.start(async (job) => void calls.push({ ...job, by: 'b' })),
    ]);
    for (let i = 0; i < 30; i++) await w.advance(100);
    const keys = calls.map((c) => `${c.id}@${c.dueAt}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(calls.filter((c) => c.kind === 'once')).toHaveLength(20);
    expect(calls.filter((c) => c.id === 'beat').map((c) => c.dueAt)).toEqual(Array.from({ length: 12 }, (_, i) => t0 + 250 * (i + 1)));
    await Promise.all([a.close(), b.close()]);
  });

  it('delivers again when the delivering process dies and its lease expires', async () => {
    const w = await world();
    const t0 = w.clock.now();
    const dying = w.make({ leaseMs: 10_000 });
    const started: string[] = [];
    await dying.start(async () => {
      started.push('dying');
      await new Promise(() => {}); // the process hangs (dies) mid-delivery
    });
    await dying.scheduleOnce({ jobId: 'j', address, event: { type: 'x' }, runAt: t0 + 1_000 });
    await w.advance(1_000);
    expect(started).toEqual(['dying']);
    void dying.close(); // stops its timers; never resolves, as its handler never returns

    const calls: DueJob[] = [];
    const survivor = w.make({ pollIntervalMs: 1_000 });
    await survivor.start(async (job) => void calls.push(job));
    await w.advance(5_000);
    expect(calls).toHaveLength(0);
    await w.advance(6_000);
    expect(calls.map((c) => [c.id, c.dueAt])).toEqual([['j', t0 + 1_000]]);
    await survivor.close();
  });

  it('a run taken over after an expired lease is followed by one run for the grid points that passed meanwhile', async () => {
    const w = await world();
    const t0 = w.clock.now();
    const dying = w.make({ leaseMs: 2_500 });
    await dying.start(() => new Promise(() => {})); // hangs (dies) in its first delivery
    await dying.scheduleRepeating({ scheduleId: 'beat', address, event: { type: 'dca.tick' }, everyMs: 1_000 });
    await w.advance(1_000);
    void dying.close();

    // The lease ends at t0 + 3500; t0 + 2000 and t0 + 3000 fell due while the run was held.
    const dues: number[] = [];
    // No coalescing of scans: the missed run is re-armed by the settle after the manual clock's step is done.
    const survivor = w.make({ pollIntervalMs: 1_000, minScanIntervalMs: 0 });
    await survivor.start(async (job) => void dues.push(job.dueAt));
    await w.advance(2_600);
    // The held run again (its handler may have died before acting), then one for the missed points.
    expect(dues).toEqual([t0 + 1_000, t0 + 2_000]);
    await w.advance(1_000);
    expect(dues).toEqual([t0 + 1_000, t0 + 2_000, t0 + 4_000]);
    await survivor.close();
  });

  it('drops a run after maxAttempts failures, reporting each, and the schedule goes on', async () => {
    const w = await world();
    const t0 = w.clock.now();
    const reports: Array<{ dueAt: number; attempt: number; willRetry: boolean }> = [];
    const scheduler = w.make({
      maxAttempts: 3,
      backoffMs: 100,
      onError: (_error, job, info) => reports.push({ dueAt: job.dueAt, ...info }),
    });
    await scheduler.start(async () => {
      throw new Error('always failing');
    });
    await scheduler.scheduleRepeating({ scheduleId: 's', address, event: { type: 'x' }, everyMs: 10_000 });
    await w.advance(11_000);
    expect(reports).toEqual([
      { dueAt: t0 + 10_000, attempt: 1, willRetry: true },
      { dueAt: t0 + 10_000, attempt: 2, willRetry: true },
      { dueAt: t0 + 10_000, attempt: 3, willRetry: false },
    ]);
    expect(await scheduler.nextRun('s')).toBe(t0 + 20_000);
    await w.advance(10_000);
    expect(reports.slice(3).map((r) => [r.dueAt, r.attempt])).toEqual([
      [t0 + 20_000, 1],
      [t0 + 20_000, 2],
      [t0 + 20_000, 3],
    ]);
    await scheduler.close();
  });

  it('runs falling due within minScanIntervalMs of a scan that delivered are claimed and delivered together; one after a quiet spell at once', async () => {
    const w = await world();
    const t0 = w.clock.now();
    const delivered: Array<[string, number]> = [];
    const writes: number[] = [];
    const scheduler = w.make({ minScanIntervalMs: 50 });
    const put = w.store.put.bind(w.store);
    w.store.put = ((...args: Parameters<typeof put>) => {
      writes.push(w.clock.now());
      return put(...args);
    }) as typeof put;
    await scheduler.start(async (job) => void delivered.push([job.id, w.clock.now()]));
    for (const [jobId, at] of [
      ['a', 100],
      ['b', 110],
      ['c', 120],
      ['d', 140],
      ['e', 1_000],
    ] as const) {
      await scheduler.scheduleOnce({ jobId, address, event: { type: 'x' }, runAt: t0 + at });
    }
    writes.length = 0;
    await w.advance(2_000);
    // 'a' at its due time (nothing delivered before it), then b, c and d in one scan 50 ms later, 'e' at its time.
    expect(delivered).toEqual([
      ['a', t0 + 100],
      ['b', t0 + 150],
      ['c', t0 + 150],
      ['d', t0 + 150],
      ['e', t0 + 1_000],
    ]);
    // Claimed together: their claims are written at one instant (one commit in a store that groups them).
    expect(writes.filter((at) => at === t0 + 150).length).toBeGreaterThanOrEqual(3);
    await scheduler.close();
  });

  it('settles a delivery without reading its record again, and re-reads when the record changed during it', async () => {
    const w = await world();
    const t0 = w.clock.now();
    const scheduler = w.make();
    let reads = 0;
    const get = w.store.get.bind(w.store);
    w.store.get = ((...args: Parameters<typeof get>) => {
      reads++;
      return get(...args);
    }) as typeof get;
    let retime: (() => Promise<void>) | undefined;
    const dues: number[] = [];
    await scheduler.start(async (job) => {
      dues.push(job.dueAt);
      await retime?.();
    });
    await scheduler.scheduleRepeating({ scheduleId: 'beat', address, event: { type: 'dca.tick' }, everyMs: 1_000 });
    reads = 0;
    await w.advance(1_000);
    expect(dues).toEqual([t0 + 1_000]);
    expect(reads).toBe(0); // claimed from the scan's page, settled over the claimed version
    expect(await scheduler.nextRun('beat')).toBe(t0 + 2_000);
    // Re-timed while its run is delivered: the settle's write conflicts, reads again, and the new grid stands.
    retime = async () => {
      retime = undefined;
      await scheduler.scheduleRepeating({ scheduleId: 'beat', address, event: { type: 'dca.tick' }, everyMs: 5_000 });
    };
    await w.advance(1_000);
    expect(dues).toEqual([t0 + 1_000, t0 + 2_000]);
    expect(await scheduler.nextRun('beat')).toBe(t0 + 7_000);
    await scheduler.close();
  });

  it('close() waits for a running handler', async () => {
    const w = await world();
    let release!: () => void;
    let finished = false;
    const scheduler = w.make();
    await scheduler.start(async () => {
      await new Promise<void>((resolve) => (release = resolve));
      finished = true;
    });
    await scheduler.scheduleOnce({ jobId: 'j', address, event: { type: 'x' }, runAt: w.clock.now() });
    await w.advance(0);
    let closed = false;
    const closing = scheduler.close().then(() => (closed = true));
    await settle();
    expect(closed).toBe(false);
    release();
    await closing;
    expect(finished).toBe(true);
  });

  it('a run that falls due while the previous one is still delivered comes right after it, once, and the grid goes on', async () => {
    const w = await world();
    const t0 = w.clock.now();
    const dues: number[] = [];
    let release: (() => void) | undefined;
    const scheduler = w.make();
    await scheduler.start(async (job) => {
      dues.push(job.dueAt);
      // The first delivery is slow: it runs past the next grid point.
      if (dues.length === 1) await new Promise<void>((resolve) => (release = resolve));
    });
    await scheduler.scheduleRepeating({ scheduleId: 'beat', address, event: { type: 'dca.tick' }, everyMs: 1_000 });
    await w.advance(1_000);
    expect(dues).toEqual([t0 + 1_000]);
    // t0 + 2000 and t0 + 3000 pass while it runs: one run (the first missed) follows it.
    await w.advance(2_500);
    expect(await scheduler.nextRun('beat')).toBe(t0 + 2_000);
    release!();
    await settle();
    expect(dues).toEqual([t0 + 1_000, t0 + 2_000]);
    expect(await scheduler.nextRun('beat')).toBe(t0 + 4_000);
    await w.advance(1_000);
    expect(dues).toEqual([t0 + 1_000, t0 + 2_000, t0 + 4_000]);
    await scheduler.close();
  });
});

describe('InProcessScheduler: one record under contention (two LMDB handles on one directory)', () => {
  it('30 concurrent changes of one schedule from two processes each land once; concurrent removals remove it once', async () => {
    const clock = new ManualClock();
    const dir = await mkdtemp(join(tmpdir(), 'scheduler-'));
    const handles = [
      new LmdbStore({ path: dir, clock, sweepIntervalMs: 3_600_000 }),
      new LmdbStore({ path: dir, clock, sweepIntervalMs: 3_600_000 }),
    ];
    const schedulers = handles.map((store) => new InProcessScheduler({ store, clock, logger: silent }));
    try {
      for (const store of handles) await store.init(SCHEDULER_COLLECTIONS);
      const everyMs = Array.from({ length: 30 }, (_, i) => 60_000 + 1_000 * i);
      await Promise.all(
        everyMs.map((ms, i) =>
          schedulers[i % 2]!.scheduleRepeating({ scheduleId: 'beat', address, event: { type: 'dca.tick' }, everyMs: ms }),
        ),
      );
      const stored = await handles[0]!.get<{ everyMs: number }>(DEFAULT_SCHEDULER_COLLECTION, recordId('repeat', 'beat'));
      expect(stored?.version).toBe(30);
      expect(everyMs).toContain(stored?.data.everyMs);

      await Promise.all(Array.from({ length: 10 }, (_, i) => schedulers[i % 2]!.removeSchedule('beat')));
      expect(await handles[1]!.get(DEFAULT_SCHEDULER_COLLECTION, recordId('repeat', 'beat'))).toBeNull();
      expect(await schedulers[0]!.nextRun('beat')).toBeNull();
    } finally {
      await Promise.all(schedulers.map((scheduler) => scheduler.close()));
      await Promise.all(handles.map((store) => store.close()));
      await rm(dir, { recursive: true, force: true });
    }
  });
});
