import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { BullmqScheduler, type BullmqSchedulerOptions } from '../../adapters/bullmq/bullmq-scheduler.adapter.js';
import type { SchedulerLogger } from '../../adapters/scheduler/schedule-timing.helpers.js';
import type { DueJob } from '../../kernel/ports/scheduler.port.js';
import { schedulerContract } from '../contracts/scheduler.contract.js';

// Redis is on every dev and CI machine of this project; REDIS_URL points elsewhere.
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = 'bull';
const silent: SchedulerLogger = { warn: () => {}, error: () => {} };
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const until = async (done: () => boolean, maxMs: number): Promise<void> => {
  for (const end = Date.now() + maxMs; !done(); await sleep(20)) {
    if (Date.now() > end) throw new Error(`condition not met within ${maxMs} ms`);
  }
};

async function redisReachable(): Promise<boolean> {
  const probe = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 1_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  probe.on('error', () => {});
  try {
    await probe.connect();
    await probe.ping();
    return true;
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

/** Obliterates the queue, then SCAN+DELs what obliterate leaves (never KEYS or FLUSHDB: Redis is shared). */
async function destroyQueue(queueName: string): Promise<void> {
  const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const queue = new Queue(queueName, { connection, prefix: PREFIX });
  try {
    await queue.obliterate({ force: true });
    let cursor = '0';
    do {
      const [next, keys] = await connection.scan(cursor, 'MATCH', `${PREFIX}:${queueName}:*`, 'COUNT', 200);
      if (keys.length > 0) await connection.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    await queue.close();
    await connection.quit();
  }
}

/** Schedulers on one fresh queue, torn down (connections and keys) by `cleanup`. */
function world() {
  const queueName = `test-${randomUUID()}`;
  const made: BullmqScheduler[] = [];
  const make = (extra: Partial<BullmqSchedulerOptions> = {}) => {
    const options = { redisUrl: REDIS_URL, queueName, prefix: PREFIX, backoffMs: 50, logger: silent };
    const scheduler = new BullmqScheduler({ ...options, ...extra });
    made.push(scheduler);
    return scheduler;
  };
  const cleanup = async () => {
    await Promise.all(made.map((scheduler) => scheduler.close()));
    await destroyQueue(queueName);
  };
  return { make, cleanup };
}

if (await redisReachable()) {
  schedulerContract('bullmq (real Redis)', async () => {
    const w = world();
    return { scheduler: w.make(), advance: sleep, now: () => Date.now(), cleanup: w.cleanup };
  });

  describe('BullmqScheduler', () => {
    it('two instances (workers) on one queue deliver each run exactly once', async () => {
      const w = world();
      try {
        const calls: Array<DueJob & { by: string }> = [];
        const [a, b] = [w.make(), w.make()];
        await a.start(async (job) => void calls.push({ ...job, by: 'a' }));
        await b.start(async (job) => void calls.push({ ...job, by: 'b' }));
        const address = { type: 'dca', id: 'agent-1' };
        const t0 = Date.now();
        for (let i = 0; i < 20; i++) {
          await (i % 2 ? a : b).scheduleOnce({ jobId: `j${i}`, address, event: { type: 'x' }, runAt: t0 + 50 * i });
        }
        await a.scheduleRepeating({ scheduleId: 'beat', address, event: { type: 'dca.tick' }, everyMs: 200 });
        const beatCount = () => calls.filter((c) => c.id === 'beat').length;
        await until(() => calls.length >= 20 && beatCount() >= 5, 5_000);
        await sleep(100);
        const keys = calls.map((c) => `${c.id}@${c.dueAt}`);
        expect(new Set(keys).size).toBe(keys.length);
        expect(calls.filter((c) => c.kind === 'once')).toHaveLength(20);
        const beats = calls
          .filter((c) => c.id === 'beat')
          .map((c) => c.dueAt)
          .sort((x, y) => x - y);
        expect(beats.length).toBeGreaterThanOrEqual(5);
        expect(beats).toEqual(beats.map((_, i) => beats[0]! + 200 * i));
      } finally {
        await w.cleanup();
      }
    });

    it('after downtime delivers a missed schedule once, with the first missed dueAt, then keeps its grid', async () => {
      const w = world();
      try {
        const address = { type: 'dca', id: 'agent-1' };
        const first = w.make();
        const t0 = Date.now();
        await first.scheduleRepeating({ scheduleId: 'beat', address, event: { type: 'dca.tick' }, everyMs: 200 });
        await first.scheduleOnce({ jobId: 'late', address, event: { type: 'x' }, runAt: t0 + 300 });
        const firstDue = (await first.nextRun('beat'))!;
        await first.close();
        await sleep(1_100); // five runs fall due while no worker is up
        const calls: DueJob[] = [];
        const second = w.make();
        const restartedAt = Date.now();
        await second.start(async (job) => void calls.push(job));
        await until(() => calls.length >= 2, 3_000);
        expect(calls.map((c) => [c.id, c.dueAt]).sort()).toEqual([
          ['beat', firstDue],
          ['late', t0 + 300],
        ]);
        await until(() => calls.length >= 3, 3_000);
        const beats = calls.filter((c) => c.id === 'beat').map((c) => c.dueAt);
        expect(beats.length).toBeGreaterThanOrEqual(2);
        expect(beats[1]).toBeGreaterThan(restartedAt);
        expect((beats[1]! - firstDue) % 200).toBe(0);
      } finally {
        await w.cleanup();
      }
    });

    it('ping fails fast when Redis is unreachable', async () => {
      const queueName = `test-${randomUUID()}`;
      const scheduler = new BullmqScheduler({ redisUrl: 'redis://127.0.0.1:1', queueName, logger: silent });
      try {
        await expect(scheduler.ping()).rejects.toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
      } finally {
        await scheduler.close();
      }
    });
  });
} else {
  describe.skip(`BullmqScheduler: Redis unreachable at ${REDIS_URL} (set REDIS_URL or start redis-server)`, () => {
    it('needs Redis', () => {});
  });
}
