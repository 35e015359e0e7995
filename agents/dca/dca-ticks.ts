import type { Logger } from 'pino';
import { isAppError } from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { DueJob, SchedulerPort } from '../../kernel/ports/scheduler.port.js';
import type { Chain } from '../../kernel/ports/venue.port.js';
import {
  formerOrderNameMayExist,
  limitReached,
  tickHandled,
  type DcaStrategyContext,
  type DcaStrategyEvent,
  type DcaStrategyInput,
} from '../../machines/dca-strategy.machine.js';
import type { OrderContext } from '../../machines/order.machine.js';
import type { ActorCollection, SendResult } from '../../kernel/ports/actor-collection.port.js';
import { lateAfterMs } from './dca-interval.js';
import type { DcaTickObserver, DcaTickOutcome } from '../../kernel/ports/dca-tick-observer.port.js';
import { dcaOrderId, legacyDcaOrderId } from '../../kernel/vocabulary/ids.js';
import type { StatusReader, SubjectStatus, TradingSubject } from '../portfolio/portfolio.types.js';
import { StrategyBuyHeld, type TradingPipeline } from '../trading/trading-pipeline.js';

/**
 * The ticks of DCA strategies: a tick buys through the ordinary pipeline and safety
 * path with an order id derived from the strategy and the tick's due time, so a tick delivered
 * twice buys once; a tick missed while no process ran is run once (or skipped, per `catchUp`).
 * A tick that tries no buy (the agent paused or its trading off, held for approval) is skipped,
 * not failed. The strategies service (`dca.service.ts`) creates and steers them.
 */

export const DCA_TYPE = 'dca-strategy';
/** The event of the repeating schedule: one buy. */
export const TICK_EVENT = 'dca.tick';
/** The event of the one-off job at `endAt` that completes the strategy (the schedule has no run after it). */
export const END_EVENT = 'dca.end';
export const scheduleIdOf = (strategyId: string) => `dca:${strategyId}`;
export const endJobIdOf = (strategyId: string) => `dca-end:${strategyId}`;

/** Reasons a tick was skipped because the account does not trade now (not failures: nothing was tried). */
const SKIP_TRADING_OFF = 'trading is off for the agent';
const skipAgentState = (state: string) => `the agent is ${state}`;

export interface DcaTicksDeps {
  /** The strategies themselves; orders read by id (a tick's buy). */
  actors: {
    strategies: ActorCollection<DcaStrategyContext, DcaStrategyEvent, DcaStrategyInput>;
    orders: Pick<ActorCollection<OrderContext>, 'get'>;
  };
  scheduler: Pick<SchedulerPort, 'removeSchedule' | 'cancel'>;
  pipeline: TradingPipeline;
  /** Whether the account trades now: a tick while its agent is paused or its trading off is skipped, not failed. */
  status: Pick<StatusReader, 'agentStatus'>;
  clock: ClockPort;
  /** Told of every due tick (metrics); optional so that `agents/` works without observability. */
  observer?: DcaTickObserver;
  /** One line per buy, skip, hold, failure and end a strategy takes (`logTaken`). */
  logger?: Pick<Logger, 'info' | 'warn'>;
}

export class DcaTicks {
  constructor(private readonly deps: DcaTicksDeps) {}

  /**
   * A due tick (scheduler → here): one order per (strategy, due time), whatever the deliveries.
   * Each due tick of an active strategy is told to the observer once, with its outcome.
   */
  async onTick(job: DueJob): Promise<void> {
    const view = await this.deps.actors.strategies.get(job.address.id);
    if (!view) return;
    const strategy = view.context;
    const now = this.deps.clock.now();
    // The end job: the schedule has no run after `endAt`, so this is what completes it (paused, waiting or not).
    if (job.event.type === END_EVENT) {
      // At its due time at the latest: a process whose clock is a little behind must not see the end "not yet" and drop it.
      if (view.state === 'active' || view.state === 'paused' || view.state === 'pending_approval')
        await this.report(strategy.strategyId, { type: 'dca.finish', at: Math.max(now, job.dueAt) });
      return;
    }
    if (view.state !== 'active') return;
    if (tickHandled(strategy, job.dueAt)) return; // delivered again, or covered by a catch-up run
    const outcome = await this.runTick(strategy, job.dueAt, now);
    if (outcome) this.observe(outcome, job.dueAt, now);
  }

  /** One due tick of an active strategy; answers its outcome, or nothing when another delivery of it counted (or is counting) it. */
  private async runTick(strategy: DcaStrategyContext, dueAt: number, now: number): Promise<DcaTickOutcome | undefined> {
    // No buy may start (the end passed, the next buy would pass maxSpend): finish rather than wait for ticks that never buy.
    if (limitReached(strategy, now)) {
      return (await this.report(strategy.strategyId, { type: 'dca.finish', at: now })) ? 'skipped' : undefined;
    }
    const late = now - dueAt > lateAfterMs(strategy.interval, now);
    // A late tick stands for everything missed up to now: later missed ticks are covered by it.
    const covers = late ? { coversUntil: now } : {};
    if (late && !strategy.catchUp) {
      const accepted = await this.report(strategy.strategyId, {
        type: 'dca.skipped',
        at: now,
        dueAt,
        ...covers,
        reason: 'missed while the service was down (catchUp off)',
      });
      return accepted ? 'skipped' : undefined;
    }
    const subject: TradingSubject = { type: strategy.subjectType, id: strategy.subjectId };
    const orderId = await this.tickOrderId(strategy, dueAt);
    let event: DcaStrategyEvent;
    // The buy's report when it rode in the fill's commit (a venue that fills at once), and its outcome.
    let joined: DcaStrategyEvent | undefined;
    let reported: SendResult<DcaStrategyContext> | undefined;
    try {
      // The owner paused the agent or switched its trading off: nothing was tried, so this is no
      // failure (three of them would pause the strategy for good, and it would stay paused after
      // the agent resumed). The safety path would refuse it the same way, with a `risk.blocked` a tick.
      const { off, account } = await this.notTrading(subject);
      if (off) {
        const accepted = await this.report(strategy.strategyId, { type: 'dca.skipped', at: now, dueAt, ...covers, reason: off });
        return accepted ? 'skipped' : undefined;
      }
      // A buy filled at once is counted in the fill's own commit: one write, and no crash between the two.
      const executed = (order: OrderContext, filledOut: string): DcaStrategyEvent => ({
        type: 'dca.executed',
        at: this.deps.clock.now(),
        dueAt,
        ...covers,
        orderId,
        spentBase: order.amountIn,
        acquiredBase: filledOut,
        // Unrounded: a sub-cent buy must not count as $0.
        spentUsd: order.valueUsd,
      });
      const placed = await this.deps.pipeline.placeOrder(
        {
          subject,
          ...(strategy.userId ? { userId: strategy.userId } : {}),
          // Read just above for this tick: the safety path judges the same status instead of reading it again.
          account,
          channel: 'dca',
          chain: strategy.chain as Chain,
          side: 'buy',
          inputToken: strategy.inputToken,
          outputToken: strategy.outputToken,
          amount: { kind: 'whole', value: strategy.amount },
          ...(strategy.slippageBps ? { slippageBps: strategy.slippageBps } : {}),
        },
        // An approved strategy's buys are approved; one nobody approved meets the approval rule every tick.
        {
          orderId,
          strategy: strategy.name,
          strategyId: strategy.strategyId,
          tickDueAt: dueAt,
          strategyApproval: strategy.approvedAt !== undefined ? 'approved' : 'unapproved',
          alongFill: (order, filledOut) => {
            joined = executed(order, filledOut);
            return { type: DCA_TYPE, id: strategy.strategyId, event: joined };
          },
        },
      );
      const { order } = placed;
      // Only a call that lost the race to create this order sees it `submitting`: another
      // delivery of the same tick is executing it and reports the outcome. Reporting a
      // failure here would take the tick (newTick guard) and the buy would never be counted.
      if (order.status === 'submitting') return undefined;
      const at = this.deps.clock.now();
      if (placed.alongside && joined) {
        event = joined;
        reported = placed.alongside as SendResult<DcaStrategyContext>;
      } else if (order.status === 'filled') {
        event = { ...executed(order, order.filledOut ?? '0'), at };
      } else if (order.status === 'submitted') {
        // Broadcast, not yet confirmed (live venues): reconciliation reports its outcome (`orderSettled`).
        event = { type: 'dca.submitted', at, dueAt, ...covers, orderId };
      } else {
        event = { type: 'dca.failed', at, dueAt, ...covers, orderId, reason: `order ${order.status}` };
      }
    } catch (error) {
      const at = this.deps.clock.now();
      if (error instanceof StrategyBuyHeld) {
        // The approval rule holds this buy now (the policy tightened, the price rose): the strategy
        // waits for approval like a new one, instead of failing every tick until it pauses itself.
        event = { type: 'dca.hold', at, dueAt, ...covers, reason: error.message };
      } else if (isAppError(error) && (error.code === 'TRADING_DISABLED' || error.code === 'KILL_SWITCH_ACTIVE')) {
        // Switched off between the look above and the safety path's, or the chain's kill switch
        // is on: nothing was tried, and both pass (as an approval treats them), so no failure.
        event = { type: 'dca.skipped', at, dueAt, ...covers, reason: error.code === 'TRADING_DISABLED' ? SKIP_TRADING_OFF : error.message };
      } else {
        // A refusal before the order was created (safety path) leaves no order to point at.
        const created = (await this.deps.actors.orders.get(orderId)) !== null;
        event = {
          type: 'dca.failed',
          at,
          dueAt,
          ...covers,
          ...(created ? { orderId } : {}),
          reason: isAppError(error) ? error.message : 'order failed',
        };
      }
    }
    const accepted = reported ? await this.taken(strategy.strategyId, event, reported) : await this.report(strategy.strategyId, event);
    // Reconciliation (a sweep, maybe in another process) may have settled the order before
    // the strategy held it in flight, and then its report was ignored: report it now.
    if (event.type === 'dca.submitted') {
      const placed = await this.deps.actors.orders.get(orderId);
      if (placed) await this.orderSettled(placed.context);
    }
    // Another delivery of this tick counted it first: it is that delivery's to tell.
    if (!accepted) return undefined;
    return event.type === 'dca.failed'
      ? 'failed'
      : event.type === 'dca.executed' || event.type === 'dca.submitted'
        ? 'executed'
        : 'skipped';
  }

  /**
   * The order id of a tick (`dcaOrderId`), or its former name when the tick's order was placed
   * under it: a tick in flight during the upgrade and delivered again after it resumes that
   * order rather than buying a second time. (Breaker-retry attempts derive from whichever it is.)
   * Only strategies stored before the upgrade can have one, and only for ticks due up to an hour
   * after the first tick counted since (`formerOrderNameMayExist`): every other tick skips that read.
   */
  private async tickOrderId(strategy: DcaStrategyContext, dueAt: number): Promise<string> {
    const { strategyId } = strategy;
    if (!formerOrderNameMayExist(strategy, dueAt)) return dcaOrderId(strategyId, dueAt);
    const legacy = legacyDcaOrderId(strategyId, dueAt);
    return (await this.deps.actors.orders.get(legacy)) ? legacy : dcaOrderId(strategyId, dueAt);
  }

  /** Why the account does not trade now (agent not active, trading off), or undefined when it does; with the status read. */
  private async notTrading(subject: TradingSubject): Promise<{ off: string | undefined; account: SubjectStatus }> {
    const account = await this.deps.status.agentStatus(subject);
    if (account.status !== 'active') return { off: skipAgentState(account.status), account };
    return { off: account.tradingEnabled ? undefined : SKIP_TRADING_OFF, account };
  }

  private observe(outcome: DcaTickOutcome, dueAt: number, handledAt: number): void {
    try {
      this.deps.observer?.observeTick(outcome, Math.max(0, handledAt - dueAt) / 1000);
    } catch {
      // Metrics must never fail a tick: its delivery would be retried and the outcome is already stored.
    }
  }

  /**
   * Reports the outcome of a strategy's order that was still unconfirmed when its tick
   * ended, once reconciliation settled it; anything else is ignored (the strategy's
   * `inFlight` decides what counts, so a report twice counts once).
   */
  async orderSettled(order: OrderContext): Promise<void> {
    const { strategyId, orderId } = order;
    if (!strategyId) return;
    const at = this.deps.clock.now();
    if (order.status === 'filled') {
      await this.report(strategyId, {
        type: 'dca.settled',
        at,
        filled: true,
        orderId,
        spentBase: order.amountIn,
        acquiredBase: order.filledOut ?? '0',
        spentUsd: order.valueUsd,
      });
    } else if (order.status === 'failed') {
      await this.report(strategyId, { type: 'dca.settled', at, filled: false, orderId, reason: order.reason ?? 'order failed' });
    }
  }

  /**
   * Ticks run in the background, where no request line tells what they did: one line per
   * outcome the strategy took (a delivery that lost the race logs nothing), with its ids.
   */
  private logTaken(strategy: DcaStrategyContext, state: string, event: DcaStrategyEvent): void {
    const logger = this.deps.logger;
    if (!logger) return;
    const ids = {
      strategyId: strategy.strategyId,
      [strategy.subjectType === 'agent' ? 'agentId' : 'botId']: strategy.subjectId,
      ...('orderId' in event && event.orderId ? { orderId: event.orderId } : {}),
      ...('dueAt' in event ? { dueAt: new Date(event.dueAt).toISOString() } : {}),
      state,
    };
    const line = logLineOf(event, strategy);
    if (line) logger[line.level]({ ...ids, ...line.fields }, line.msg);
  }

  /** Sends a tick outcome (or the end) to the strategy and drops its schedule when it stopped (paused, held, completed); true when it was taken. */
  async report(strategyId: string, event: DcaStrategyEvent): Promise<boolean> {
    return this.taken(strategyId, event, await this.deps.actors.strategies.send(strategyId, event));
  }

  /** What follows a report the strategy answered (`after`): its log line, and its schedule dropped when it stopped; true when it was taken. */
  private async taken(strategyId: string, event: DcaStrategyEvent, after: SendResult<DcaStrategyContext>): Promise<boolean> {
    if (!after.accepted) return false;
    const state = after.view.state;
    this.logTaken(after.view.context, typeof state === 'string' ? state : JSON.stringify(state), event);
    // Paused itself (failures in a row), held for approval, or finished (limits): no more ticks; the end job stays for a paused or held one.
    if (after.view.state === 'paused' || after.view.state === 'pending_approval' || after.view.state === 'completed')
      await this.deps.scheduler.removeSchedule(scheduleIdOf(strategyId));
    if (after.view.state === 'completed') await this.deps.scheduler.cancel(endJobIdOf(strategyId));
    return true;
  }
}

/** The level, fields and message of the log line of a strategy's outcome, or none for events that are not tick outcomes. */
function logLineOf(
  event: DcaStrategyEvent,
  strategy: DcaStrategyContext,
): { level: 'info' | 'warn'; fields: Record<string, unknown>; msg: string } | undefined {
  switch (event.type) {
    case 'dca.executed':
      return { level: 'info', fields: { spentUsd: event.spentUsd }, msg: 'dca buy filled' };
    case 'dca.submitted':
      return { level: 'info', fields: {}, msg: 'dca buy submitted; its outcome follows when it settles' };
    case 'dca.settled':
      return event.filled
        ? { level: 'info', fields: { spentUsd: event.spentUsd }, msg: 'dca buy settled: filled' }
        : { level: 'warn', fields: { reason: event.reason }, msg: 'dca buy settled: failed' };
    case 'dca.failed':
      return { level: 'warn', fields: { reason: event.reason, failuresInRow: strategy.failuresInRow }, msg: 'dca buy failed' };
    case 'dca.skipped':
      return { level: 'info', fields: { reason: event.reason }, msg: 'dca tick skipped' };
    case 'dca.hold':
      return { level: 'warn', fields: { reason: event.reason }, msg: 'dca buy held for approval; the strategy waits for its owner' };
    case 'dca.finish':
      return { level: 'info', fields: {}, msg: 'dca strategy completed' };
    default:
      return undefined;
  }
}
