import { orderDefinition } from '../../../machines/order.machine.js';
import pino from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import { DCA_NAMES_COLLECTION, DcaService } from '../../../agents/dca/dca.service.js';
import { dcaOrderId } from '../../../kernel/vocabulary/ids.js';
import { OrderReconciler } from '../../../agents/trading/order-reconciler.js';
import { dcaStrategyDefinition, type DcaStrategyContext } from '../../../machines/dca-strategy.machine.js';
import type { OrderContext } from '../../../machines/order.machine.js';
import type { ExecuteRequest, VenuePort } from '../../../kernel/ports/venue.port.js';
import { SUBJECT, USDC, tradingHarness, type TradingHarness } from '../../support/trading-harness.js';

/**
 * A live venue's slow confirmation, on the paper venue: the swap happens, but `execute`
 * answers `submitted` (broadcast, not confirmed); `lookup` later says `filled`, or, with
 * `failNext`, `failed` (the transaction expired) before anything moved.
 */
function unconfirmed(control: { failNext: boolean }) {
  return (paper: VenuePort): VenuePort =>
    new Proxy(paper, {
      get(target, property, receiver) {
        if (property === 'execute') {
          return async (request: ExecuteRequest) => {
            if (control.failNext) return { status: 'submitted', txSignature: `sig-${request.clientOrderId}`, at: Date.now() };
            const result = await target.execute(request);
            return result.status === 'filled' ? { status: 'submitted', txSignature: result.txSignature, at: result.at } : result;
          };
        }
        if (property === 'lookup' && control.failNext) {
          return async () => ({ status: 'failed', reason: 'rejected', message: 'Transaction expired', at: Date.now() });
        }
        const value = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
}

describe('orders left in flight by a DCA tick', () => {
  let h: TradingHarness;
  let dca: DcaService;
  let reconciler: OrderReconciler;
  const control = { failNext: false };

  beforeEach(async () => {
    control.failNext = false;
    h = await tradingHarness({ venue: unconfirmed(control) });
    h.runtime.register(dcaStrategyDefinition);
    await h.store.init([...h.runtime.collections(), DCA_NAMES_COLLECTION]);
    await h.fund(USDC, '1000000000');
    let ids = 0;
    dca = new DcaService({
      actors: { strategies: h.runtime.collection(dcaStrategyDefinition), orders: h.runtime.collection(orderDefinition) },
      store: h.store,
      scheduler: {
        scheduleRepeating: async () => undefined,
        removeSchedule: async () => undefined,
        nextRun: async () => null,
        scheduleOnce: async () => undefined,
        cancel: async () => undefined,
      },
      pipeline: h.pipeline,
      venue: h.venue,
      config: { get: async () => h.state.config },
      status: h.status,
      clock: h.clock,
      newId: () => `s${++ids}`,
    });
    reconciler = new OrderReconciler({
      pipeline: h.pipeline,
      orders: h.runtime.collection(orderDefinition),
      strategies: dca,
      logger: pino({ level: 'silent' }),
    });
  });

  const strategy = async (id: string) => (await h.runtime.get({ type: 'dca-strategy', id }))!;
  const order = async (id: string) => (await h.runtime.get({ type: 'order', id }))!.context as OrderContext;
  const tick = async (strategyId: string, dueAt = h.clock.now()) => {
    await dca.onTick({
      id: `dca:${strategyId}`,
      kind: 'repeat',
      address: { type: 'dca-strategy', id: strategyId },
      event: { type: 'dca.tick' },
      dueAt,
    });
    return dcaOrderId(strategyId, dueAt);
  };

  it('is neither a buy nor a failure until reconciliation settles it, then counts once as a buy', async () => {
    const created = await dca.create(SUBJECT, undefined, {
      name: 'sol',
      inputToken: 'USDC',
      outputToken: 'SOL',
      amount: '10',
      interval: 'every 1 minutes',
      maxBuys: 1,
    });
    const dueAt = h.clock.now();
    const orderId = await tick(created.strategyId, dueAt);
    expect((await order(orderId)).status).toBe('submitted');
    expect((await strategy(created.strategyId)).context).toMatchObject({ buys: 0, failures: 0, inFlight: [orderId] });
    // The same tick delivered again does not buy again.
    await tick(created.strategyId, dueAt);

    await reconciler.reconcile(await order(orderId));
    await reconciler.reconcile(await order(orderId)); // a second sweep finds it settled: counted once
    expect((await order(orderId)).status).toBe('filled');
    const after = await strategy(created.strategyId);
    expect(after.state).toBe('completed'); // maxBuys 1 reached by the late confirmation
    expect(after.context as DcaStrategyContext).toMatchObject({
      buys: 1,
      failures: 0,
      inFlight: [],
      spentBase: '10000000',
      lastOrderId: orderId,
    });
    expect(BigInt((after.context as DcaStrategyContext).acquiredBase)).toBeGreaterThan(0n);
    await h.runtime.settled(); // events go out once durable
    expect(h.events.filter((event) => event.type === 'dca.executed')).toHaveLength(1);
  });

  it('counts a buy that reconciliation settled before the tick held it in flight', async () => {
    const created = await dca.create(SUBJECT, undefined, {
      name: 'sol',
      inputToken: 'USDC',
      outputToken: 'SOL',
      amount: '10',
      interval: 'every 1 minutes',
    });
    // Another process's sweep settles the order between its broadcast and the tick's report,
    // so the strategy, not yet holding it in flight, ignores that report.
    const place = h.pipeline.placeOrder.bind(h.pipeline);
    h.pipeline.placeOrder = async (...args) => {
      const placed = await place(...args);
      await reconciler.reconcile(await order(placed.order.orderId));
      return placed;
    };
    const orderId = await tick(created.strategyId);
    expect((await order(orderId)).status).toBe('filled');
    expect((await strategy(created.strategyId)).context).toMatchObject({ buys: 1, failures: 0, inFlight: [], lastOrderId: orderId });
    await h.runtime.settled(); // events go out once durable
    expect(h.events.filter((event) => event.type === 'dca.executed')).toHaveLength(1);
  });

  it('counts a failure when the broadcast order fails, and nothing else when an order has no strategy', async () => {
    const created = await dca.create(SUBJECT, undefined, {
      name: 'sol',
      inputToken: 'USDC',
      outputToken: 'SOL',
      amount: '10',
      interval: 'every 1 minutes',
    });
    control.failNext = true;
    const orderId = await tick(created.strategyId);
    await reconciler.reconcile(await order(orderId));
    expect((await order(orderId)).status).toBe('failed');
    expect((await strategy(created.strategyId)).context).toMatchObject({
      buys: 0,
      failures: 1,
      failuresInRow: 1,
      inFlight: [],
      lastError: 'Transaction expired',
    });

    control.failNext = false;
    const plain = await h.pipeline.place({
      subject: SUBJECT,
      channel: 'rest',
      chain: 'solana',
      side: 'buy',
      inputToken: 'USDC',
      outputToken: 'SOL',
      amount: { kind: 'whole', value: '1' },
    });
    await reconciler.reconcile(await order(plain.order_id));
    expect((await order(plain.order_id)).status).toBe('filled');
    expect((await strategy(created.strategyId)).context).toMatchObject({ buys: 0, failures: 1 });
  });
});
