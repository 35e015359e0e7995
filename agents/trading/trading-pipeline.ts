import { AppError, isAppError, isFaultKind } from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { SchedulerPort } from '../../kernel/ports/scheduler.port.js';
import type { ActorCollection, JoinedSend, JoinedWrites, SendResult, TransitionOptions } from '../../kernel/ports/actor-collection.port.js';
import type { CommitWrite } from '../../kernel/ports/store.port.js';
import type { Chain, ExecuteRequest, ExecutionResult, VenuePort, WalletSigner } from '../../kernel/ports/venue.port.js';
import type { OrderContext, OrderEvent, OrderInput } from '../../machines/order.machine.js';
import type { DailyVolume } from './daily-volume.js';
import { KeyedQueue } from './keyed-queue.js';
import { Reservations } from './money-steps.js';
import type { OrderView } from './order.types.js';
import { toOrderView } from '../../machines/order-view.js';
import { APPROVAL_WINDOW_MS, ORDER_TYPE, expiryJobId } from './order.records.js';
import { attemptOrderId, legacyAttemptOrderId } from '../../kernel/vocabulary/ids.js';
import type { PositionEvent, PositionsService } from '../portfolio/positions.service.js';
import { SAFETY_MESSAGES, type CheckedTrade, type SafetyPath, type TradeRequest } from './safety-path.js';
import type { TradingSubject } from '../portfolio/portfolio.types.js';
import type { WalletDirectory, WalletView } from '../wallets/wallet.types.js';
import type { OrderProfile, TradingConfigReader } from '../config/trading-config.types.js';
import { approvalHolds, approvalReason, mayApprove } from '../config/trading-config.rules.js';
import type { KeyScope } from '../../kernel/vocabulary/scopes.js';
import { IDEMPOTENCY_MESSAGES } from '../../kernel/errors/idempotency-messages.js';

/**
 * From a checked trade to a settled order: approval decision, the order actor, the
 * venue call and the booking of the fill. Re-entrant by order id: a request retried
 * with the same id (idempotency key, DCA tick) finds its order and finishes it instead
 * of placing another, and recovery finishes orders a crash left in flight.
 */

export interface TradingPipelineDeps {
  safety: SafetyPath;
  /** The order actors (the runtime's handle of the `order` machine). */
  orders: ActorCollection<OrderContext, OrderEvent, OrderInput>;
  venue: VenuePort;
  wallets: WalletDirectory;
  positions: PositionsService;
  volume: DailyVolume;
  scheduler: Pick<SchedulerPort, 'scheduleOnce' | 'cancel'>;
  config: TradingConfigReader;
  clock: ClockPort;
  /** A fresh order id when the request does not name one. */
  newOrderId: () => string;
}

/** Attempts one idempotency key may place after pre-send refusals that may pass. */
const MAX_ATTEMPTS = 5;
/**
 * An order the venue never saw is sent late (recovery, the sweep, a client's retry) only
 * this long after it was checked and became `submitting`: after a long outage the market
 * it was checked against is gone, and nobody is waiting for it any more.
 */
export const SEND_WINDOW_MS = 10 * 60_000;
export const STALE_ORDER_MESSAGE = 'Order expired before it reached the venue';

export interface PlaceOptions {
  /** Deterministic id (from an idempotency key or a DCA tick): the same id never trades twice. */
  orderId?: string;
  strategy?: string;
  strategyId?: string;
  /** The DCA tick's due time (epoch ms), kept on the order. */
  tickDueAt?: number;
  /**
   * A DCA buy: `approved` (an approver approved its strategy, which approves its buys: the
   * order profile's approval rule does not apply) or `unapproved` (the rule applies, and where
   * it would hold the buy no order is placed: `StrategyBuyHeld` is thrown and the strategy
   * waits for approval instead of leaving a held order behind every tick).
   */
  strategyApproval?: 'approved' | 'unapproved';
  /** What the call asked (operation and arguments), for an `orderId` derived from an idempotency key. */
  requestDigest?: string;
  /**
   * Another actor's event committed with the fill when the order fills at once (a DCA tick's
   * report of its buy), made from the order and the amount it got; its outcome is `Placed.alongside`.
   */
  alongFill?: (order: OrderContext, filledOut: string) => Omit<JoinedSend, 'taken'>;
}

/** What `placeOrder` placed: the order as committed, and the outcome of `alongFill`'s event when it rode in the fill's commit. */
export interface Placed {
  order: OrderContext;
  alongside?: SendResult;
}

export class TradingPipeline {
  /**
   * This process's commits that join an account's shared records (its daily volume at an
   * order's creation, its positions at a fill) run one at a time per account: concurrent
   * swaps of one account would otherwise all race for those documents and retry (100 at once
   * exhausted the retries). Always taken outside an order's mailbox, never inside it.
   */
  private readonly accountCommits = new KeyedQueue();

  constructor(private readonly deps: TradingPipelineDeps) {}

  /**
   * Runs the safety path and places the order; answers with the order (pending, filled...) or
   * the refusal. An id already placed (`options.orderId`: a retry, a tick delivered again) is
   * answered by its order, found when creating it finds the id taken, or when the checks
   * refuse what its own fill may have spent: a new trade reads no order first.
   */
  async place(request: TradeRequest, options: PlaceOptions = {}): Promise<OrderView> {
    return toOrderView((await this.placeOrder(request, options)).order);
  }

  /** `place` for in-process callers: the order record itself (its unrounded value, its ids), and the outcome of `alongFill`. */
  async placeOrder(request: TradeRequest, options: PlaceOptions = {}): Promise<Placed> {
    let checked: CheckedTrade;
    let input: OrderInput;
    try {
      checked = await this.deps.safety.check(request);
      input = this.orderInput(checked, options.orderId ?? this.deps.newOrderId(), options);
    } catch (error) {
      const placed = options.orderId ? await this.attemptOf(request.subject, options.orderId) : undefined;
      if (placed?.existing) return { order: await this.resume(sameRequest(placed.existing, options)) };
      throw error;
    }
    const dailyLimitUsd = checked.config.riskPolicy.dailyVolumeUsd;
    for (;;) {
      try {
        return await this.placeChecked(checked, input, dailyLimitUsd, options.alongFill);
      } catch (error) {
        if (!(isAppError(error) && error.kind === 'conflict' && options.orderId)) throw error;
        // The id is taken: by this request placed before (answer it), or by an attempt that
        // failed for a reason that may pass (place the next attempt, with the same checks).
        const attempt = await this.attemptOf(request.subject, options.orderId);
        if (attempt.existing) return { order: await this.resume(sameRequest(attempt.existing, options)) };
        if (attempt.orderId === input.orderId) throw error;
        input = { ...input, orderId: attempt.orderId };
      }
    }
  }

  /** Places a checked order under its id: held for approval, filled in one commit, or sent to the venue. */
  private async placeChecked(
    checked: CheckedTrade,
    input: OrderInput,
    dailyLimitUsd: number | undefined,
    alongFill: PlaceOptions['alongFill'],
  ): Promise<Placed> {
    if (input.requiresApproval) {
      const order = (await this.deps.orders.create(input.orderId, input)).context;
      await this.deps.scheduler.scheduleOnce({
        jobId: expiryJobId(order.orderId),
        address: { type: ORDER_TYPE, id: order.orderId },
        event: { type: 'order.expire', at: order.approvalExpiresAt! },
        runAt: order.approvalExpiresAt!,
      });
      return { order };
    }
    const filled = await this.fillAtOnce(checked, input, dailyLimitUsd, alongFill);
    if (filled) return filled;
    const { order, volumeTaken } = await this.create(checked, input, dailyLimitUsd);
    return {
      order: await this.execute(order, dailyLimitUsd, true, {
        volume: volumeTaken,
        walletKind: checked.wallet.kind,
        wallet: checked.wallet,
      }),
    };
  }

  /**
   * On a venue that settles in this store (paper): the order's creation, its fill, the
   * balances it moves, the positions it books and its share of the daily volume, as one
   * commit. Nothing can be left in flight, so there is no `submitting` on disk to reconcile,
   * and a swap pays one write transaction instead of three. Null when the fill would not be
   * one or a limit refuses it (the usual road records that outcome as it always has), and
   * for a delegate wallet (its cap is taken by a write of its own). `alongFill`'s event rides in the same commit.
   */
  private async fillAtOnce(
    checked: CheckedTrade,
    input: OrderInput,
    dailyLimitUsd: number | undefined,
    alongFill: PlaceOptions['alongFill'],
  ): Promise<Placed | null> {
    const { venue, volume } = this.deps;
    if (!venue.planFill || checked.wallet.kind === 'delegate') return null;
    const subject = checked.request.subject;
    const signer = await this.deps.wallets.signer(subject, input.walletId, checked.wallet);
    // Prices first: a join runs inside the order's mailbox and the account's queue, again after a lost CAS.
    const prices = await this.fillPrices(input);
    let alongside: SendResult | undefined;
    const join = async (order: OrderContext): Promise<JoinedWrites<OrderEvent>> => {
      const planned = await venue.planFill!(executeRequest(order, signer));
      if (!planned) throw new NotFilledAtOnce();
      const { filledOut, txSignature, at } = planned.result;
      const taken = dailyLimitUsd === undefined ? [] : [await volume.reserveWrite(subject, order.valueUsd, dailyLimitUsd, sentAt(order))];
      const booked = await this.book(order, filledOut, prices);
      return {
        writes: [...taken, ...planned.writes, ...booked.writes],
        events: booked.events,
        continueWith: [{ type: 'order.fill', at, filledOut, txSignature }],
        ...(alongFill ? { alongside: [{ ...alongFill(order, filledOut), taken: (result: SendResult) => (alongside = result) }] } : {}),
      };
    };
    try {
      const view = await this.accountCommits.run(accountKey(subject), () => this.deps.orders.create(input.orderId, input, { join }));
      return { order: view.context, ...(alongside ? { alongside } : {}) };
    } catch (error) {
      if (error instanceof NotFilledAtOnce || (isAppError(error) && error.code === 'RISK_LIMIT_EXCEEDED')) return null;
      throw error;
    }
  }

  /**
   * Approves a pending order and sends it (after re-checking what may have changed while it
   * waited). `approver`: the scope of the credential approving; below `manage`, only as the
   * order profile allows (`agentsMayApprove`), else holding orders for approval would not
   * hold back the agent that placed them.
   */
  async approve(subject: TradingSubject, orderId: string, approver: KeyScope = 'manage'): Promise<OrderView> {
    const order = await this.find(subject, orderId);
    if (!order) throw AppError.notFound('Order not found');
    if (!mayApprove((await this.deps.config.get(subject)).defaultOrderProfile, approver))
      throw AppError.scopeInsufficient('manage', approver);
    if (order.status !== 'pending_approval') throw notApprovable(order);
    // What may have changed while it waited. A refusal that may pass (an open breaker, the
    // kill switch, trading switched off) leaves the order waiting for the retry it invites;
    // any other (the balance) fails it once it is approved.
    let refusal: unknown;
    let dailyLimitUsd: number | undefined;
    try {
      const config = await this.deps.safety.recheck(subject, order);
      dailyLimitUsd = config.riskPolicy.dailyVolumeUsd;
    } catch (error) {
      if (mayPass(error)) throw error;
      refusal = error;
    }
    const approval = await this.transition(order, { type: 'order.approve', at: this.deps.clock.now() });
    // Another call approved (or expired) it first: that call sends it, this one must not.
    if (!approval.accepted) throw notApprovable(approval.order);
    await this.deps.scheduler.cancel(expiryJobId(orderId));
    // Its window had closed (the expiry job was late): the approval expired it instead.
    if (approval.order.status !== 'approved') throw notApprovable(approval.order);
    if (refusal !== undefined) {
      await this.transition(approval.order, {
        type: 'order.fail',
        at: this.deps.clock.now(),
        reason: isAppError(refusal) ? refusal.message : 'refused',
      });
      throw refusal;
    }
    const submit = await this.transition(approval.order, { type: 'order.submit', at: this.deps.clock.now() });
    if (!submit.accepted) throw notApprovable(submit.order);
    return toOrderView(await this.execute(submit.order, dailyLimitUsd));
  }

  /**
   * Cancels an order nothing was sent for yet (`pending_approval`, or `approved` before its
   * send). The order actor takes one event at a time, so a racing approval and cancel cannot
   * both win: whichever the order takes first stands, the other is a 409. Nothing needs giving
   * back: the daily volume and a delegate's cap are taken only when an order is first sent
   * (from `submitting`, which cannot be cancelled). Cancelling a cancelled order answers it as
   * it stands, so a client repeating a cancel whose answer it lost needs no idempotency key.
   */
  async cancel(subject: TradingSubject, orderId: string): Promise<OrderView> {
    const order = await this.find(subject, orderId);
    if (!order) throw AppError.notFound('Order not found');
    if (order.status === 'cancelled') return toOrderView(order);
    if (!CANCELLABLE.has(order.status)) throw notCancellable(order);
    const cancelled = await this.transition(order, { type: 'order.cancel', at: this.deps.clock.now() });
    if (!cancelled.accepted) {
      // Another call moved it first (an approval sent it, a cancel beat us, the expiry job ran).
      if (cancelled.order.status === 'cancelled') return toOrderView(cancelled.order);
      throw notCancellable(cancelled.order);
    }
    await this.deps.scheduler.cancel(expiryJobId(orderId));
    return toOrderView(cancelled.order);
  }

  /** Finishes an order a crash or a lost response left in `submitting` or `submitted`. Never sends twice. */
  async reconcile(order: OrderContext): Promise<OrderView> {
    return toOrderView(await this.finish(order));
  }

  /** `reconcile`, answering the order record. */
  private async finish(order: OrderContext): Promise<OrderContext> {
    const result = await this.deps.venue.lookup(order.orderId, order.chain as Chain);
    if (result) return this.settle(order, result);
    if (order.status !== 'submitting') return order;
    // The venue never saw it: sending now is the first send, if it is not too late. `minOut`
    // still protects the price; a kill switch turned on meanwhile still stops it.
    if (this.deps.clock.now() - order.updatedAt > SEND_WINDOW_MS) {
      const failed = await this.transition(order, { type: 'order.fail', at: this.deps.clock.now(), reason: STALE_ORDER_MESSAGE });
      // Not accepted: another process settled it first; its outcome stands.
      if (!failed.accepted) return this.resume(failed.order);
      throw failureError({ status: 'failed', reason: 'rejected', message: STALE_ORDER_MESSAGE, at: this.deps.clock.now() }, failed.order);
    }
    try {
      await this.deps.safety.assertChainOpen(order.chain as Chain);
    } catch (error) {
      // An open breaker may pass (a retry places a new attempt); a kill switch is an operator's decision.
      const retryable = isAppError(error) && error.code === 'CIRCUIT_BREAKER_OPEN';
      await this.transition(order, {
        type: 'order.fail',
        at: this.deps.clock.now(),
        reason: isAppError(error) ? error.message : 'refused',
        ...(retryable ? { retryable } : {}),
      });
      throw error;
    }
    return this.execute(order, undefined, false);
  }

  /** The order a checked trade places under `orderId`; throws `StrategyBuyHeld` for a DCA buy the approval rule would hold. */
  private orderInput(checked: CheckedTrade, orderId: string, options: PlaceOptions): OrderInput {
    const { request, config, quote, input, output, wallet } = checked;
    const now = this.deps.clock.now();
    const profile = config.defaultOrderProfile;
    const preApproved = options.strategyApproval === 'approved';
    const requiresApproval = !preApproved && approvalHolds(profile, checked);
    if (requiresApproval && options.strategyApproval === 'unapproved')
      throw new StrategyBuyHeld(profile, checked.valueUsd, checked.inputPriceUsd);
    return {
      orderId,
      subjectType: request.subject.type,
      subjectId: request.subject.id,
      ...(request.userId ? { userId: request.userId } : {}),
      chain: request.chain,
      side: request.side,
      inputMint: input.address,
      outputMint: output.address,
      inputSymbol: input.symbol,
      outputSymbol: output.symbol,
      inputDecimals: input.decimals,
      outputDecimals: output.decimals,
      amountIn: checked.amountIn.toString(),
      expectedOut: quote.expectedOut,
      minOut: quote.minOut,
      slippageBps: checked.slippageBps,
      priceImpactBps: quote.priceImpactBps,
      // Unrounded: limits count what was sent (a cent-rounded $0.004 order was $0, and unpriced); views round.
      valueUsd: checked.valueUsd,
      feeAmount: quote.feeAmount,
      venue: quote.venue,
      walletId: wallet.walletId,
      walletAddress: wallet.address,
      channel: request.channel,
      ...(request.signalSource ? { signalSource: request.signalSource } : {}),
      checks: [...checked.checks, requiresApproval ? 'approval_required' : preApproved ? 'strategy_approved' : 'auto_approved'],
      createdAt: now,
      ...(requiresApproval ? { approvalExpiresAt: now + APPROVAL_WINDOW_MS } : {}),
      ...(options.strategy ? { strategy: options.strategy } : {}),
      ...(options.strategyId ? { strategyId: options.strategyId } : {}),
      ...(options.tickDueAt !== undefined ? { tickDueAt: options.tickDueAt } : {}),
      ...(options.requestDigest ? { requestDigest: options.requestDigest } : {}),
      requiresApproval,
    };
  }

  /**
   * Creates an order sent at once (`submitting`), taking its share of the daily volume in the
   * same commit, so the order and its reservation exist together or not at all; when the
   * reservation is refused, the order is created without it and `execute` refuses it as it
   * refuses any limit, leaving the failed order on record. 409 when the id is taken.
   */
  private async create(
    checked: CheckedTrade,
    input: OrderInput,
    dailyLimitUsd: number | undefined,
  ): Promise<{ order: OrderContext; volumeTaken: boolean }> {
    const subject = checked.request.subject;
    if (dailyLimitUsd !== undefined) {
      const join = async (context: OrderContext) => ({
        writes: [await this.deps.volume.reserveWrite(subject, checked.valueUsd, dailyLimitUsd, sentAt(context))],
      });
      try {
        const view = await this.accountCommits.run(accountKey(subject), () => this.deps.orders.create(input.orderId, input, { join }));
        return { order: view.context, volumeTaken: true };
      } catch (error) {
        if (!(isAppError(error) && error.code === 'RISK_LIMIT_EXCEEDED')) throw error;
      }
    }
    return { order: (await this.deps.orders.create(input.orderId, input)).context, volumeTaken: false };
  }

  /**
   * The order is committed in `submitting`: reserve limits, call the venue, settle what it says.
   * `firstSend`: this call takes the order's limits (daily volume, delegate cap); a
   * reconciliation of an order sent before does not take them again. `taken`: what the
   * order's creation took already (its daily volume), and the wallet's kind when known (only
   * a delegate wallet has a cap to reserve), and the wallet itself when this request's checks
   * read it (the signer does not read it again).
   */
  private async execute(
    order: OrderContext,
    dailyLimitUsd: number | undefined,
    firstSend = true,
    taken: { volume: boolean; walletKind?: string; wallet?: WalletView } = { volume: false },
  ): Promise<OrderContext> {
    const subject: TradingSubject = { type: order.subjectType, id: order.subjectId };
    // What this send takes (or the order's creation took), given back by one step if nothing moved.
    const reservations = new Reservations();
    const giveBackVolume = () => this.deps.volume.release(subject, order.valueUsd, sentAt(order));
    if (taken.volume) reservations.hold('daily_volume', giveBackVolume);
    let result: ExecutionResult;
    try {
      if (firstSend && dailyLimitUsd !== undefined && !taken.volume)
        await reservations.take(
          'daily_volume',
          () => this.deps.volume.reserve(subject, order.valueUsd, dailyLimitUsd, sentAt(order)),
          giveBackVolume,
        );
      if (firstSend && (taken.walletKind === undefined || taken.walletKind === 'delegate'))
        await reservations.take(
          'spending_cap',
          () => this.deps.wallets.reserveSpend(subject, order.walletId, order.valueUsd),
          () => this.deps.wallets.releaseSpend(subject, order.walletId, order.valueUsd),
        );
      const signer = await this.deps.wallets.signer(subject, order.walletId, taken.wallet);
      result = await this.deps.venue.execute(executeRequest(order, signer));
    } catch (error) {
      // Refused before anything was sent (open breaker, a limit, no signer): the order failed.
      // Anything else (a timeout, a dropped connection) may have reached the venue: ask it,
      // and when it cannot tell, leave the order `submitting` for the sweep or a retry.
      const refusedUpfront = isAppError(error) && (error.code === 'CIRCUIT_BREAKER_OPEN' || (!isFaultKind(error.kind) && !error.retryable));
      const known = refusedUpfront ? null : await this.deps.venue.lookup(order.orderId, order.chain as Chain).catch(() => undefined);
      if (known) return this.settle(order, known, reservations);
      if (refusedUpfront) {
        const retryable = isAppError(error) && error.retryable;
        await this.transition(order, {
          type: 'order.fail',
          at: this.deps.clock.now(),
          reason: isAppError(error) ? error.message : 'venue call failed',
          ...(retryable ? { retryable } : {}),
        });
        await reservations.compensate();
      }
      throw error;
    }
    return this.settle(order, result, reservations);
  }

  /** `reserved`: the limits this call took, given back if the venue refused (nothing moved). */
  private async settle(order: OrderContext, result: ExecutionResult, reserved = new Reservations()): Promise<OrderContext> {
    const subject: TradingSubject = { type: order.subjectType, id: order.subjectId };
    if (result.status === 'filled') {
      // The fill and its booking are one commit: an order is `filled` exactly when its positions say so.
      const { filledOut } = result;
      const fill: OrderEvent = { type: 'order.fill', at: result.at, filledOut, txSignature: result.txSignature };
      // Prices first: a join runs inside the order's mailbox and the account's queue, again after a lost CAS.
      const prices = await this.fillPrices(order);
      const filled = await this.accountCommits.run(accountKey(subject), () =>
        this.transition(order, fill, { join: () => this.book(order, filledOut, prices) }),
      );
      return filled.order;
    }
    if (result.status === 'submitted') {
      if (order.status === 'submitted') return order;
      return (await this.transition(order, { type: 'order.submitted', at: result.at, txSignature: result.txSignature })).order;
    }
    const failed = await this.transition(order, {
      type: 'order.fail',
      at: result.at,
      reason: result.message,
      ...(result.txSignature ? { txSignature: result.txSignature } : {}),
    });
    if (failed.accepted) await reserved.compensate();
    throw failureError(result, failed.order);
  }

  /** USD prices of the order's input and output tokens, as the fill books them. */
  private fillPrices(order: Pick<OrderContext, 'chain' | 'inputMint' | 'outputMint'>): Promise<[number | null, number | null]> {
    const chain = order.chain as Chain;
    return Promise.all([this.deps.venue.priceUsd(chain, order.inputMint), this.deps.venue.priceUsd(chain, order.outputMint)]);
  }

  /** The position writes of a fill, committed with the order's `filled` (each position books an order once). */
  private async book(
    order: OrderContext,
    filledOut: string,
    [inputPrice, outputPrice]: [number | null, number | null],
  ): Promise<{ writes: CommitWrite[]; events: PositionEvent[] }> {
    const chain = order.chain as Chain;
    return this.deps.positions.fillWrites(
      { type: order.subjectType, id: order.subjectId },
      order.orderId,
      {
        chain,
        token: order.inputMint,
        symbol: order.inputSymbol,
        decimals: order.inputDecimals,
        amount: BigInt(order.amountIn),
        priceUsd: inputPrice ?? 0,
      },
      {
        chain,
        token: order.outputMint,
        symbol: order.outputSymbol,
        decimals: order.outputDecimals,
        amount: BigInt(filledOut),
        priceUsd: outputPrice ?? 0,
      },
      order.side,
    );
  }

  /** An existing order is answered as it stands, finished first when it was left in flight. */
  private async resume(order: OrderContext): Promise<OrderContext> {
    if (order.status === 'submitting' || order.status === 'submitted') return this.finish(order);
    if (order.status === 'failed' && order.retryable)
      throw new AppError('PROVIDER_UNAVAILABLE', order.reason ?? 'Provider unavailable', { details: { order_id: order.orderId } });
    if (order.status === 'failed')
      throw failureError(
        { status: 'failed', reason: reasonCode(order.reason), message: order.reason ?? 'failed', at: order.updatedAt },
        order,
      );
    return order;
  }

  /** Not accepted means another call, process or recovery moved the order first: its state is the truth. */
  private async transition(
    order: OrderContext,
    event: OrderEvent,
    options?: TransitionOptions<OrderContext, OrderEvent>,
  ): Promise<{ order: OrderContext; accepted: boolean }> {
    const { view, accepted } = await this.deps.orders.send(order.orderId, event, options);
    return { order: view.context, accepted };
  }

  /**
   * The order a deterministic id stands for. An attempt that failed before anything was
   * sent, for a reason that may pass (an open breaker), does not hold the id hostage: the
   * retry places the next attempt (`attemptOrderId`), after at most a few. An attempt
   * placed under its former name (`<id>.<n>`) is found by that name.
   */
  private async attemptOf(subject: TradingSubject, orderId: string): Promise<{ existing?: OrderContext; orderId: string }> {
    for (let n = 1; n <= MAX_ATTEMPTS; n++) {
      const id = n === 1 ? orderId : attemptOrderId(orderId, n);
      const existing = (await this.find(subject, id)) ?? (n === 1 ? null : await this.find(subject, legacyAttemptOrderId(orderId, n)));
      if (!existing) return { orderId: id };
      if (!(existing.status === 'failed' && existing.retryable) || n === MAX_ATTEMPTS) return { existing, orderId: existing.orderId };
    }
    return { orderId };
  }

  private async find(subject: TradingSubject, orderId: string): Promise<OrderContext | null> {
    const order = (await this.deps.orders.get(orderId))?.context;
    // Another account's order is indistinguishable from none.
    if (!order || order.subjectType !== subject.type || order.subjectId !== subject.id) return null;
    return order;
  }
}

/** What the venue is asked to execute (or plan) for an order, signed by `signer`. */
function executeRequest(order: OrderContext, signer: WalletSigner): ExecuteRequest {
  return {
    clientOrderId: order.orderId,
    chain: order.chain as Chain,
    signer,
    inputMint: order.inputMint,
    outputMint: order.outputMint,
    amountIn: order.amountIn,
    minOut: order.minOut,
    slippageBps: order.slippageBps,
  };
}

/**
 * When the order went to the venue: its UTC day is the day its volume counts against (an
 * order approved after midnight counts on the day it trades, not the day it was placed).
 */
function sentAt(order: OrderContext): number {
  return order.submittedAt ?? order.createdAt;
}

/**
 * The order a key-derived id found, if the call is the one that placed it. The idempotency
 * record answers a reused key with another request for 24 hours; after that, without this,
 * the key would still lead here and answer the old order as the new request's.
 */
function sameRequest(order: OrderContext, options: PlaceOptions): OrderContext {
  if (order.requestDigest !== undefined && options.requestDigest !== undefined && order.requestDigest !== options.requestDigest) {
    throw new AppError('IDEMPOTENCY_MISMATCH', IDEMPOTENCY_MESSAGES.mismatch);
  }
  return order;
}

/** A fill `fillAtOnce` cannot plan (the venue would not fill it now): the usual road takes the order. */
class NotFilledAtOnce extends Error {}

/**
 * The buy of a DCA strategy nobody approved, which the approval rule would hold: no order is
 * placed, and the strategy waits for approval (`reason` says why, for its view).
 */
export class StrategyBuyHeld extends AppError {
  constructor(profile: Pick<OrderProfile, 'autoApprove' | 'approvalAboveUsd'>, valueUsd: number, inputPriceUsd: number) {
    super('RESOURCE_CONFLICT', approvalReason(profile, valueUsd, inputPriceUsd));
  }
}

/** A refusal of an approval that a later retry may not meet: unavailable (5xx) or trading switched off. */
function mayPass(error: unknown): boolean {
  return isAppError(error) && (isFaultKind(error.kind) || error.code === 'TRADING_DISABLED');
}

/** What `cancel` takes: orders not sent yet. */
const CANCELLABLE: ReadonlySet<OrderContext['status']> = new Set(['pending_approval', 'approved']);

function notCancellable(order: OrderContext): AppError {
  return new AppError('ORDER_NOT_CANCELLABLE', `Order ${order.orderId} cannot be cancelled (status: ${order.status})`);
}

function notApprovable(order: OrderContext): AppError {
  return new AppError('ORDER_NOT_APPROVABLE', `Order ${order.orderId} is not pending approval (status: ${order.status})`);
}

function reasonCode(reason: string | undefined): Extract<ExecutionResult, { status: 'failed' }>['reason'] {
  if (reason === SAFETY_MESSAGES.slippage) return 'slippage';
  if (reason === SAFETY_MESSAGES.balance) return 'insufficient_balance';
  return 'rejected';
}

/** A venue refusal as the trading error, naming the failed order. */
function failureError(result: Extract<ExecutionResult, { status: 'failed' }>, order: OrderContext): AppError {
  const details = { order_id: order.orderId, status: order.status };
  if (result.reason === 'slippage') return new AppError('SLIPPAGE_EXCEEDED', SAFETY_MESSAGES.slippage, { details });
  if (result.reason === 'insufficient_balance') return new AppError('INSUFFICIENT_BALANCE', SAFETY_MESSAGES.balance, { details });
  return new AppError('VALIDATION_ERROR', `Order failed: ${result.message}`, { kind: 'unprocessable', details });
}

/** The key of an account's shared records in `accountCommits`. */
function accountKey(subject: TradingSubject): string {
  return `${subject.type}:${subject.id}`;
}
