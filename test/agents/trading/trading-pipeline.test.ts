import { beforeEach, describe, expect, it } from 'vitest';
import { fromBaseUnits } from '../../../kernel/vocabulary/amounts.js';
import { interpret } from '../../../agents/chat/command-interpreter.js';
import { TradingCommand } from '../../../agents/chat/trading-command.js';
import { attemptOrderId } from '../../../kernel/vocabulary/ids.js';
import { SEND_WINDOW_MS, STALE_ORDER_MESSAGE } from '../../../agents/trading/trading-pipeline.js';
import type { OrderContext } from '../../../machines/order.machine.js';
import { AppError, isAppError } from '../../../kernel/errors/app-error.js';
import type { ExecuteRequest, VenuePort } from '../../../kernel/ports/venue.port.js';
import {
  BONK,
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

const request = buyRequest;

/** A funded harness whose venue refuses its first send with an open breaker (nothing sent), then trades. */
async function breakerOpenOnce() {
  let refuse = true;
  const flaky = await tradingHarness({
    venue: (paper) =>
      overridingVenue(paper, {
        execute: async (req) => {
          if (!refuse) return paper.execute(req);
          refuse = false;
          throw new AppError('CIRCUIT_BREAKER_OPEN', 'Circuit breaker open for provider: paper', { retryAfterSeconds: 60 });
        },
      }),
  });
  await flaky.fund(SOL, '10000000000');
  return flaky;
}

/** Counts executions that reach the venue, per client order id. */
function counting(calls: Map<string, number>) {
  return (inner: VenuePort): VenuePort =>
    overridingVenue(inner, {
      execute: (req: ExecuteRequest) => {
        calls.set(req.clientOrderId, (calls.get(req.clientOrderId) ?? 0) + 1);
        return inner.execute(req);
      },
    });
}

describe('trading pipeline', () => {
  let h: TradingHarness;
  const calls = new Map<string, number>();

  beforeEach(async () => {
    calls.clear();
    h = await tradingHarness({ venue: counting(calls) });
    await h.fund(SOL, '10000000000');
    await h.fund(USDC, '1000000000');
  });

  it('fills an auto-approved order: submitting persisted first, fill booked, events published in order', async () => {
    const order = await h.pipeline.place(request());
    expect(order).toMatchObject({ status: 'filled', amountIn: '1000000000', inputMint: SOL, outputMint: BONK, venue: 'paper' });
    const journal = await h.store.readJournal('actors.order', order.order_id, { limit: 10 });
    expect(journal.map((entry) => entry.state)).toEqual(['submitting', 'filled']);
    const positions = await h.positions.list(SUBJECT);
    // Funded at the venue directly (not booked), so the sold leg closes at zero rather than going negative.
    expect(positions.find((p) => p.token === SOL)?.amountBase).toBe('0');
    expect(positions.find((p) => p.token === BONK)?.amountBase).toBe(order.filledOut);
    await h.runtime.settled(); // events go out once durable, as a surface waits before answering
    expect(h.events.map((e) => e.type)).toEqual(expect.arrayContaining(['order.created', 'order.updated', 'position.updated']));
    const types = h.events.map((e) => e.type);
    expect(types.indexOf('order.created')).toBeLessThan(types.lastIndexOf('order.updated'));
  });

  it('books a buy at what was paid: fee and price impact are cost of the bought token, the token spent realizes nothing', async () => {
    await h.positions.bookDeposit(SUBJECT, 'faucet:usdc', {
      chain: 'solana',
      token: USDC,
      symbol: 'USDC',
      decimals: 6,
      amount: 1_000_000_000n,
      priceUsd: 1,
    });
    const order = await h.pipeline.place(request({ inputToken: 'USDC', outputToken: 'BONK', amount: { kind: 'whole', value: '100' } }));
    expect(order.status).toBe('filled');
    const positions = await h.positions.list(SUBJECT);
    const usdc = positions.find((p) => p.token === USDC)!;
    const bonk = positions.find((p) => p.token === BONK)!;
    expect(usdc).toMatchObject({ amount: '900', costBasisUsd: 900 });
    expect(usdc.realizedPnlUsd).toBeCloseTo(0, 9);
    expect(bonk.costBasisUsd).toBeCloseTo(100, 9);
    // Fee and price impact then show as unrealized PnL on BONK: value below cost, realized + unrealized = the change in value.
    const bonkValue = Number(bonk.amount) * (await h.venue.priceUsd('solana', BONK))!;
    expect(bonkValue).toBeLessThan(bonk.costBasisUsd);
  });

  it.each(['sell', 'swap'] as const)(
    'books a %s into a stablecoin at what was received: its fee and price impact are realized with the sale, not left on the proceeds',
    async (side) => {
      const sol = (await h.venue.priceUsd('solana', SOL))!;
      await h.positions.bookDeposit(SUBJECT, 'faucet:sol', {
        chain: 'solana',
        token: SOL,
        symbol: 'SOL',
        decimals: 9,
        amount: 10_000_000_000n,
        priceUsd: sol,
      });
      const order = await h.pipeline.place(
        request({ side, inputToken: 'SOL', outputToken: 'USDC', amount: { kind: 'whole', value: '1' } }),
      );
      expect(order.status).toBe('filled');
      const positions = await h.positions.list(SUBJECT);
      const soldFor = Number(positions.find((p) => p.token === USDC)!.amount);
      expect(positions.find((p) => p.token === USDC)!.costBasisUsd).toBeCloseTo(soldFor, 6); // proceeds at their value: no loss parked on USDC
      expect(positions.find((p) => p.token === SOL)!.realizedPnlUsd).toBeCloseTo(soldFor - sol, 6); // fee and impact realized: below zero
      expect(soldFor).toBeLessThan(sol);
    },
  );
  it('holds an order above the approval size, schedules its expiry, and approves it', async () => {
    h.state.config = { ...h.state.config, defaultOrderProfile: { ...h.state.config.defaultOrderProfile, approvalAboveUsd: 50 } };
    const pending = await h.pipeline.place(request());
    expect(pending.status).toBe('pending_approval');
    expect(h.jobs).toEqual([
      expect.objectContaining({ jobId: `order-expire:${pending.order_id}`, runAt: Date.parse(pending.approvalExpiresAt!) }),
    ]);
    expect(calls.size).toBe(0);
    const approved = await h.pipeline.approve(SUBJECT, pending.order_id);
    expect(approved.status).toBe('filled');
    expect(h.cancelled).toEqual([`order-expire:${pending.order_id}`]);
    await expect(h.pipeline.approve(SUBJECT, pending.order_id)).rejects.toMatchObject({ kind: 'conflict' });
    await expect(h.pipeline.approve({ type: 'agent', id: 'someone-else' }, pending.order_id)).rejects.toMatchObject({
      kind: 'not_found',
      message: 'Order not found',
    });
  });

  it('an approval re-checks the balance: spent meanwhile, the order fails and nothing is sent', async () => {
    h.state.config = { ...h.state.config, defaultOrderProfile: { ...h.state.config.defaultOrderProfile, autoApprove: false } };
    const pending = await h.pipeline.place(request({ amount: { kind: 'whole', value: '6' } }));
    h.state.config = { ...h.state.config, defaultOrderProfile: { ...h.state.config.defaultOrderProfile, autoApprove: true } };
    await h.pipeline.place(request({ amount: { kind: 'whole', value: '6' } }));
    await expect(h.pipeline.approve(SUBJECT, pending.order_id)).rejects.toMatchObject({
      message: 'Insufficient balance for requested swap amount',
    });
    expect(((await h.runtime.get({ type: 'order', id: pending.order_id }))!.context as OrderContext).status).toBe('failed');
    expect(calls.get(pending.order_id)).toBeUndefined();
  });

  it('two approvals of one order at once: one sends it, the other is refused; the venue sees it once', async () => {
    h.state.config = { ...h.state.config, defaultOrderProfile: { ...h.state.config.defaultOrderProfile, autoApprove: false } };
    const pending = await h.pipeline.place(request());
    const outcomes = await Promise.allSettled([
      h.pipeline.approve(SUBJECT, pending.order_id),
      h.pipeline.approve(SUBJECT, pending.order_id),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect(outcomes.find((o) => o.status === 'rejected')).toMatchObject({ reason: { code: 'ORDER_NOT_APPROVABLE' } });
    expect(calls.get(pending.order_id)).toBe(1);
  });

  it('an approval and a cancel at once: the order takes one; the other is a 409, and a cancelled order is never sent', async () => {
    h.state.config = { ...h.state.config, defaultOrderProfile: { ...h.state.config.defaultOrderProfile, autoApprove: false } };
    const outcomes: string[] = [];
    for (let i = 0; i < 8; i++) {
      const pending = await h.pipeline.place(request());
      // Alternate who starts first, so both orders of arrival are tried.
      const racers = [() => h.pipeline.approve(SUBJECT, pending.order_id), () => h.pipeline.cancel(SUBJECT, pending.order_id)];
      const [approved, cancelled] =
        i % 2
          ? await Promise.allSettled(racers.map((run) => run()))
          : (await Promise.allSettled([...racers].reverse().map((run) => run()))).reverse();
      const status = ((await h.runtime.get({ type: 'order', id: pending.order_id }))!.context as OrderContext).status;
      if (approved!.status === 'fulfilled') {
        expect([cancelled, status, calls.get(pending.order_id)]).toEqual([
          expect.objectContaining({ reason: expect.objectContaining({ kind: 'conflict' }) }),
          'filled',
          1,
        ]);
      } else {
        expect([approved!.reason.kind, cancelled!.status, status, calls.get(pending.order_id)]).toEqual([
          'conflict',
          'fulfilled',
          'cancelled',
          undefined,
        ]);
        expect(h.cancelled).toContain(`order-expire:${pending.order_id}`);
      }
      outcomes.push(status);
    }
    expect(outcomes.every((status) => status === 'filled' || status === 'cancelled')).toBe(true);
  });

  it('a cancel landing inside an approval: after `approved` it wins and nothing is sent; after `submitting` it is refused and the order fills', async () => {
    h.state.config = { ...h.state.config, defaultOrderProfile: { ...h.state.config.defaultOrderProfile, autoApprove: false } };
    const send = h.runtime.send.bind(h.runtime);
    const cancelAfter = async (step: 'order.approve' | 'order.submit') => {
      const pending = await h.pipeline.place(request());
      let cancel: Promise<unknown> | undefined;
      h.runtime.send = async (address, event) => {
        const result = await send(address, event);
        // The cancel runs to its end before the approval goes on from that step.
        if (event.type === step && !cancel) {
          cancel = h.pipeline.cancel(SUBJECT, pending.order_id).then(
            (view) => view,
            (error: unknown) => error,
          );
          await cancel;
        }
        return result;
      };
      try {
        const approval = await h.pipeline.approve(SUBJECT, pending.order_id).then(
          (view) => view,
          (error: unknown) => error,
        );
        return { orderId: pending.order_id, approval, cancel: await cancel };
      } finally {
        h.runtime.send = send;
      }
    };
    const early = await cancelAfter('order.approve');
    expect(early.cancel).toMatchObject({ status: 'cancelled' });
    expect(early.approval).toMatchObject({
      kind: 'conflict',
      message: `Order ${early.orderId} is not pending approval (status: cancelled)`,
    });
    expect(calls.get(early.orderId)).toBeUndefined();
    const late = await cancelAfter('order.submit');
    expect(late.cancel).toMatchObject({
      kind: 'conflict',
      code: 'ORDER_NOT_CANCELLABLE',
      message: `Order ${late.orderId} cannot be cancelled (status: submitting)`,
    });
    expect(late.approval).toMatchObject({ status: 'filled' });
    expect(calls.get(late.orderId)).toBe(1);
  });

  it('a swap is three atomic commits and no other write: order with its daily volume; paper fill with balances; order filled with its positions', async () => {
    h.state.config = { ...h.state.config, riskPolicy: { ...h.state.config.riskPolicy, dailyVolumeUsd: 1e9 } };
    const writes = recordWrites(h);
    const order = await h.pipeline.place(request());
    expect(order.status).toBe('filled');
    expect(writes).toEqual([
      'commit actors.order + trading.daily-volume',
      'commit paper.fills + paper.balances',
      'commit actors.order + trading.positions + trading.positions',
    ]);
    // The spend reservation is the delegate wallet's (a fake here, counted in state.spend).
    expect(h.state.spend.reserved).toBeCloseTo(Number(order.valueUsd), 1);
  });

  it('concurrent swaps of one account queue for its shared records instead of racing for them: none retries, none gives up', async () => {
    h.state.config = { ...h.state.config, riskPolicy: { ...h.state.config.riskPolicy, dailyVolumeUsd: 1e9 } };
    const counted = countConflicts(h);
    const orders = await Promise.all(
      Array.from({ length: 40 }, () => h.pipeline.place(request({ amount: { kind: 'whole', value: '0.1' } }))),
    );
    expect(orders.every((order) => order.status === 'filled')).toBe(true);
    expect(counted.conflicts).toBe(0);
  });

  it('daily volume: a refused order gives back nothing it did not take, so the limit holds', async () => {
    const sol = await h.venue.priceUsd('solana', SOL);
    h.state.config = { ...h.state.config, riskPolicy: { ...h.state.config.riskPolicy, dailyVolumeUsd: sol! * 2.5 } };
    await h.pipeline.place(request());
    await h.pipeline.place(request());
    for (let i = 0; i < 3; i++) await expect(h.pipeline.place(request())).rejects.toMatchObject({ code: 'RISK_LIMIT_EXCEEDED' });
    expect(calls.size).toBe(2);
  });

  it('daily volume counts in micro-dollars: an order landing exactly on the limit fills, one base unit over is refused, and sub-cent orders count', async () => {
    expect(await h.venue.priceUsd('solana', USDC)).toBe(1);
    h.state.config = { ...h.state.config, riskPolicy: { ...h.state.config.riskPolicy, dailyVolumeUsd: 100 } };
    const usdc = (value: string) => request({ inputToken: 'USDC', outputToken: 'SOL', amount: { kind: 'whole', value } });
    // 1.37 + 69.37 + 29.26 is a hair over 100 as floats.
    for (const value of ['1.37', '69.37', '29.26']) expect(await h.pipeline.place(usdc(value))).toMatchObject({ status: 'filled' });
    await expect(h.pipeline.place(usdc('0.004'))).rejects.toMatchObject({
      code: 'RISK_LIMIT_EXCEEDED',
      message: 'Order would exceed the daily volume limit of $100.00 (risk policy; $100.00 used today)',
    });

    const fresh = await tradingHarness();
    await fresh.fund(USDC, '1000000000');
    fresh.state.config = { ...fresh.state.config, riskPolicy: { ...fresh.state.config.riskPolicy, dailyVolumeUsd: 100 } };
    await expect(fresh.pipeline.place(usdc('100.000001'))).rejects.toMatchObject({ code: 'RISK_LIMIT_EXCEEDED' });
    // Orders under half a cent were $0.00 and passed a spent limit for ever.
    // (Two base units: one pays the pool's fee, which rounds up, and one buys a few lamports.)
    for (const value of ['33.333333', '33.333333', '33.333332']) await fresh.pipeline.place(usdc(value));
    expect(await fresh.pipeline.place(usdc('0.000002'))).toMatchObject({ status: 'filled', valueUsd: '0.00' });
    await expect(fresh.pipeline.place(usdc('0.000002'))).rejects.toMatchObject({ code: 'RISK_LIMIT_EXCEEDED' });
  });

  it('a held order worth under half a cent is still priced when approved (it was $0.00, read as no price)', async () => {
    h.state.config = {
      ...h.state.config,
      riskPolicy: { ...h.state.config.riskPolicy, maxOrderUsd: 50 },
      defaultOrderProfile: { ...h.state.config.defaultOrderProfile, autoApprove: false },
    };
    const pending = await h.pipeline.place(request({ inputToken: 'USDC', outputToken: 'SOL', amount: { kind: 'whole', value: '0.004' } }));
    expect(pending).toMatchObject({ status: 'pending_approval', valueUsd: '0.00' });
    expect(await h.pipeline.approve(SUBJECT, pending.order_id)).toMatchObject({ status: 'filled' });
  });

  it('daily volume counts an order on the UTC day it is sent: held orders approved after midnight count on the new day', async () => {
    const sol = await h.venue.priceUsd('solana', SOL);
    const profile = (autoApprove: boolean) => ({ ...h.state.config.defaultOrderProfile, autoApprove });
    h.state.config = {
      ...h.state.config,
      riskPolicy: { ...h.state.config.riskPolicy, dailyVolumeUsd: sol! * 2.5 },
      defaultOrderProfile: profile(false),
    };
    const midnight = Math.ceil(h.clock.now() / 86_400_000) * 86_400_000;
    h.clock.jumpTo(midnight - 60_000);
    const held = [await h.pipeline.place(request()), await h.pipeline.place(request())];
    h.clock.jumpTo(midnight + 60_000);
    h.state.config = { ...h.state.config, defaultOrderProfile: profile(true) };
    await h.pipeline.place(request());
    await h.pipeline.place(request());
    for (const order of held)
      await expect(h.pipeline.approve(SUBJECT, order.order_id)).rejects.toMatchObject({ code: 'RISK_LIMIT_EXCEEDED' });
    expect(calls.size).toBe(2);
  });

  it('the same order id twice (idempotent retry) places one order and executes once', async () => {
    const first = await h.pipeline.place(request(), { orderId: 'ord_fixed' });
    const second = await h.pipeline.place(request(), { orderId: 'ord_fixed' });
    expect(second).toEqual(first);
    const racing = await Promise.all(
      Array.from({ length: 10 }, () => h.pipeline.place(request(), { orderId: 'ord_race' }).catch((e: unknown) => e)),
    );
    expect(new Set(racing.filter((r) => !isAppError(r)).map((r) => (r as { order_id: string }).order_id))).toEqual(new Set(['ord_race']));
    expect(calls.get('ord_fixed')).toBe(1);
    expect(calls.get('ord_race')).toBe(1);
  });

  it('reconciles an order a crash left in submitting: executes it once; a second pass changes nothing', async () => {
    const order = await createSubmitting(h, 'ord_crashed');
    const settled = await h.pipeline.reconcile(order);
    expect(settled.status).toBe('filled');
    expect(calls.get('ord_crashed')).toBe(1);
    await h.pipeline.reconcile(order);
    expect(calls.get('ord_crashed')).toBe(1);
  });

  it('does not send an order the venue never saw once its send window has passed: it fails and nothing moves', async () => {
    const order = await createSubmitting(h, 'ord_stale');
    const before = await h.paper.balances('solana', h.wallet.address);
    h.clock.jumpTo(h.clock.now() + SEND_WINDOW_MS + 1);
    const refused = await h.pipeline.reconcile(order).catch((error: unknown) => error);
    expect(refused).toMatchObject({
      kind: 'unprocessable',
      message: `Order failed: ${STALE_ORDER_MESSAGE}`,
      details: { order_id: 'ord_stale', status: 'failed' },
    });
    expect(calls.get('ord_stale')).toBeUndefined();
    expect((await h.runtime.get({ type: 'order', id: 'ord_stale' }))?.context).toMatchObject({
      status: 'failed',
      reason: STALE_ORDER_MESSAGE,
    });
    expect(await h.paper.balances('solana', h.wallet.address)).toEqual(before);
    // A retry of the same id answers with the same failure; still nothing is sent.
    await expect(h.pipeline.place(request(), { orderId: 'ord_stale' })).rejects.toMatchObject({
      message: `Order failed: ${STALE_ORDER_MESSAGE}`,
    });
    expect(calls.get('ord_stale')).toBeUndefined();
  });

  it('reconciles an order the venue already filled without sending it again', async () => {
    const order = await createSubmitting(h, 'ord_filled_at_venue');
    await h.paper.execute({
      clientOrderId: order.orderId,
      chain: 'solana',
      signer: await fakeSigner(h),
      inputMint: SOL,
      outputMint: BONK,
      amountIn: order.amountIn,
      minOut: order.minOut,
      slippageBps: 100,
    });
    const settled = await h.pipeline.reconcile(order);
    expect(settled).toMatchObject({ status: 'filled' });
    expect(calls.get('ord_filled_at_venue')).toBeUndefined();
    expect((await h.positions.list(SUBJECT)).find((p) => p.token === BONK)?.amountBase).toBe(settled.filledOut);
  });

  it('a venue that keeps failing opens the breaker; the order fails and later requests get the 503', async () => {
    const broken = await tradingHarness({
      venue: (paper) =>
        new Proxy(paper, {
          get(target, property, receiver) {
            if (property === 'execute' || property === 'lookup')
              return async () => Promise.reject(new AppError('PROVIDER_UNAVAILABLE', 'Provider unavailable: paper (down)'));
            const value = Reflect.get(target, property, receiver);
            return typeof value === 'function' ? value.bind(target) : value;
          },
        }),
    });
    await broken.fund(SOL, '10000000000');
    await expect(broken.pipeline.place(request())).rejects.toMatchObject({ kind: 'unavailable' });
    expect(broken.venue.breakerState()).toBe('open');
    await expect(broken.pipeline.place(request())).rejects.toMatchObject({
      kind: 'unavailable',
      message: 'Circuit breaker open for provider: paper',
    });
  });

  it('a retry after an open breaker refused the send places a new attempt under the same key; later retries find it', async () => {
    const flaky = await breakerOpenOnce();
    await expect(flaky.pipeline.place(request(), { orderId: 'ord_key' })).rejects.toMatchObject({
      kind: 'unavailable',
      message: 'Circuit breaker open for provider: paper',
    });
    expect((await flaky.runtime.get({ type: 'order', id: 'ord_key' }))!.context as OrderContext).toMatchObject({
      status: 'failed',
      retryable: true,
    });
    expect(flaky.state.spend.released).toBe(flaky.state.spend.reserved); // nothing moved: the cap is given back
    const retried = await flaky.pipeline.place(request(), { orderId: 'ord_key' });
    // The next attempt's id has the format of every order id.
    expect(retried).toMatchObject({ order_id: attemptOrderId('ord_key', 2), status: 'filled' });
    expect(retried.order_id).toMatch(/^ord_[A-Za-z0-9_-]{24}$/);
    expect(await flaky.pipeline.place(request(), { orderId: 'ord_key' })).toEqual(retried);
    expect(flaky.state.spend.reserved - flaky.state.spend.released).toBeCloseTo(Number(retried.valueUsd), 1); // one filled order holds the cap
  });

  it('an attempt placed under its former name (`<id>.2`, the attempt ids of earlier versions) is still found by a retry: never a second trade', async () => {
    const flaky = await breakerOpenOnce();
    await expect(flaky.pipeline.place(request(), { orderId: 'ord_old' })).rejects.toMatchObject({ kind: 'unavailable' });
    // What a process of the former version placed as the second attempt.
    const legacy = await flaky.pipeline.place(request(), { orderId: 'ord_old.2' });
    expect(legacy).toMatchObject({ order_id: 'ord_old.2', status: 'filled' });
    expect(await flaky.pipeline.place(request(), { orderId: 'ord_old' })).toEqual(legacy);
    expect(await flaky.runtime.get({ type: 'order', id: attemptOrderId('ord_old', 2) })).toBeNull();
  });

  it('the command route turns an unreachable engine into the soft error `Trading servisi su anda kullanilamiyor.`', async () => {
    const down = await tradingHarness({
      venue: (paper) =>
        new Proxy(paper, {
          get(target, property, receiver) {
            if (property === 'quote')
              return async () => Promise.reject(new AppError('PROVIDER_UNAVAILABLE', 'Provider unavailable: paper (timeout)'));
            const value = Reflect.get(target, property, receiver);
            return typeof value === 'function' ? value.bind(target) : value;
          },
        }),
    });
    await down.fund(SOL, '10000000000');
    const command = new TradingCommand({
      pipeline: down.pipeline,
      queries: down.queries,
      positions: down.positions,
      status: { ...down.status, portfolio: async () => Promise.reject(new Error('unused')) },
      config: { get: async () => down.state.config },
      price: async () => 1,
      dca: { execute: async () => Promise.reject(new Error('unused')) },
    });
    const error = await command.execute(SUBJECT, interpret('buy 1 SOL of BONK')).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'TRADING_UNAVAILABLE',
      kind: 'declined',
      envelope: 'canonical',
      message: 'Trading servisi su anda kullanilamiyor.',
    });
    expect(await command.execute(SUBJECT, interpret('do a barrel roll'))).toMatchObject({
      success: true,
      intent: 'unknown',
      reply: expect.stringContaining('did not understand'),
    });
  });

  it('a percentage command sells exactly that share of the balance, and the reply says how much was sold and received', async () => {
    const command = new TradingCommand({
      pipeline: h.pipeline,
      queries: h.queries,
      positions: h.positions,
      status: { ...h.status, portfolio: async () => Promise.reject(new Error('unused')) },
      config: { get: async () => h.state.config },
      price: async () => 1,
      dca: { execute: async () => Promise.reject(new Error('unused')) },
    });
    // 10 SOL held: each share is taken of the balance at that time, to the lamport.
    const cases: Array<[string, string, string]> = [
      ['sell 0.125% of SOL for USDC', '12500000', '0.0125'], // 0.125% of 10 SOL, not 0.13%
      ["SOL'un %0,125'ini USDC'ye sat", '12484375', '0.012484375'], // 0.125% of the 9.9875 SOL left
      ['sell 0.004% of SOL for USDC', '399000', '0.000399'], // not 0 bps, so no "Insufficient balance"
    ];
    for (const [message, amountIn, sold] of cases) {
      const result = await command.execute(SUBJECT, interpret(message));
      expect(result.order, message).toMatchObject({ status: 'filled', inputMint: SOL, outputMint: USDC, amountIn });
      const received = fromBaseUnits(result.order!.filledOut!, 6);
      expect(result.reply, message).toBe(`Done: sell ${sold} SOL → ${received} USDC filled (order ${result.order!.order_id}).`);
    }
  });
});

async function fakeSigner(h: TradingHarness) {
  return {
    walletId: h.wallet.walletId,
    chain: 'solana' as const,
    address: h.wallet.address,
    withSecretKey: <T>(use: (k: Uint8Array) => Promise<T>) => use(new Uint8Array(64)),
  };
}

/** An order persisted in `submitting` whose venue call never happened (the process died first). */
async function createSubmitting(h: TradingHarness, orderId: string): Promise<OrderContext> {
  const checked = await h.safety.check(request());
  const view = await h.runtime.create('order', orderId, {
    orderId,
    subjectType: 'agent',
    subjectId: SUBJECT.id,
    chain: 'solana',
    side: 'buy',
    inputMint: checked.input.address,
    outputMint: checked.output.address,
    inputSymbol: 'SOL',
    outputSymbol: 'BONK',
    inputDecimals: 9,
    outputDecimals: 5,
    amountIn: checked.amountIn.toString(),
    expectedOut: checked.quote.expectedOut,
    minOut: checked.quote.minOut,
    slippageBps: 100,
    priceImpactBps: checked.quote.priceImpactBps,
    valueUsd: checked.valueUsd,
    venue: 'paper',
    walletId: h.wallet.walletId,
    walletAddress: h.wallet.address,
    channel: 'rest',
    checks: checked.checks,
    createdAt: h.clock.now(),
    requiresApproval: false,
  });
  return view.context as OrderContext;
}
