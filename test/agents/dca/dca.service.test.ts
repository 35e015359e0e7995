import { orderDefinition } from '../../../machines/order.machine.js';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { parseInterval } from '../../../agents/dca/dca-interval.js';
import type { DcaTickOutcome } from '../../../kernel/ports/dca-tick-observer.port.js';
import { DCA_NAMES_COLLECTION, DcaService } from '../../../agents/dca/dca.service.js';
import { dcaOrderId, legacyDcaOrderId } from '../../../kernel/vocabulary/ids.js';
import type { TradingSubject } from '../../../agents/portfolio/portfolio.types.js';
import { dcaStrategyDefinition, type DcaStrategyContext } from '../../../machines/dca-strategy.machine.js';
import type { RepeatingSchedule } from '../../../kernel/ports/scheduler.port.js';
import { SUBJECT, USDC, tradingHarness, type TradingHarness } from '../../support/trading-harness.js';

/** A scheduler that keeps schedules in a map; `hold` makes the next scheduleRepeating wait for `release`. */
function recordingScheduler() {
  const schedules = new Map<string, RepeatingSchedule>();
  let held: { entered: () => void; gate: Promise<void> } | undefined;
  let release = () => {};
  return {
    schedules,
    /** Resolves once the next scheduleRepeating has started; it completes after `release()`. */
    hold(): Promise<void> {
      return new Promise<void>((entered) => {
        held = { entered, gate: new Promise<void>((open) => (release = open)) };
      });
    },
    release: () => release(),
    port: {
      scheduleRepeating: async (schedule: RepeatingSchedule) => {
        const waiting = held;
        held = undefined;
        if (waiting) {
          waiting.entered();
          await waiting.gate;
        }
        schedules.set(schedule.scheduleId, schedule);
      },
      removeSchedule: async (id: string) => void schedules.delete(id),
      nextRun: async (id: string) => (schedules.has(id) ? 0 : null),
      scheduleOnce: async () => undefined,
      cancel: async () => undefined,
    },
  };
}

describe('DCA strategies service', () => {
  let h: TradingHarness;
  let scheduler: ReturnType<typeof recordingScheduler>;
  let dca: DcaService;
  let observed: Array<[DcaTickOutcome, number]>;
  const OTHER: TradingSubject = { type: 'agent', id: 'agt_2' };

  /** The service on a fresh harness (`walletKind` as `tradingHarness` takes it). */
  const start = async (walletKind?: 'delegate' | 'custodial') => {
    observed = [];
    h = await tradingHarness(walletKind ? { walletKind } : {});
    h.runtime.register(dcaStrategyDefinition);
    await h.store.init([...h.runtime.collections(), DCA_NAMES_COLLECTION]);
    scheduler = recordingScheduler();
    let ids = 0;
    dca = new DcaService({
      actors: { strategies: h.runtime.collection(dcaStrategyDefinition), orders: h.runtime.collection(orderDefinition) },
      store: h.store,
      scheduler: scheduler.port,
      pipeline: h.pipeline,
      venue: h.venue,
      config: { get: async () => h.state.config },
      status: h.status,
      clock: h.clock,
      newId: () => `s${++ids}`,
      observer: { observeTick: (outcome, lag) => void observed.push([outcome, lag]) },
      perUser: { max: 3, subjectsOf: async (userId) => (userId === 'usr_1' ? [SUBJECT, OTHER] : []) },
    });
  };
  beforeEach(() => start());

  const tick = (strategyId: string, dueAt = h.clock.now()) =>
    dca.onTick({
      id: `dca:${strategyId}`,
      kind: 'repeat',
      address: { type: 'dca-strategy', id: strategyId },
      event: { type: 'dca.tick' },
      dueAt,
    });
  const stored = async (strategyId: string) => {
    const view = (await h.runtime.get({ type: 'dca-strategy', id: strategyId }))!;
    return { state: view.state, context: view.context as DcaStrategyContext };
  };

  const create = (name: string, amount = '10') =>
    dca.create(SUBJECT, undefined, { name, inputToken: 'USDC', outputToken: 'SOL', amount, interval: 'every 1 minutes' });

  it('a resume racing a delete leaves no schedule behind for the deleted strategy', async () => {
    const created = await create('raced');
    await dca.pause(SUBJECT, undefined, 'raced');
    expect(scheduler.schedules.size).toBe(0);
    // The resume has moved the strategy to active and is arming its schedule when the delete runs whole.
    const entered = scheduler.hold();
    const resuming = dca.resume(SUBJECT, undefined, 'raced');
    await entered;
    await dca.delete(SUBJECT, undefined, 'raced');
    scheduler.release();
    await resuming;
    expect((await h.runtime.get({ type: 'dca-strategy', id: created.strategyId }))?.state).toBe('deleted');
    expect(scheduler.schedules.size).toBe(0);
  });

  it('a tick refused before its order was created names no order', async () => {
    await h.fund(USDC, '1000000'); // 1 USDC: a 10 USDC buy is refused by the balance check
    const created = await create('short');
    const dueAt = h.clock.now();
    await dca.onTick({
      id: `dca:${created.strategyId}`,
      kind: 'repeat',
      address: { type: 'dca-strategy', id: created.strategyId },
      event: { type: 'dca.tick' },
      dueAt,
    });
    const context = (await h.runtime.get({ type: 'dca-strategy', id: created.strategyId }))!.context as DcaStrategyContext;
    expect(context).toMatchObject({ failures: 1, lastError: 'Insufficient balance for requested swap amount' });
    expect(context.lastOrderId).toBeUndefined();
    expect(await h.runtime.get({ type: 'order', id: dcaOrderId(created.strategyId, dueAt) })).toBeNull();
  });

  describe('order ids', () => {
    it("a tick's order id is `ord_` + 24 base64url characters, derived from the strategy and due time: a second delivery buys nothing", async () => {
      await h.fund(USDC, '1000000000');
      const created = await create('ids');
      const dueAt = h.clock.now();
      await tick(created.strategyId, dueAt);
      await tick(created.strategyId, dueAt);
      const orders = (await h.queries.list(SUBJECT, { limit: 10 })).items;
      expect(orders.map((o) => o.order_id)).toEqual([dcaOrderId(created.strategyId, dueAt)]);
      expect(orders[0]!.order_id).toMatch(/^ord_[A-Za-z0-9_-]{24}$/);
      // The order keeps the tick it was for: the id no longer says it.
      expect((await h.runtime.get({ type: 'order', id: orders[0]!.order_id }))!.context).toMatchObject({
        strategyId: created.strategyId,
        tickDueAt: dueAt,
      });
      expect((await stored(created.strategyId)).context).toMatchObject({ buys: 1, lastOrderId: orders[0]!.order_id });
    });

    /** Stores the strategy as a build from before machine version 5 left it (the runtime reads it afresh). */
    const storedByFormerBuild = async (strategyId: string) => {
      const doc = (await h.store.get<{ machineVersion: number; snapshot: unknown }>('actors.dca-strategy', strategyId))!;
      await h.store.put('actors.dca-strategy', strategyId, {
        data: { ...doc.data, machineVersion: 4 },
        expectedVersion: doc.version,
        indexes: doc.indexes,
      });
    };
    const lookedUp = (spy: { mock: { calls: unknown[][] } }, id: string) =>
      spy.mock.calls.filter(([address]) => (address as { id: string }).id === id).length;

    it('a tick of a strategy created since the derived ids reads no order under the former id', async () => {
      await h.fund(USDC, '1000000000');
      const created = await create('fresh');
      const dueAt = h.clock.now();
      const get = vi.spyOn(h.runtime, 'get');
      await tick(created.strategyId, dueAt);
      expect(lookedUp(get, legacyDcaOrderId(created.strategyId, dueAt))).toBe(0);
      // Nor the order it placed, after the fill (the pipeline's answer carries its exact value): the pipeline's own look at most.
      expect(lookedUp(get, dcaOrderId(created.strategyId, dueAt))).toBeLessThanOrEqual(1);
      expect((await stored(created.strategyId)).context).toMatchObject({ buys: 1, spentUsd: 10 });
      get.mockRestore();
    });

    it("a tick filled at once counts its buy in the fill's commit (no write of the strategy's own), unrounded: a sub-cent buy is not $0", async () => {
      await start('custodial'); // a paper swap of a custodial wallet fills in one commit
      await h.fund(USDC, '1000000000');
      const created = await create('cents', '0.004');
      const dueAt = h.clock.now();
      const put = vi.spyOn(h.store, 'put');
      const commit = vi.spyOn(h.store, 'commit');
      await tick(created.strategyId, dueAt);
      const orderId = dcaOrderId(created.strategyId, dueAt);
      expect(put.mock.calls.filter(([collection]) => collection === 'actors.dca-strategy').map((c) => c[3]?.event)).toEqual([]);
      const withStrategy = commit.mock.calls.filter(([writes]) => writes.some((w) => w.collection === 'actors.dca-strategy'));
      expect(withStrategy).toHaveLength(1);
      expect(withStrategy[0]![0].map((w) => w.collection)).toContain('actors.order');
      const after = await stored(created.strategyId);
      expect(after.context).toMatchObject({ buys: 1, lastOrderId: orderId, recentDueAts: [dueAt] });
      expect((after.context as DcaStrategyContext).spentUsd).toBeCloseTo(0.004, 9);
      const journal = await h.store.readJournal('actors.dca-strategy', created.strategyId, { limit: 10 });
      expect(journal.at(-1)?.event).toMatchObject({ type: 'dca.executed', dueAt, orderId, spentBase: '4000' });
      expect(observed.map(([outcome]) => outcome)).toEqual(['executed']);
      // Delivered again: the order is found, nothing is bought or counted twice.
      await tick(created.strategyId, dueAt);
      expect((await stored(created.strategyId)).context).toMatchObject({ buys: 1 });
      put.mockRestore();
      commit.mockRestore();
    });

    it('a tick whose order was placed under the former id (`ord_<strategyId>_<dueAt>`) before an upgrade, delivered again, finds it and buys nothing more', async () => {
      await h.fund(USDC, '1000000000');
      const created = await create('upgraded');
      await storedByFormerBuild(created.strategyId);
      const dueAt = h.clock.now();
      // The tick as the former version placed it, which stopped before telling the strategy.
      const legacy = legacyDcaOrderId(created.strategyId, dueAt);
      const placed = await h.pipeline.place(
        {
          subject: SUBJECT,
          channel: 'dca',
          chain: 'solana',
          side: 'buy',
          inputToken: 'USDC',
          outputToken: 'SOL',
          amount: { kind: 'whole', value: '10' },
        },
        { orderId: legacy, strategy: 'upgraded', strategyId: created.strategyId, strategyApproval: 'unapproved' },
      );
      expect(placed).toMatchObject({ order_id: legacy, status: 'filled' });
      expect((await stored(created.strategyId)).context).toMatchObject({ buys: 0 });

      await tick(created.strategyId, dueAt);
      expect((await h.queries.list(SUBJECT, { limit: 10 })).items.map((o) => o.order_id)).toEqual([legacy]);
      expect(await h.runtime.get({ type: 'order', id: dcaOrderId(created.strategyId, dueAt) })).toBeNull();
      expect((await stored(created.strategyId)).context).toMatchObject({ buys: 1, failures: 0, lastOrderId: legacy });
      expect(observed).toEqual([['executed', 0]]);
      // The next tick is named in the one format; an hour after the first counted tick, no former name is looked for.
      await h.clock.advance(60_000);
      await tick(created.strategyId);
      expect((await h.queries.list(SUBJECT, { limit: 10 })).items.map((o) => o.order_id).sort()).toEqual(
        [dcaOrderId(created.strategyId, h.clock.now()), legacy].sort(),
      );
      await h.clock.advance(61 * 60_000);
      const get = vi.spyOn(h.runtime, 'get');
      await tick(created.strategyId);
      expect(lookedUp(get, legacyDcaOrderId(created.strategyId, h.clock.now()))).toBe(0);
      get.mockRestore();
      expect((await stored(created.strategyId)).context.formerOrderNamesUntil).toBeUndefined();
    });
  });

  describe('approval', () => {
    const big = (name: string) =>
      dca.create(SUBJECT, undefined, {
        name,
        inputToken: 'USDC',
        outputToken: 'SOL',
        amount: '300',
        interval: 'every 1 minutes',
        maxBuys: 3,
      });

    it('a strategy whose buy the approval rule holds is created pending_approval, with no schedule, and its ticks buy nothing', async () => {
      await h.fund(USDC, '1000000000');
      h.state.config = {
        ...h.state.config,
        defaultOrderProfile: { ...h.state.config.defaultOrderProfile, autoApprove: false, approvalAboveUsd: 10 },
      };
      const created = await big('held');
      expect(created).toMatchObject({
        status: 'pending_approval',
        holdReason: 'the order profile approves no trade automatically (autoApprove off)',
      });
      expect(scheduler.schedules.size).toBe(0);
      await tick(created.strategyId);
      expect(await h.queries.list(SUBJECT, { limit: 10 })).toMatchObject({ items: [] });
      // Over the approval size with auto-approval on: held the same way, and says why.
      h.state.config = { ...h.state.config, defaultOrderProfile: { ...h.state.config.defaultOrderProfile, autoApprove: true } };
      expect(await big('over-size')).toMatchObject({
        status: 'pending_approval',
        holdReason: 'a buy of $300.00 is over the approval size of $10',
      });
      // Under the size: active as before.
      expect((await create('small', '5')).status).toBe('active');
    });

    it('approval follows the order approval rule: a trade key only with agentsMayApprove; then it is scheduled and its buys are approved', async () => {
      await h.fund(USDC, '1000000000');
      h.state.config = {
        ...h.state.config,
        defaultOrderProfile: { ...h.state.config.defaultOrderProfile, autoApprove: false, approvalAboveUsd: 10 },
      };
      const created = await big('held');
      await expect(dca.approve(SUBJECT, undefined, 'held', 'trade')).rejects.toMatchObject({
        kind: 'forbidden',
        message: 'Scope insufficient: required manage, got trade',
      });
      await expect(dca.approve(SUBJECT, undefined, 'nope', 'manage')).rejects.toMatchObject({
        kind: 'not_found',
        message: 'Strategy not found: nope',
      });
      h.state.config = { ...h.state.config, defaultOrderProfile: { ...h.state.config.defaultOrderProfile, agentsMayApprove: true } };
      const approved = await dca.approve(SUBJECT, undefined, 'held', 'trade');
      expect(approved).toMatchObject({ status: 'active', approvedAt: expect.any(String) });
      expect(approved.holdReason).toBeUndefined();
      expect(scheduler.schedules.has(`dca:${created.strategyId}`)).toBe(true);
      await expect(dca.approve(SUBJECT, undefined, 'held', 'manage')).rejects.toMatchObject({
        kind: 'conflict',
        message: 'Strategy held is not pending approval (status: active)',
      });
      // The policy still holds $300 orders, but the approved strategy's buy goes through.
      await tick(created.strategyId);
      const order = (await h.queries.list(SUBJECT, { limit: 10 })).items[0]!;
      expect(order).toMatchObject({ status: 'filled', strategy: 'held' });
      expect((await h.runtime.get({ type: 'order', id: order.order_id }))!.context).toMatchObject({
        checks: expect.arrayContaining(['strategy_approved']),
      });
      expect(observed).toEqual([['executed', 0]]);
    });

    it('a strategy nobody approved, whose buy the policy holds at a tick, waits for approval: no order, a skipped tick, no failure loop', async () => {
      await h.fund(USDC, '1000000000');
      const created = await big('tightened'); // the default profile lets a $300 buy through
      expect(created.status).toBe('active');
      h.state.config = { ...h.state.config, defaultOrderProfile: { ...h.state.config.defaultOrderProfile, approvalAboveUsd: 100 } };
      const dueAt = h.clock.now();
      await tick(created.strategyId, dueAt);
      expect(await h.runtime.get({ type: 'order', id: dcaOrderId(created.strategyId, dueAt) })).toBeNull();
      const after = await stored(created.strategyId);
      expect(after.state).toBe('pending_approval');
      expect(after.context).toMatchObject({ skipped: 1, failures: 0, holdReason: 'a buy of $300.00 is over the approval size of $100' });
      expect(scheduler.schedules.size).toBe(0);
      expect(observed).toEqual([['skipped', 0]]);
    });
  });

  describe('ticks while the account does not trade', () => {
    it('are skipped, not failed: the strategy stays active through a long agent pause and buys again after it', async () => {
      await h.fund(USDC, '1000000000');
      const created = await create('steady');
      h.state.status = { ...h.state.status, status: 'paused' };
      for (let n = 1; n <= 4; n++) {
        await h.clock.advance(60_000);
        await tick(created.strategyId, h.clock.now() - 2_000); // handled 2 s after it was due
      }
      h.state.status = { ...h.state.status, status: 'active', tradingEnabled: false };
      await h.clock.advance(60_000);
      await tick(created.strategyId);
      let after = await stored(created.strategyId);
      expect(after.state).toBe('active');
      expect(after.context).toMatchObject({ skipped: 5, failures: 0, failuresInRow: 0 });
      expect(scheduler.schedules.has(`dca:${created.strategyId}`)).toBe(true);
      expect(observed).toEqual([...Array.from({ length: 4 }, () => ['skipped', 2]), ['skipped', 0]]);

      h.state.status = { ...h.state.status, tradingEnabled: true };
      await h.clock.advance(60_000);
      await tick(created.strategyId);
      after = await stored(created.strategyId);
      expect(after.context).toMatchObject({ buys: 1, skipped: 5, failures: 0 });
      expect(observed.at(-1)).toEqual(['executed', 0]);
      const stats = await dca.stats(SUBJECT);
      expect(stats.strategies[0]).toMatchObject({ name: 'steady', buys: 1, skipped: 5, failures: 0 });
      expect(stats.totals).toMatchObject({ buys: 1, skipped: 5 });
    });

    it("a tick while the chain's kill switch is on is skipped, not failed: three would have paused the strategy for good", async () => {
      await h.fund(USDC, '1000000000');
      const created = await create('halted');
      h.state.killed.add('solana');
      for (let n = 1; n <= 3; n++) {
        await h.clock.advance(60_000);
        await tick(created.strategyId);
      }
      const after = await stored(created.strategyId);
      expect(after.state).toBe('active');
      expect(after.context).toMatchObject({ skipped: 3, failures: 0, buys: 0 });
      expect(observed).toEqual(Array.from({ length: 3 }, () => ['skipped', 0]));
    });

    it('a failing buy is still a failure, and its tick is observed as one', async () => {
      await h.fund(USDC, '1000000');
      const created = await create('poor');
      await tick(created.strategyId);
      expect((await stored(created.strategyId)).context).toMatchObject({ failures: 1, skipped: 0 });
      expect(observed).toEqual([['failed', 0]]);
    });
  });

  describe('caps and intervals', () => {
    it('refuses a create past the per-user cap, counting every agent of the user; a deleted strategy frees its place', async () => {
      const make = (subject: TradingSubject, name: string) =>
        dca.create(subject, 'usr_1', { name, inputToken: 'USDC', outputToken: 'SOL', amount: '1', interval: 'every 1 hours' });
      await make(SUBJECT, 'a');
      await make(OTHER, 'b');
      await make(SUBJECT, 'c');
      await expect(make(OTHER, 'd')).rejects.toMatchObject({
        kind: 'conflict',
        message: 'Strategy limit reached: at most 3 strategies per user',
      });
      // Concurrent creates of one user cannot all slip under the cap.
      await dca.delete(SUBJECT, 'usr_1', 'a');
      const raced = await Promise.allSettled([make(SUBJECT, 'e'), make(OTHER, 'f')]);
      expect(raced.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      // Another user is not counted against this one.
      expect(
        (await dca.create(SUBJECT, 'usr_2', { name: 'a', inputToken: 'USDC', outputToken: 'SOL', amount: '1', interval: 'every 1 hours' }))
          .status,
      ).toBe('active');
    });

    it('counts the cap through the index: a create at the cap decodes no strategy, and deleted ones (past the cap) do not count', async () => {
      const make = (subject: TradingSubject, name: string) =>
        dca.create(subject, 'usr_1', { name, inputToken: 'USDC', outputToken: 'SOL', amount: '1', interval: 'every 1 hours' });
      for (const name of ['a', 'b', 'c', 'd']) {
        await make(SUBJECT, name);
        await dca.delete(SUBJECT, 'usr_1', name);
      }
      for (const name of ['e', 'f', 'g']) await make(name === 'f' ? OTHER : SUBJECT, name);
      const decoded = vi.spyOn(h.runtime, 'viewOf');
      await expect(make(OTHER, 'h')).rejects.toMatchObject({ message: 'Strategy limit reached: at most 3 strategies per user' });
      expect(decoded).not.toHaveBeenCalled();
      decoded.mockRestore();
      await dca.delete(SUBJECT, 'usr_1', 'e');
      expect((await make(OTHER, 'h')).status).toBe('active');
    });

    it('one grammar: every hour, every 2h, daily, weekly as the commands take them; a minute is the floor for cron and every alike', () => {
      const everyMs = (text: string) => {
        const parsed = parseInterval(text);
        return parsed.ok ? parsed.value.everyMs : parsed.error;
      };
      expect(everyMs('every hour')).toBe(3_600_000);
      expect(everyMs('every day')).toBe(86_400_000);
      expect(everyMs('Every 2h')).toBe(7_200_000);
      expect(everyMs('every 30 min')).toBe(1_800_000);
      expect(everyMs('each week')).toBe(7 * 86_400_000);
      expect(everyMs('daily')).toBe(86_400_000);
      expect(everyMs('hourly')).toBe(3_600_000);
      expect(everyMs('every 1 minutes')).toBe(60_000);
      expect(everyMs('every 0 minutes')).toBe('interval must be at least every 1 minute');
      expect(everyMs('every 367 days')).toBe('interval must be at most every 366 days');
      expect(everyMs('every fortnight')).toBe('interval must be a cron expression or "every <n> <minutes|hours|days>"');
      expect(parseInterval('* * * * * *')).toEqual({ ok: false, error: 'interval must be at least 60 seconds apart' });
      expect(parseInterval('*/30 * * * * *')).toEqual({ ok: false, error: 'interval must be at least 60 seconds apart' });
      expect(parseInterval('0,59 * * * * *')).toEqual({ ok: false, error: 'interval must be at least 60 seconds apart' });
      expect(parseInterval('15 * * * * *')).toMatchObject({ ok: true, value: { cron: '15 * * * * *' } });
      expect(parseInterval('* * * * *')).toMatchObject({ ok: true });
      expect(parseInterval('*/10 * * * * *', 10_000)).toMatchObject({ ok: true });
      expect(parseInterval('*/5 * * * * *', 10_000)).toMatchObject({ ok: false });
    });

    it('the service refuses a sub-minute cron the same way for every caller', async () => {
      await expect(
        dca.create(SUBJECT, undefined, { name: 'fast', inputToken: 'USDC', outputToken: 'SOL', amount: '1', interval: '* * * * * *' }),
      ).rejects.toMatchObject({
        kind: 'invalid',
        message: 'interval must be at least 60 seconds apart',
      });
      expect(
        (
          await dca.create(SUBJECT, undefined, {
            name: 'hourly',
            inputToken: 'USDC',
            outputToken: 'SOL',
            amount: '1',
            interval: 'every hour',
          })
        ).interval,
      ).toBe('every hour');
    });
  });
});
