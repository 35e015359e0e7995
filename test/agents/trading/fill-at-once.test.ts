import { beforeEach, describe, expect, it } from 'vitest';
import { BALANCES_COLLECTION, type BalanceDoc } from '../../../adapters/paper/paper-ledger.js';
import type { ExecuteRequest, PlannedFill, VenuePort } from '../../../kernel/ports/venue.port.js';
import {
  SOL,
  SUBJECT,
  USDC,
  buyRequest,
  countConflicts,
  overridingVenue,
  recordWrites,
  tradingHarness,
  type TradingHarness,
} from '../../support/trading-harness.js';

/**
 * A swap on a venue that settles in this service's store (paper) with a wallet that has no
 * cap of its own: the order's creation, its fill, the balances, the positions and the daily
 * volume are one commit. The other roads (a delegate wallet, a fill that would not be one)
 * are the trading pipeline's tests.
 */

/** Counts the venue's planned fills and sends by client order id; `planless` hides the planner. */
function observed(calls: { planned: string[]; executed: string[] }, planless = false) {
  return (inner: VenuePort): VenuePort =>
    overridingVenue(inner, {
      planFill: planless
        ? undefined
        : async (request: ExecuteRequest): Promise<PlannedFill | null> => {
            calls.planned.push(request.clientOrderId);
            return inner.planFill!(request);
          },
      execute: (request) => {
        calls.executed.push(request.clientOrderId);
        return inner.execute(request);
      },
    });
}

describe('a paper swap filled in one commit', () => {
  let h: TradingHarness;
  let calls: { planned: string[]; executed: string[] };

  beforeEach(async () => {
    calls = { planned: [], executed: [] };
    h = await tradingHarness({ walletKind: 'custodial', venue: observed(calls) });
    await h.fund(SOL, '10000000000');
    await h.fund(USDC, '1000000000');
  });

  it('writes the order, its fill, the balances, both positions and the daily volume in one commit, journaled once', async () => {
    h.state.config = { ...h.state.config, riskPolicy: { ...h.state.config.riskPolicy, dailyVolumeUsd: 1e9 } };
    const writes = recordWrites(h);
    const order = await h.pipeline.place(buyRequest());
    expect(order).toMatchObject({ status: 'filled', amountIn: '1000000000', inputMint: SOL });
    expect(writes).toEqual([
      'commit actors.order + trading.daily-volume + paper.fills + paper.balances + trading.positions + trading.positions',
    ]);
    const journal = await h.store.readJournal('actors.order', order.order_id, { limit: 10 });
    expect(journal).toHaveLength(1);
    expect(journal[0]).toMatchObject({ seq: 1, state: 'filled', event: { type: 'xstate.init', continuedWith: [{ type: 'order.fill' }] } });
    expect(calls).toEqual({ planned: [order.order_id], executed: [] });
    // The ledger moved exactly what the order says, and the positions booked it.
    const balances = await h.venue.balances('solana', h.wallet.address);
    expect(balances[SOL]).toBe((10_000_000_000n - 1_000_000_000n).toString());
    const positions = await h.positions.list(SUBJECT);
    expect(positions.find((p) => p.token === order.outputMint)?.amountBase).toBe(order.filledOut);
    // Subscribers see the order created (submitting) and then filled, as on every road.
    await h.runtime.settled();
    const orderEvents = h.events.filter((e) => e.type.startsWith('order.')).map((e) => [e.type, e.data.state]);
    expect(orderEvents).toEqual([
      ['order.created', 'submitting'],
      ['order.updated', 'filled'],
    ]);
  });

  it('a retried id is answered by its order and moves nothing again; racing calls of one id fill once', async () => {
    const first = await h.pipeline.place(buyRequest(), { orderId: 'ord_fixed' });
    const again = await h.pipeline.place(buyRequest(), { orderId: 'ord_fixed' });
    expect(again).toEqual(first);
    const racing = await Promise.all(Array.from({ length: 8 }, () => h.pipeline.place(buyRequest(), { orderId: 'ord_race' })));
    expect(new Set(racing.map((order) => `${order.order_id}:${order.status}`))).toEqual(new Set(['ord_race:filled']));
    // A retry is checked and planned again (a new trade reads no order first); its commit finds the id taken.
    expect(calls.executed).toEqual([]);
    const balances = await h.venue.balances('solana', h.wallet.address);
    expect(balances[SOL]).toBe((10_000_000_000n - 2n * 1_000_000_000n).toString());
  });

  it('a retry whose checks now refuse (its own fill spent the balance) is answered by the order it placed', async () => {
    const all = { kind: 'whole' as const, value: '10' };
    const first = await h.pipeline.place(buyRequest({ amount: all }), { orderId: 'ord_all' });
    expect(first.status).toBe('filled');
    await expect(h.pipeline.place(buyRequest({ amount: all }))).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
    expect(await h.pipeline.place(buyRequest({ amount: all }), { orderId: 'ord_all' })).toEqual(first);
  });

  it('concurrent swaps of one account queue for its records: all fill, none conflicts, the balance adds up', async () => {
    const counted = countConflicts(h);
    const orders = await Promise.all(
      Array.from({ length: 30 }, () => h.pipeline.place(buyRequest({ amount: { kind: 'whole', value: '0.1' } }))),
    );
    expect(orders.every((order) => order.status === 'filled')).toBe(true);
    expect(counted.conflicts).toBe(0);
    const balances = await h.venue.balances('solana', h.wallet.address);
    expect(balances[SOL]).toBe((10_000_000_000n - 30n * 100_000_000n).toString());
  });

  it('a fill that would not be one takes the usual road, which records its failure: the balance spent between check and fill', async () => {
    const id = `solana:${h.wallet.address}`;
    const planFill = h.paper.planFill.bind(h.paper);
    h.paper.planFill = async (request) => {
      // Another writer spends the balance after the checks read it.
      const doc = await h.store.get<BalanceDoc>(BALANCES_COLLECTION, id);
      const balances = { ...doc!.data.balances, [SOL]: '1' };
      await h.store.put(BALANCES_COLLECTION, id, { data: { ...doc!.data, balances }, expectedVersion: doc!.version });
      return planFill(request);
    };
    await expect(h.pipeline.place(buyRequest())).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
    // Planned on the checks' read (its commit lost), planned again on a fresh one (no fill), then sent as always.
    expect(calls.planned).toHaveLength(2);
    expect(calls.executed).toHaveLength(1);
    const [order] = (await h.queries.list(SUBJECT, { limit: 5 })).items;
    expect(order).toMatchObject({ status: 'failed' });
    expect((await h.venue.balances('solana', h.wallet.address))[SOL]).toBe('1');
  });

  it('without a planner (a venue that trades elsewhere) the order is on disk in `submitting` before the venue is called', async () => {
    const other = { planned: [] as string[], executed: [] as string[] };
    const live = await tradingHarness({ walletKind: 'custodial', venue: observed(other, true) });
    await live.fund(SOL, '10000000000');
    const order = await live.pipeline.place(buyRequest());
    const journal = await live.store.readJournal('actors.order', order.order_id, { limit: 10 });
    expect(journal.map((entry) => entry.state)).toEqual(['submitting', 'filled']);
    expect(other.executed).toEqual([order.order_id]);
  });
});
