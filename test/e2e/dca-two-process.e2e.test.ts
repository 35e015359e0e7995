/**
 * DCA at scale on the production scheduler: two service processes on one store
 * (LMDB in one DATA_DIR) and one Redis (BullMQ job schedulers, shared limits), 200
 * strategies ticking every second for 15 s (3,000 ticks). Every tick is executed exactly once across
 * both processes: per strategy the due times are whole seconds, each at most once; each
 * order filled, none failed or skipped, and the money moved once per order; no tick is
 * lost: a second without a run is only accepted where BullMQ collapsed it because the run
 * before was picked up late (the machine could not keep up; see `checkTicks`), and the
 * numbers (collapsed seconds, lag, split between the processes) are printed. Both
 * processes executed ticks.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DcaStrategyContext } from '../../machines/dca-strategy.machine.js';
import type { OrderContext } from '../../machines/order.machine.js';
import {
  createStrategies,
  checkTicks,
  dueAtOf,
  opsActors,
  percentile,
  setUpDcaTrader,
  sleep,
  storeWrites,
  strategyIdOf,
  usdcHeld,
  type TickOrder,
} from '../support/dca-accounts.js';
import { TEST_REDIS_URL, deleteRedisKeys } from '../support/redis.js';
import { ServiceProcess } from '../support/service-process.js';
import { PUBLIC_URL } from '../support/test-service.js';

const STRATEGIES = 200;
/** Spread over accounts: one wallet per account, so fewer strategies contend for one balance. */
const TRADERS = 10;
const RUN_MS = 15_000;
const SECOND = 1_000;
const FAUCET = 100_000;

describe('DCA strategies in two service processes on one store and one Redis', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'dca-two-proc-'));
  const prefix = `test-dca2-${randomUUID()}`;
  const processes: ServiceProcess[] = [];
  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    rmSync(dataDir, { recursive: true, force: true });
    await deleteRedisKeys(prefix);
  });

  it(`${STRATEGIES} strategies ticking every second for ${RUN_MS / SECOND} s: every tick executed exactly once across both`, async () => {
    // Strategies of one buy a second exercise the schedulers; the service's floor is a minute.
    const env = { DATA_DIR: dataDir, REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix, PUBLIC_URL, DCA_MIN_INTERVAL_SECONDS: '1' };
    const [a, b] = await Promise.all([ServiceProcess.start(env), ServiceProcess.start(env)]);
    processes.push(a, b);

    // Accounts and strategies through both processes (half the traders on each).
    const traders = await Promise.all(Array.from({ length: TRADERS }, (_, i) => setUpDcaTrader((i % 2 ? b : a).url, String(FAUCET))));
    const created = await createStrategies(traders, STRATEGIES / TRADERS, '* * * * * *');
    expect(created).toHaveLength(STRATEGIES);
    const writesBefore = await Promise.all([storeWrites(a), storeWrites(b)]);
    const runStart = Date.now();
    await sleep(RUN_MS);
    const writesAfter = await Promise.all([storeWrites(a), storeWrites(b)]);
    // Stop every strategy: pause (all of an account at once) removes the job schedulers.
    const paused = await Promise.all(traders.map((t) => t.client.post(`/api/nest/trading/dca/pause/${t.userId}`, {})));
    const pausedAt = Date.now();
    expect(paused.map((p) => p.status)).toEqual(traders.map(() => 200));
    expect(paused.reduce((n, p) => n + p.body.items.length, 0)).toBe(STRATEGIES);

    // Let the runs already picked up finish: the order count stops moving, none in flight.
    let orders: Array<{ context: OrderContext }> = [];
    for (let stable = 0, last = -1; stable < 3; await sleep(500)) {
      orders = await opsActors<OrderContext>(a.url, a.opsToken, 'order');
      const inFlight = orders.some((o) => o.context.status === 'submitting' || o.context.status === 'submitted');
      stable = !inFlight && orders.length === last ? stable + 1 : 0;
      last = orders.length;
      if (Date.now() - pausedAt > 60_000) throw new Error(`orders still moving a minute after the pause (${orders.length})`);
    }
    const strategies = await opsActors<DcaStrategyContext>(b.url, b.opsToken, 'dca-strategy');

    // --- every order is a filled DCA buy of one of our strategies ---
    const ids = new Set(created.map((s) => s.strategyId));
    expect(orders.filter((o) => !ids.has(strategyIdOf(o.context)))).toEqual([]);
    expect(
      orders.filter((o) => o.context.channel !== 'dca' || o.context.status !== 'filled').map((o) => [o.context.orderId, o.context.status]),
    ).toEqual([]);

    // --- per strategy: whole seconds, each once, every second accounted for, counted once ---
    const byStrategy = new Map<string, TickOrder[]>(created.map((s) => [s.strategyId, []]));
    for (const order of orders)
      byStrategy.get(strategyIdOf(order.context))!.push({ dueAt: dueAtOf(order.context), createdAt: order.context.createdAt });
    const problems: string[] = [];
    let collapsed = 0;
    let maxGap = 0;
    let lastBehind = 0;
    let uncounted = 0;
    for (const strategy of created) {
      const ticks = byStrategy.get(strategy.strategyId)!.sort((x, y) => x.dueAt - y.dueAt);
      const context = strategies.find((s) => s.id === strategy.strategyId)?.context;
      if (!context) problems.push(`${strategy.name}: strategy missing from the store`);
      if (ticks.length === 0) {
        problems.push(`${strategy.name}: no order`);
        continue;
      }
      const check = checkTicks(ticks, SECOND);
      problems.push(...check.problems.map((p) => `${strategy.name}: ${p}`));
      collapsed += check.collapsed;
      maxGap = Math.max(maxGap, check.maxGap);
      lastBehind = Math.max(lastBehind, pausedAt - ticks.at(-1)!.dueAt);
      // The first run is the first whole second after the schedule was registered (during the create call).
      if (ticks[0]!.dueAt <= strategy.createdAt || ticks[0]!.dueAt > strategy.respondedAt + SECOND) {
        problems.push(
          `${strategy.name}: first tick due ${ticks[0]!.dueAt - strategy.createdAt} ms after creation (create call took ${strategy.respondedAt - strategy.createdAt} ms)`,
        );
      }
      // Counted at most once per order, nothing failed or skipped. `buys` may trail the orders:
      // two ticks of one strategy that overlap and finish out of order leave the earlier buy
      // uncounted (known defect, see "overlapping ticks" in dca-bullmq.e2e.test.ts); reported below.
      if (context && (context.buys > ticks.length || context.failures !== 0 || context.skipped !== 0)) {
        problems.push(
          `${strategy.name}: ${ticks.length} orders but buys ${context.buys}, failures ${context.failures} (${context.lastError}), skipped ${context.skipped}`,
        );
      }
      if (context) uncounted += ticks.length - context.buys;
    }

    // --- the money moved once per order (a tick executed twice would spend twice) ---
    for (const [i, trader] of traders.entries()) {
      const spent = orders.filter((o) => o.context.subjectId === trader.agentId).length;
      const held = await usdcHeld(trader);
      if (held !== String(FAUCET - spent)) problems.push(`trader ${i}: ${spent} buys of 1 USDC but ${held} USDC left of ${FAUCET}`);
    }

    // --- figures (printed, not asserted beyond correctness) ---
    const lags = orders.map((o) => o.context.createdAt - dueAtOf(o.context));
    const inRun = orders.filter((o) => {
      const due = dueAtOf(o.context);
      return due > runStart && due <= runStart + RUN_MS;
    }).length;
    const work = [writesAfter[0] - writesBefore[0], writesAfter[1] - writesBefore[1]];
    console.log(
      [
        `two processes, ${STRATEGIES} strategies every second, run ${RUN_MS / SECOND} s (+ creation ${((runStart - Math.min(...created.map((s) => s.createdAt))) / SECOND).toFixed(1)} s)`,
        `orders ${orders.length}; due in the ${RUN_MS / SECOND} s window ${inRun} of ${(STRATEGIES * RUN_MS) / SECOND} seconds x strategies`,
        `seconds collapsed (run picked up late) ${collapsed}; longest gap ${maxGap} ms; last tick at most ${lastBehind} ms before the pause`,
        `filled orders the strategies did not count (overlapping ticks) ${uncounted}`,
        `lag order created - due: p50 ${percentile(lags, 50)} ms, p99 ${percentile(lags, 99)} ms, max ${Math.max(...lags)} ms`,
        `store writes during the run: A ${work[0]}, B ${work[1]}`,
      ].join('\n'),
    );
    expect(problems).toEqual([]);
    // Both processes executed ticks (store writes during the run, when no request is made).
    expect(Math.min(...work)).toBeGreaterThan(0.2 * (work[0]! + work[1]!));
  }, 240_000);
});
