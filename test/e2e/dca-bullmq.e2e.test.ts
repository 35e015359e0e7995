/**
 * DCA strategies on the production scheduler: BullMQ job schedulers on a real
 * Redis, the real clock, the service in this process. A strategy ticking every second
 * buys exactly once per second with no gap; pause stops it, resume continues from the
 * next second without a burst of the paused ones, delete removes the job scheduler from
 * Redis; the same tick delivered twice (handler or duplicate BullMQ jobs) buys once and
 * is counted once, and overlapping ticks finishing out of order both count.
 */
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BullmqScheduler } from '../../adapters/bullmq/bullmq-scheduler.adapter.js';
import type { OrderContext } from '../../machines/order.machine.js';
import type { DueJob } from '../../kernel/ports/scheduler.port.js';
import { createDcaStrategy, dueAtOf, gaps, opsActors, setUpDcaTrader, sleep, usdcHeld } from '../support/dca-accounts.js';
import { TEST_REDIS_URL, deleteRedisKeys } from '../support/redis.js';
import { startTestService, type TestService } from '../support/test-service.js';

const SECOND = 1_000;
/** The queue the composition root gives the BullMQ scheduler. */
const QUEUE = 'actor-schedules';

describe('DCA strategies on BullMQ and Redis, real clock (e2e)', () => {
  const prefixes: string[] = [];
  const running: TestService[] = [];
  let redis: Redis;

  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  });
  afterEach(async () => {
    for (const svc of running.splice(0)) await svc.stop();
    for (const prefix of prefixes.splice(0)) await deleteRedisKeys(prefix);
  });
  afterAll(() => redis.disconnect());

  async function setUp() {
    const prefix = `test-dca-${randomUUID()}`;
    prefixes.push(prefix);
    // Strategies of one buy a second exercise BullMQ's scheduler; the service's floor is a minute.
    const svc = await startTestService({ env: { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix, DCA_MIN_INTERVAL_SECONDS: '1' } });
    running.push(svc);
    // The production scheduler, not the embedded one.
    expect(svc.service.adapters.scheduler).toBeInstanceOf(BullmqScheduler);
    const trader = await setUpDcaTrader(svc.url);
    const keys = {
      schedulers: `${prefix}:${QUEUE}:repeat`,
      delayed: `${prefix}:${QUEUE}:delayed`,
      scheduler: (strategyId: string) => `${prefix}:${QUEUE}:repeat:dca:${strategyId}`,
    };
    /** Due times (ms) of the strategy's orders, oldest first, with their statuses. */
    const ticks = async (name: string) => {
      // Through the ops view: an order keeps its tick's due time, which REST does not show.
      const orders = (await opsActors<OrderContext>(svc.url, svc.opsToken, 'order')).filter((o) => o.context.strategy === name);
      return orders
        .map((o) => ({ dueAt: dueAtOf(o.context), status: o.context.status, channel: o.context.channel }))
        .sort((a, b) => a.dueAt - b.dueAt);
    };
    const strategy = async (name: string) => {
      const list = await trader.client.get(`/api/nest/trading/strategies/${trader.userId}`);
      return (list.body.items as Array<{ name: string; status: string; buys: number; failures: number }>).find((s) => s.name === name);
    };
    return { prefix, svc, trader, keys, ticks, strategy };
  }

  /** Everything Redis holds for one strategy's job scheduler (its hash, its run jobs, its zset entries). */
  async function schedulerFootprint(keys: { schedulers: string; delayed: string; scheduler: (id: string) => string }, strategyId: string) {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', `${keys.scheduler(strategyId)}*`, 'COUNT', 500);
      found.push(...batch);
      cursor = next;
    } while (cursor !== '0');
    const score = await redis.zscore(keys.schedulers, `dca:${strategyId}`);
    const delayed = (await redis.zrange(keys.delayed, 0, -1)).filter((id) => id.startsWith(`repeat:dca:${strategyId}:`));
    return { keys: found, score, delayed };
  }

  /** The leading filled ticks (a run still in flight ends the list). */
  const filled = <T extends { status: string }>(ticks: T[]): T[] => {
    const firstOpen = ticks.findIndex((t) => t.status !== 'filled');
    return firstOpen === -1 ? ticks : ticks.slice(0, firstOpen);
  };

  function expectContiguousSeconds(dueAts: number[]) {
    expect(dueAts.length).toBeGreaterThan(0);
    expect(dueAts.every((t) => t % SECOND === 0)).toBe(true);
    // One order per second: no gap (a diff of 2 s or more) and no duplicate (a diff of 0).
    expect(gaps(dueAts)).toEqual(dueAts.slice(1).map(() => SECOND));
  }

  it('ticks every second exactly once, pause stops, resume continues without a burst, delete removes the job scheduler', async () => {
    const { trader, keys, ticks, strategy } = await setUp();
    const name = 'every-second';
    const created = await createDcaStrategy(trader, name, '* * * * * *');
    const respondedAt = Date.now();
    const createdAt = Date.parse(created.createdAt);

    // --- runs for a few seconds ---
    await expect.poll(async () => filled(await ticks(name)).length, { timeout: 15_000, interval: 300 }).toBeGreaterThanOrEqual(4);
    const paused = await trader.client.post(`/api/nest/trading/dca/pause/${trader.userId}`, { name });
    const pausedAt = Date.now();
    expect(paused.body.items[0]).toMatchObject({ name, status: 'paused' });
    // A run already going when the pause landed still finishes its buy.
    await expect.poll(async () => (await ticks(name)).filter((t) => t.status !== 'filled'), { timeout: 10_000, interval: 300 }).toEqual([]);
    const beforePause = await ticks(name);
    expect(beforePause.every((t) => t.channel === 'dca')).toBe(true);
    const firstRun = beforePause.map((t) => t.dueAt);
    expect(firstRun.length).toBeGreaterThanOrEqual(4);
    expectContiguousSeconds(firstRun);
    // Starts at the first whole second after its schedule was registered (during the create call).
    expect(firstRun[0]!).toBeGreaterThan(createdAt);
    expect(firstRun[0]!).toBeLessThanOrEqual(Math.floor(respondedAt / SECOND) * SECOND + SECOND);
    expect(firstRun.at(-1)!).toBeLessThanOrEqual(pausedAt);
    // Pause removes the job scheduler.
    expect((await schedulerFootprint(keys, created.strategyId)).score).toBeNull();

    // --- paused: nothing for more than 3 s ---
    await sleep(3_500);
    expect((await ticks(name)).map((t) => t.dueAt)).toEqual(firstRun);

    // --- resume: from the next second on, none of the paused seconds ---
    const resumeStart = Date.now();
    const resumed = await trader.client.post(`/api/nest/trading/dca/resume/${trader.userId}`, { name });
    const resumedAt = Date.now();
    expect(resumed.body.items[0]).toMatchObject({ name, status: 'active' });
    expect((await schedulerFootprint(keys, created.strategyId)).score).not.toBeNull();
    await expect
      .poll(async () => filled(await ticks(name)).length, { timeout: 15_000, interval: 300 })
      .toBeGreaterThanOrEqual(firstRun.length + 3);
    const afterResume = (await ticks(name)).filter((t) => t.dueAt > firstRun.at(-1)!);
    // Still ticking: the newest run may be in flight; every one before it is filled.
    const secondRun = filled(afterResume).map((t) => t.dueAt);
    expect(afterResume.slice(0, secondRun.length).every((t) => t.status === 'filled')).toBe(true);
    // No burst: no order is due inside the paused window.
    expect(secondRun.filter((t) => t < resumeStart)).toEqual([]);
    // Continues from the next second (none skipped), then every second.
    expect(secondRun[0]!).toBeLessThanOrEqual(Math.floor(resumedAt / SECOND) * SECOND + SECOND);
    expectContiguousSeconds(secondRun);

    // --- counters agree with the orders ---
    const view = await strategy(name);
    expect(view).toMatchObject({ status: 'active', failures: 0 });
    expect(view!.buys).toBeGreaterThanOrEqual(firstRun.length + secondRun.length);

    // --- delete: the job scheduler is gone from Redis, no order follows ---
    const before = await schedulerFootprint(keys, created.strategyId);
    expect(before.score).not.toBeNull();
    expect(before.keys).toContain(keys.scheduler(created.strategyId));
    expect((await trader.client.delete(`/api/nest/trading/strategies/${trader.userId}/${name}`)).status).toBe(200);
    const deletedAt = Date.now();
    // A run still active at the delete finishes and its job hash is removed on completion.
    await expect
      .poll(async () => schedulerFootprint(keys, created.strategyId), { timeout: 5_000, interval: 100 })
      .toEqual({ keys: [], score: null, delayed: [] });
    expect((await trader.client.get(`/api/nest/trading/strategies/${trader.userId}`)).body.items).toEqual([]);
    const atDelete = (await ticks(name)).map((t) => t.dueAt);
    await sleep(3_000);
    const later = (await ticks(name)).map((t) => t.dueAt);
    expect(later).toEqual(atDelete);
    expect(later.filter((t) => t > deletedAt)).toEqual([]);
    expect(await schedulerFootprint(keys, created.strategyId)).toEqual({ keys: [], score: null, delayed: [] });
    expect((await trader.client.delete(`/api/nest/trading/strategies/${trader.userId}/${name}`)).status).toBe(404);
    // One buy of 1 USDC per order, no more.
    expect(await usdcHeld(trader)).toBe(String(100_000 - later.length));
  }, 60_000);

  it('the same tick delivered twice buys once: twice to the handler, and as duplicate BullMQ jobs', async () => {
    const { prefix, svc, trader, ticks, strategy } = await setUp();
    // Hourly: the schedule itself delivers nothing during the test, only the duplicates do.
    const direct = await createDcaStrategy(trader, 'dup-direct', 'every 1 hours', '2');
    const viaQueue = await createDcaStrategy(trader, 'dup-queue', 'every 1 hours', '3');
    const dueAt = Math.floor(Date.now() / SECOND) * SECOND - 5 * SECOND;

    // Twice at once and once more, straight to the handler the scheduler delivers to.
    const tick: DueJob = {
      id: `dca:${direct.strategyId}`,
      kind: 'repeat',
      address: { type: 'dca-strategy', id: direct.strategyId },
      event: { type: 'dca.tick' },
      dueAt,
    };
    const handler = svc.service.dueJobs.deliver;
    await Promise.all([handler(tick), handler(tick)]);
    await handler(tick);
    expect((await ticks('dup-direct')).map((t) => [t.dueAt, t.status])).toEqual([[dueAt, 'filled']]);
    expect(await strategy('dup-direct')).toMatchObject({ buys: 1, failures: 0 });

    // Through BullMQ: three jobs with the strategy's template and run ids of the shape
    // `repeat:<x>:<dueAt>` (the adapter reads a run's due time from it; BullMQ refuses custom
    // ids with more colons, so `<x>` is not the scheduler id), the first two at once.
    const connection = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    const queue = new Queue(QUEUE, { connection, prefix });
    try {
      const scheduler = await queue.getJobScheduler(`dca:${viaQueue.strategyId}`);
      expect(scheduler?.template?.data).toMatchObject({
        kind: 'repeat',
        scheduleId: `dca:${viaQueue.strategyId}`,
        address: { type: 'dca-strategy', id: viaQueue.strategyId },
      });
      const data = scheduler!.template!.data;
      const copy = (n: number) => `repeat:copy${n}_${viaQueue.strategyId}:${dueAt}`;
      const completed = async (ids: string[]) =>
        (await Promise.all(ids.map((id) => queue.getJobState(id)))).every((s) => s === 'completed');
      await Promise.all([copy(1), copy(2)].map((jobId) => queue.add('repeat', data, { jobId, removeOnComplete: false })));
      await expect.poll(() => completed([copy(1), copy(2)]), { timeout: 10_000, interval: 50 }).toBe(true);
      await queue.add('repeat', data, { jobId: copy(3), removeOnComplete: false });
      await expect.poll(() => completed([copy(3)]), { timeout: 10_000, interval: 50 }).toBe(true);
    } finally {
      await queue.close();
      await connection.quit();
    }
    expect((await ticks('dup-queue')).map((t) => [t.dueAt, t.status])).toEqual([[dueAt, 'filled']]);
    expect(await strategy('dup-queue')).toMatchObject({ buys: 1, failures: 0 });

    // The money moved once per strategy: 2 + 3 USDC out of 100000.
    expect(await usdcHeld(trader)).toBe('99995');
  }, 60_000);

  /**
   * Two ticks of one strategy that overlap and finish out of order (a 1-second strategy
   * whose runs are picked up late) both buy and both are counted: the strategy remembers
   * the due times it handled, not only the latest.
   */
  it('two overlapping ticks of one strategy both buy and both are counted', async () => {
    const { svc, trader, ticks, strategy } = await setUp();
    const handler = svc.service.dueJobs.deliver;
    for (let round = 0; round < 5; round++) {
      const name = `overlap-${round}`;
      const { strategyId } = await createDcaStrategy(trader, name, 'every 1 hours');
      const due = Math.floor(Date.now() / SECOND) * SECOND - 10 * SECOND;
      const tick = (dueAt: number): DueJob => ({
        id: `dca:${strategyId}`,
        kind: 'repeat',
        address: { type: 'dca-strategy', id: strategyId },
        event: { type: 'dca.tick' },
        dueAt,
      });
      // The later tick starts first, the earlier one a moment after, while the later is still running.
      const later = handler(tick(due + SECOND));
      await sleep(2);
      await Promise.all([later, handler(tick(due))]);
      expect((await ticks(name)).map((t) => [t.dueAt, t.status])).toEqual([
        [due, 'filled'],
        [due + SECOND, 'filled'],
      ]);
      expect(await strategy(name)).toMatchObject({ buys: 2, failures: 0 });
    }
  }, 60_000);
});
