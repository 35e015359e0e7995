import { describe, expect, it } from 'vitest';
import {
  RECENT_TICKS,
  dcaStrategyDefinition,
  dcaStrategyMachine,
  formerOrderNameMayExist,
  tickHandled,
  type DcaStrategyEvent,
  type DcaStrategyInput,
} from '../../machines/dca-strategy.machine.js';
import { decodeActorDocument } from '../../src/runtime/snapshot-codec.js';
import { startActor } from '../support/machine-harness.js';

const T0 = 1_700_000_000_000;
const MINUTE = 60_000;
const input: DcaStrategyInput = {
  strategyId: 'dca_1',
  name: 'sol',
  subjectType: 'agent',
  subjectId: 'agt_1',
  chain: 'solana',
  inputToken: 'USDC-mint',
  outputToken: 'SOL-mint',
  inputSymbol: 'USDC',
  outputSymbol: 'SOL',
  inputDecimals: 6,
  outputDecimals: 9,
  amount: '10',
  interval: { text: 'every 1 minutes', everyMs: MINUTE },
  catchUp: true,
  maxFailuresInRow: 3,
  createdAt: T0,
};
const buy = (n: number, over: Partial<Extract<DcaStrategyEvent, { type: 'dca.executed' }>> = {}): DcaStrategyEvent => ({
  type: 'dca.executed',
  at: T0 + n * MINUTE + 50,
  dueAt: T0 + n * MINUTE,
  orderId: `ord_${n}`,
  spentBase: '10000000',
  acquiredBase: '66000000',
  spentUsd: 10,
  ...over,
});
const submitted = (n: number): DcaStrategyEvent => ({
  type: 'dca.submitted',
  at: T0 + n * MINUTE + 50,
  dueAt: T0 + n * MINUTE,
  orderId: `ord_${n}`,
});
const settledBuy = (n: number): DcaStrategyEvent => ({
  type: 'dca.settled',
  at: T0 + n * MINUTE + 30_000,
  filled: true,
  orderId: `ord_${n}`,
  spentBase: '10000000',
  acquiredBase: '66000000',
  spentUsd: 10,
});
const settledFailure = (n: number): DcaStrategyEvent => ({
  type: 'dca.settled',
  at: T0 + n * MINUTE + 30_000,
  filled: false,
  orderId: `ord_${n}`,
  reason: 'Transaction expired',
});
const fail = (n: number): DcaStrategyEvent => ({
  type: 'dca.failed',
  at: T0 + n * MINUTE + 50,
  dueAt: T0 + n * MINUTE,
  reason: 'Insufficient balance for requested swap amount',
});

function walk(events: DcaStrategyEvent[], over: Partial<DcaStrategyInput> = {}) {
  const { actor, emitted } = startActor(dcaStrategyMachine, { ...input, ...over });
  for (const event of events) actor.send(event);
  return { snapshot: actor.getSnapshot(), emitted: emitted as Array<Record<string, unknown>>, actor };
}

describe('dca-strategy machine', () => {
  it('counts buys and announces each with its order, amount and price', () => {
    const { snapshot, emitted } = walk([buy(1), buy(2)]);
    expect(snapshot.value).toBe('active');
    expect(snapshot.context).toMatchObject({
      buys: 2,
      spentBase: '20000000',
      acquiredBase: '132000000',
      spentUsd: 20,
      recentDueAts: [T0 + MINUTE, T0 + 2 * MINUTE],
      lastOrderId: 'ord_2',
    });
    expect(emitted[1]).toEqual({
      type: 'dca.executed',
      strategy: 'sol',
      orderId: 'ord_2',
      amount: '10000000',
      price: '151.51515151',
      buys: 2,
    });
  });

  it('a tick counted once: the same due time again (duplicate delivery) changes nothing', () => {
    const { snapshot, emitted } = walk([buy(1), buy(1), fail(1)]);
    expect(snapshot.context.buys).toBe(1);
    expect(snapshot.context.failures).toBe(0);
    expect(emitted).toHaveLength(1);
  });

  it('active ⇄ paused → deleted', () => {
    expect(walk([{ type: 'dca.pause', at: T0 }]).snapshot.value).toBe('paused');
    expect(
      walk([
        { type: 'dca.pause', at: T0 },
        { type: 'dca.resume', at: T0 + 1 },
      ]).snapshot.value,
    ).toBe('active');
    expect(
      walk([
        { type: 'dca.pause', at: T0 },
        { type: 'dca.delete', at: T0 + 1 },
      ]).snapshot.value,
    ).toBe('deleted');
    expect(walk([{ type: 'dca.delete', at: T0 }]).snapshot.status).toBe('done');
  });

  it('pauses itself after the configured failures in a row and says so; a buy in between resets the count', () => {
    const reset = walk([fail(1), fail(2), buy(3), fail(4), fail(5)]);
    expect(reset.snapshot.value).toBe('active');
    const { snapshot, emitted } = walk([fail(1), fail(2), fail(3)]);
    expect(snapshot.value).toBe('paused');
    expect(emitted.at(-1)).toEqual({
      type: 'dca.failed',
      strategy: 'sol',
      reason: 'Insufficient balance for requested swap amount',
      failuresInRow: 3,
      paused: true,
    });
    expect(emitted[0]).toMatchObject({ paused: false, failuresInRow: 1 });
    const resumed = walk([fail(1), fail(2), fail(3), { type: 'dca.resume', at: T0 + 10 * MINUTE }]);
    expect(resumed.snapshot.context.failuresInRow).toBe(0);
  });

  it('completes at maxBuys or maxSpend, and can still be deleted', () => {
    expect(walk([buy(1), buy(2)], { maxBuys: 2 }).snapshot.value).toBe('completed');
    // 10 a buy: after one buy the next would pass 15, so it completes; at 25 two buys fit.
    expect(walk([buy(1)], { maxSpend: '15' }).snapshot.value).toBe('completed');
    expect(walk([buy(1)], { maxSpend: '25' }).snapshot.value).toBe('active');
    expect(walk([buy(1), buy(2)], { maxSpend: '25' }).snapshot.value).toBe('completed');
    // A buy already in flight when it completed still counts.
    expect(walk([buy(1), buy(2), buy(3)], { maxBuys: 2 }).snapshot.context.buys).toBe(3);
    expect(walk([buy(1), buy(2), { type: 'dca.delete', at: T0 + 5 * MINUTE }], { maxBuys: 2 }).snapshot.value).toBe('deleted');
  });

  it('a limit reached without a buy completes it on dca.finish (end passed, next buy past maxSpend), active or paused; otherwise it changes nothing', () => {
    const finish = (n: number): DcaStrategyEvent => ({ type: 'dca.finish', at: T0 + n * MINUTE });
    const endAt = T0 + 3 * MINUTE;
    expect(walk([buy(1), finish(3)], { endAt }).snapshot).toMatchObject({ value: 'completed', context: { buys: 1, updatedAt: endAt } });
    expect(walk([{ type: 'dca.pause', at: T0 + MINUTE }, finish(4)], { endAt }).snapshot.value).toBe('completed');
    expect(walk([finish(1)], { maxSpend: '5' }).snapshot.value).toBe('completed');
    expect(walk([finish(2)], { endAt }).snapshot.value).toBe('active');
    expect(walk([buy(1), finish(10)]).snapshot.value).toBe('active');
  });

  it('counts a skipped tick (missed while down, catchUp off) without buying', () => {
    // Down from minute 2 to 20: the missed tick of minute 3 is skipped and covers everything until 20.
    const { snapshot } = walk([
      { type: 'dca.skipped', at: T0 + 20 * MINUTE, dueAt: T0 + 3 * MINUTE, coversUntil: T0 + 20 * MINUTE, reason: 'missed' },
      buy(4),
      buy(21),
    ]);
    expect(snapshot.context).toMatchObject({ skipped: 1, buys: 1, coveredUntil: T0 + 20 * MINUTE });
  });

  it('ticks finishing out of order both count; each only once', () => {
    const { snapshot } = walk([buy(2), buy(1), buy(2), buy(1)]);
    expect(snapshot.context).toMatchObject({ buys: 2, recentDueAts: [T0 + MINUTE, T0 + 2 * MINUTE] });
  });

  it('remembers a bounded number of ticks; one older than all of a full memory is taken as handled', () => {
    const events = Array.from({ length: RECENT_TICKS + 5 }, (_, i) => buy(i + 1));
    const { snapshot } = walk(events);
    expect(snapshot.context.recentDueAts).toHaveLength(RECENT_TICKS);
    expect(tickHandled(snapshot.context, T0 + MINUTE)).toBe(true);
    expect(tickHandled(snapshot.context, T0 + (RECENT_TICKS + 6) * MINUTE)).toBe(false);
  });

  it('migrates a version 1 snapshot: its high-water mark becomes the catch-up watermark', () => {
    const v1 = { value: 'active', status: 'active', context: { ...input, buys: 3, lastDueAt: T0 + 3 * MINUTE } };
    const migrated = dcaStrategyDefinition.migrations![1]!(v1 as never);
    expect(migrated.context).toMatchObject({ buys: 3, coveredUntil: T0 + 3 * MINUTE, recentDueAts: [] });
    expect(migrated.context).not.toHaveProperty('lastDueAt');
  });

  it('an order unconfirmed at the end of its tick takes the tick and counts when it settles, once', () => {
    const pending = walk([fail(1), submitted(2)]);
    expect(pending.snapshot.context).toMatchObject({ buys: 0, failures: 1, failuresInRow: 1, inFlight: ['ord_2'], lastOrderId: 'ord_2' });
    expect(tickHandled(pending.snapshot.context, T0 + 2 * MINUTE)).toBe(true);
    expect(pending.emitted).toHaveLength(1); // only the failure of minute 1
    const { snapshot, emitted } = walk([fail(1), submitted(2), buy(2), settledBuy(2), settledBuy(2)]);
    expect(snapshot.context).toMatchObject({ buys: 1, failuresInRow: 0, inFlight: [], spentBase: '10000000' });
    expect(emitted.at(-1)).toEqual({
      type: 'dca.executed',
      strategy: 'sol',
      orderId: 'ord_2',
      amount: '10000000',
      price: '151.51515151',
      buys: 1,
    });
    // A report of an order the strategy is not waiting for changes nothing.
    expect(walk([settledBuy(5)]).snapshot.context.buys).toBe(0);
  });

  it('a settled failure counts towards the pause; a settled buy completes at the limits, also after a pause', () => {
    const paused = walk([fail(1), fail(2), submitted(3), settledFailure(3)]);
    expect(paused.snapshot.value).toBe('paused');
    expect(paused.snapshot.context).toMatchObject({ failuresInRow: 3, inFlight: [], lastError: 'Transaction expired' });
    expect(walk([buy(1), submitted(2), settledBuy(2)], { maxBuys: 2 }).snapshot.value).toBe('completed');
    const whilePaused = walk([submitted(1), { type: 'dca.pause', at: T0 + 2 * MINUTE }, settledBuy(1)]);
    expect(whilePaused.snapshot).toMatchObject({ value: 'paused', context: { buys: 1, inFlight: [] } });
  });

  it('migrates a version 2 snapshot: nothing in flight', () => {
    const v2 = { value: 'active', status: 'active', context: { ...input, buys: 3, recentDueAts: [T0], coveredUntil: 0 } };
    expect(dcaStrategyDefinition.migrations![2]!(v2 as never).context).toMatchObject({ buys: 3, recentDueAts: [T0], inFlight: [] });
  });

  it('rehydrates from its persisted snapshot with its counters', () => {
    const first = walk([buy(1), fail(2)]);
    const { actor } = startActor(dcaStrategyMachine, input, JSON.parse(JSON.stringify(first.actor.getPersistedSnapshot())));
    expect(actor.getSnapshot().context).toMatchObject({ buys: 1, failuresInRow: 1 });
    actor.send(buy(3));
    expect(actor.getSnapshot().context).toMatchObject({ buys: 2, failuresInRow: 0 });
  });

  it('a strategy the approval rule holds starts pending_approval: no tick counts, approval makes it active and approved', () => {
    const { snapshot, actor } = walk(
      [
        { type: 'dca.pause', at: T0 + 1 },
        { type: 'dca.resume', at: T0 + 2 },
      ],
      { holdReason: 'a buy of $300.00 is over the approval size of $10' },
    );
    // Pausing and resuming cannot turn it active behind the approval.
    expect(snapshot.value).toBe('pending_approval');
    expect(snapshot.context).toMatchObject({ buys: 0, failures: 0, holdReason: 'a buy of $300.00 is over the approval size of $10' });
    expect(snapshot.context.approvedAt).toBeUndefined();
    actor.send({ type: 'dca.approve', at: T0 + 5, by: 'manage' });
    expect(actor.getSnapshot().value).toBe('active');
    expect(actor.getSnapshot().context).toMatchObject({ approvedAt: T0 + 5, approvedBy: 'manage' });
    actor.send(buy(3));
    expect(actor.getSnapshot().context.buys).toBe(1);
  });

  it('without a hold reason it starts active; approve is only taken while pending', () => {
    const { snapshot } = walk([{ type: 'dca.approve', at: T0 + 5, by: 'manage' }]);
    expect(snapshot.value).toBe('active');
    expect(snapshot.context.approvedAt).toBeUndefined();
  });

  it('a tick the approval rule holds sends an unapproved strategy back to pending_approval as a skipped tick, not a failure', () => {
    const hold: DcaStrategyEvent = {
      type: 'dca.hold',
      at: T0 + MINUTE + 50,
      dueAt: T0 + MINUTE,
      reason: 'the order profile approves no trade automatically (autoApprove off)',
    };
    const { snapshot } = walk([hold]);
    expect(snapshot.value).toBe('pending_approval');
    expect(snapshot.context).toMatchObject({
      skipped: 1,
      failures: 0,
      failuresInRow: 0,
      holdReason: 'the order profile approves no trade automatically (autoApprove off)',
      recentDueAts: [T0 + MINUTE],
    });
    // An approved strategy's buys are approved: a hold does not apply to it.
    const approved = walk([
      { type: 'dca.hold', at: T0 + 10, dueAt: T0, reason: 'x' },
      { type: 'dca.approve', at: T0 + 20, by: 'trade' },
      hold,
    ]);
    expect(approved.snapshot.value).toBe('active');
    expect(approved.snapshot.context.skipped).toBe(1);
  });

  it('pending_approval: its end completes it, deleting it works, and an order already in flight still counts', () => {
    const held = (over: Partial<DcaStrategyInput> = {}) =>
      walk([submitted(1), { type: 'dca.hold', at: T0 + 2 * MINUTE, dueAt: T0 + 2 * MINUTE, reason: 'held' }], over);
    const { actor } = held({ endAt: T0 + 10 * MINUTE });
    actor.send(settledBuy(1));
    expect(actor.getSnapshot().context).toMatchObject({ buys: 1, inFlight: [] });
    actor.send({ type: 'dca.finish', at: T0 + 5 * MINUTE }); // before the end: nothing
    expect(actor.getSnapshot().value).toBe('pending_approval');
    actor.send({ type: 'dca.finish', at: T0 + 10 * MINUTE });
    expect(actor.getSnapshot().value).toBe('completed');
    const deleted = held();
    deleted.actor.send({ type: 'dca.delete', at: T0 + 3 * MINUTE });
    expect(deleted.actor.getSnapshot().value).toBe('deleted');
  });

  it('skipped ticks (agent paused, trading off) are no failures: the strategy never pauses itself for them', () => {
    const skip = (n: number): DcaStrategyEvent => ({
      type: 'dca.skipped',
      at: T0 + n * MINUTE + 50,
      dueAt: T0 + n * MINUTE,
      reason: 'the agent is paused',
    });
    const { snapshot } = walk([fail(1), fail(2), skip(3), skip(4), skip(5), skip(6)]);
    expect(snapshot.value).toBe('active');
    expect(snapshot.context).toMatchObject({ skipped: 4, failures: 2, failuresInRow: 2 });
  });

  it('a version 3 document (no approval fields) rehydrates as it was: active, never approved, its ticks then meet the approval rule', () => {
    const v3 = walk([buy(1)]).actor.getPersistedSnapshot();
    const persisted = decodeActorDocument(dcaStrategyDefinition, 'dca_1', { machineVersion: 3, snapshot: JSON.parse(JSON.stringify(v3)) });
    const { actor } = startActor(dcaStrategyMachine, input, persisted);
    expect(actor.getSnapshot().value).toBe('active');
    expect(actor.getSnapshot().context).toMatchObject({ buys: 1 });
    expect(actor.getSnapshot().context.approvedAt).toBeUndefined();
    actor.send({ type: 'dca.hold', at: T0 + 2 * MINUTE + 50, dueAt: T0 + 2 * MINUTE, reason: 'held' });
    expect(actor.getSnapshot().value).toBe('pending_approval');
    // And a paused v3 strategy stays paused.
    const paused = walk([{ type: 'dca.pause', at: T0 + 1 }]).actor.getPersistedSnapshot();
    const restored = startActor(
      dcaStrategyMachine,
      input,
      decodeActorDocument(dcaStrategyDefinition, 'dca_1', { machineVersion: 3, snapshot: JSON.parse(JSON.stringify(paused)) }),
    );
    expect(restored.actor.getSnapshot().value).toBe('paused');
  });

  it('a version 4 strategy looks for former order names until its first counted tick, plus an hour; a new one never does', () => {
    const fresh = walk([buy(1)]);
    expect(formerOrderNameMayExist(fresh.snapshot.context, T0)).toBe(false);
    expect(fresh.snapshot.context).not.toHaveProperty('formerOrderNamesUntil');
    const v4 = walk([buy(1)]).actor.getPersistedSnapshot();
    const persisted = decodeActorDocument(dcaStrategyDefinition, 'dca_1', { machineVersion: 4, snapshot: JSON.parse(JSON.stringify(v4)) });
    const { actor } = startActor(dcaStrategyMachine, input, persisted);
    // Any tick of its may still be in flight under the former name, however late it is delivered.
    expect(formerOrderNameMayExist(actor.getSnapshot().context, T0 + 10_000 * MINUTE)).toBe(true);
    actor.send(buy(2));
    // Written as version 5 now: former builds start no tick after this, so only ticks due within the margin may have one.
    expect(actor.getSnapshot().context.formerOrderNamesUntil).toBe(T0 + 2 * MINUTE + 50 + 60 * MINUTE);
    expect(formerOrderNameMayExist(actor.getSnapshot().context, T0 + 2 * MINUTE)).toBe(true);
    expect(formerOrderNameMayExist(actor.getSnapshot().context, T0 + 63 * MINUTE)).toBe(false);
    // A tick redelivered late (BullMQ) within the margin keeps the bound; one due after it drops the field.
    actor.send(buy(1, { dueAt: T0 + 1.5 * MINUTE }));
    expect(actor.getSnapshot().context.formerOrderNamesUntil).toBe(T0 + 2 * MINUTE + 50 + 60 * MINUTE);
    actor.send(buy(70));
    expect(actor.getSnapshot().context.formerOrderNamesUntil).toBeUndefined();
    expect(formerOrderNameMayExist(actor.getSnapshot().context, T0 + 2 * MINUTE)).toBe(false);
  });

  it('a pending_approval strategy rehydrates waiting, and approval still works after restore', () => {
    const first = walk([], { holdReason: 'held' });
    const { actor } = startActor(dcaStrategyMachine, input, JSON.parse(JSON.stringify(first.actor.getPersistedSnapshot())));
    expect(actor.getSnapshot().value).toBe('pending_approval');
    actor.send({ type: 'dca.approve', at: T0 + 5, by: 'manage' });
    expect(actor.getSnapshot().value).toBe('active');
  });
});
