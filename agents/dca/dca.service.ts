import { AppError, isAppError } from '../../kernel/errors/app-error.js';
import type { DueJob, SchedulerPort } from '../../kernel/ports/scheduler.port.js';
import type { CollectionSpec, StorePort } from '../../kernel/ports/store.port.js';
import type { Chain, VenuePort } from '../../kernel/ports/venue.port.js';
import type { DcaStrategyContext } from '../../machines/dca-strategy.machine.js';
import type { OrderContext } from '../../machines/order.machine.js';
import { isIsoTime } from '../../kernel/shared/iso-time.js';
import {
  belowSmallestUnit,
  finerThanToken,
  formatUsd,
  fromBaseUnits,
  isDecimal,
  significantDecimal,
  toBaseUnits,
} from '../../kernel/vocabulary/amounts.js';
import { inputMint } from '../trading/safety-path.js';
import { requireTokenPair } from '../trading/token-pairs.js';
import { toView, type DcaStats, type DcaStrategyStats, type StrategyView } from './dca.views.js';
import { INTERVAL_HINT, MIN_INTERVAL_MS, parseInterval } from './dca-interval.js';
import { DCA_TYPE, DcaTicks, END_EVENT, TICK_EVENT, endJobIdOf, scheduleIdOf, type DcaTicksDeps } from './dca-ticks.js';
import { KeyedQueue } from '../trading/keyed-queue.js';
import type { TradingSubject } from '../portfolio/portfolio.types.js';
import { subjectKey } from '../portfolio/portfolio.records.js';
import { approvalHolds, approvalReason, mayApprove } from '../config/trading-config.rules.js';
import type { TradingConfigReader } from '../config/trading-config.types.js';
import type { KeyScope } from '../../kernel/vocabulary/scopes.js';

/**
 * DCA strategies: each is a `dca-strategy` actor with a repeating schedule. This
 * service creates, approves, pauses, resumes, deletes and reports on them; their ticks run in
 * `dca-ticks.ts`. Names are unique per user, and a user has at most `perUser.max` strategies.
 */

export { DCA_TYPE } from './dca-ticks.js';
/** Names are unique per user: one claim document per (owner, name). */
export const DCA_NAMES_COLLECTION: CollectionSpec = { name: 'trading.dca-names', indexes: [] };
const DEFAULT_MAX_FAILURES = 3;
/** In the names collection (whose ids are `user:…` or `agent:…`): end jobs of older strategies were armed. */
const END_JOBS_MARKER = '~end-jobs-armed';

export interface CreateStrategyInput {
  name: string;
  inputToken: string;
  outputToken: string;
  /** Whole tokens of the input per buy. */
  amount: string;
  interval: string;
  chain?: Chain;
  maxBuys?: number;
  maxSpend?: string;
  slippageBps?: number;
  startAt?: string;
  endAt?: string;
  catchUp?: boolean;
  maxFailuresInRow?: number;
}

/** What the ticks need (`DcaTicksDeps`: actors, pipeline, agent status, clock, the optional tick observer) and more. */
export interface DcaServiceDeps extends DcaTicksDeps {
  store: StorePort;
  scheduler: Pick<SchedulerPort, 'scheduleRepeating' | 'removeSchedule' | 'nextRun' | 'scheduleOnce' | 'cancel'>;
  venue: Pick<VenuePort, 'findToken' | 'priceUsd'>;
  config: TradingConfigReader;
  newId: () => string;
  /** Strategies one user may have across their agents and bots (`MAX_STRATEGIES_PER_USER`); unset, no cap. */
  perUser?: { max: number; subjectsOf: (userId: string) => Promise<TradingSubject[]> };
  /** Shortest interval (default a minute); only scheduler tests lower it. */
  minIntervalMs?: number;
}

export class DcaService {
  /** Creates of one user run one at a time in this process, so the cap's count and the create cannot interleave. */
  private readonly creating = new KeyedQueue();

  /** Runs the ticks; the scheduler and reconciliation reach it through `onTick` and `orderSettled`. */
  private readonly ticks: DcaTicks;

  constructor(private readonly deps: DcaServiceDeps) {
    this.ticks = new DcaTicks(deps);
  }

  /** A due tick or end job (scheduler → here). */
  onTick(job: DueJob): Promise<void> {
    return this.ticks.onTick(job);
  }

  /** The outcome of a strategy's order that was unconfirmed when its tick ended, once reconciliation settled it. */
  orderSettled(order: OrderContext): Promise<void> {
    return this.ticks.orderSettled(order);
  }

  /** The one interval grammar (REST, MCP and chat commands) with this service's floor. */
  parseInterval(text: string): ReturnType<typeof parseInterval> {
    return parseInterval(text, this.deps.minIntervalMs ?? MIN_INTERVAL_MS);
  }

  /**
   * Creates a strategy. One whose buys the order profile's approval rule would hold (the same
   * rule as for orders, on one buy's value now) is created `pending_approval` with no schedule:
   * nothing buys until an approver approves it (`approve`).
   */
  async create(subject: TradingSubject, userId: string | undefined, input: CreateStrategyInput): Promise<StrategyView> {
    const interval = this.parseInterval(input.interval);
    // The input schema runs the same checks; callers without it (chat commands) get them here.
    const problems: string[] = [...(interval.ok ? [] : [interval.error]), ...this.fieldProblems(input)];
    if (problems.length > 0) throw AppError.validation(problems, interval.ok ? undefined : INTERVAL_HINT);
    const startAt = input.startAt === undefined ? undefined : Date.parse(input.startAt);
    const endAt = input.endAt === undefined ? undefined : Date.parse(input.endAt);
    const now = this.deps.clock.now();
    const config = await this.deps.config.get(subject);
    const chain = input.chain ?? config.tradeDefaults.chain;
    // Every buy of these would be refused: say so now, not after three failed ticks.
    const [inputToken, outputToken] = await requireTokenPair(this.deps.venue, chain, input.inputToken, input.outputToken, [
      'inputToken',
      'outputToken',
    ]);
    inputMint(chain, inputToken);
    if (toBaseUnits(input.amount, inputToken.decimals) === 0n) {
      throw AppError.validation([belowSmallestUnit(inputToken)]);
    }
    const finer = finerThanToken(input.amount, inputToken);
    if (finer) throw AppError.validation([finer]);
    // One buy's value as the safety path will count it (whole tokens × the input's USD price now).
    const inputPriceUsd = (await this.deps.venue.priceUsd(chain, inputToken.address)) ?? 0;
    const valueUsd = Number(fromBaseUnits(toBaseUnits(input.amount, inputToken.decimals), inputToken.decimals)) * inputPriceUsd;
    const profile = config.defaultOrderProfile;
    const holdReason = approvalHolds(profile, { valueUsd, inputPriceUsd }) ? approvalReason(profile, valueUsd, inputPriceUsd) : undefined;

    const created = await this.creating.run(userId ? `user:${userId}` : subjectKey(subject), async () => {
      await this.assertUnderCap(userId);
      const strategyId = `dca_${this.deps.newId()}`;
      await this.claimName(subject, userId, input.name, strategyId);
      return this.deps.actors.strategies
        .create(strategyId, {
          strategyId,
          name: input.name,
          subjectType: subject.type,
          subjectId: subject.id,
          ...(userId ? { userId } : {}),
          chain,
          inputToken: inputToken.address,
          outputToken: outputToken.address,
          inputSymbol: inputToken.symbol,
          outputSymbol: outputToken.symbol,
          inputDecimals: inputToken.decimals,
          outputDecimals: outputToken.decimals,
          amount: input.amount,
          interval: (interval as { value: DcaStrategyContext['interval'] }).value,
          ...(input.maxBuys !== undefined ? { maxBuys: input.maxBuys } : {}),
          ...(input.maxSpend !== undefined ? { maxSpend: input.maxSpend } : {}),
          ...(input.slippageBps !== undefined ? { slippageBps: input.slippageBps } : {}),
          ...(startAt !== undefined ? { startAt } : {}),
          ...(endAt !== undefined ? { endAt } : {}),
          catchUp: input.catchUp ?? true,
          maxFailuresInRow: input.maxFailuresInRow ?? DEFAULT_MAX_FAILURES,
          ...(holdReason ? { holdReason } : {}),
          createdAt: now,
        })
        .catch(async (error: unknown) => {
          await this.releaseName(subject, userId, input.name);
          throw error;
        });
    });
    const context = created.context;
    // Waiting for approval: no schedule yet, but its end still completes it.
    if (created.state === 'pending_approval') await this.armEnd(context);
    else await this.schedule(context, startAt);
    return toView(context, created.state as StrategyView['status']);
  }

  /**
   * 409 `Strategy limit reached: at most N strategies per user` once the user has N strategies
   * that are not deleted, across all their agents and bots (completed ones count: they can be deleted).
   * Counted through the index, stopping at the cap: reading and sorting every strategy made a
   * user's 100th create cost 99 decoded strategies and a sort.
   */
  private async assertUnderCap(userId: string | undefined): Promise<void> {
    const { perUser } = this.deps;
    if (!perUser || !userId) return;
    let count = 0;
    for (const subject of await perUser.subjectsOf(userId)) {
      const query = { index: 'subject', eq: subjectKey(subject) };
      count += await this.deps.actors.strategies.count(query, perUser.max - count, { exceptStates: ['deleted'] });
      if (count >= perUser.max) throw AppError.conflict(`Strategy limit reached: at most ${perUser.max} strategies per user`);
    }
  }

  /**
   * Approves a strategy waiting for approval: it becomes active, is scheduled from now (or its
   * start), and its buys are approved. Who may approve is the order approval rule: the owner
   * or a `manage` key; a `trade` key only when the order profile says `agentsMayApprove`.
   */
  async approve(subject: TradingSubject, userId: string | undefined, name: string, approver: KeyScope): Promise<StrategyView> {
    const strategy = await this.byName(subject, userId, name);
    if (!mayApprove((await this.deps.config.get(subject)).defaultOrderProfile, approver))
      throw AppError.scopeInsufficient('manage', approver);
    if (strategy.status !== 'pending_approval') throw notPending(strategy.name, strategy.status);
    const now = this.deps.clock.now();
    const { accepted, view } = await this.deps.actors.strategies.send(strategy.strategyId, { type: 'dca.approve', at: now, by: approver });
    const context = view.context;
    if (!accepted) throw notPending(context.name, String(view.state)); // another call approved, deleted or completed it first
    await this.schedule(context, Math.max(now, context.startAt ?? now));
    // A delete that ran alongside may have removed the schedule before this armed it (as in resume).
    await this.dropScheduleUnlessActive(context.strategyId, (await this.deps.actors.strategies.get(context.strategyId))?.state);
    return toView(context, view.state as StrategyView['status']);
  }

  /**
   * Problems of fields taken together, as a 400 lists them: `maxSpend` below `amount` (no buy
   * would fit), an end not after the start and now. A field that is not well formed is left
   * to its own check. The input schema calls it too, so they are listed with the body's other problems.
   */
  fieldProblems(input: { amount?: unknown; maxSpend?: unknown; startAt?: unknown; endAt?: unknown }): string[] {
    const problems: string[] = [];
    const { amount, maxSpend } = input;
    if (isDecimal(amount) && isDecimal(maxSpend)) {
      const decimals = (value: string) => value.split('.')[1]?.length ?? 0;
      const scale = Math.max(decimals(amount), decimals(maxSpend)); // exact: no digit of either is cut
      if (toBaseUnits(maxSpend, scale) < toBaseUnits(amount, scale)) problems.push('maxSpend must be at least amount');
    }
    const time = (value: unknown) => (typeof value === 'string' && isIsoTime(value) ? Date.parse(value) : undefined);
    const now = this.deps.clock.now();
    const startAt = time(input.startAt) ?? now;
    const endAt = time(input.endAt);
    if (endAt !== undefined && endAt <= Math.max(now, startAt)) problems.push('endAt must be after startAt and in the future');
    return problems;
  }

  async list(subject: TradingSubject): Promise<StrategyView[]> {
    return (await this.strategies(subject)).map(({ context, status }) => toView(context, status));
  }

  /**
   * Per strategy and in total: buys, spent, acquired, average price (input per output and
   * USD per output) against the current price, value and PnL in USD, and the next run.
   */
  async stats(subject: TradingSubject): Promise<DcaStats> {
    const strategies = await this.strategies(subject);
    const rows = await Promise.all(
      strategies.map(async ({ context, status }): Promise<DcaStrategyStats> => {
        const acquired = Number(fromBaseUnits(context.acquiredBase, context.outputDecimals));
        const current = await this.deps.venue.priceUsd(context.chain as Chain, context.outputToken);
        const valueUsd = current === null ? null : acquired * current;
        const next = status === 'active' ? await this.nextRun(context.strategyId) : null;
        return {
          name: context.name,
          status,
          buys: context.buys,
          failures: context.failures,
          skipped: context.skipped,
          spent: fromBaseUnits(context.spentBase, context.inputDecimals),
          acquired: fromBaseUnits(context.acquiredBase, context.outputDecimals),
          inputSymbol: context.inputSymbol,
          outputSymbol: context.outputSymbol,
          averagePrice:
            acquired > 0 ? significantDecimal(Number(fromBaseUnits(context.spentBase, context.inputDecimals)) / acquired, 8) : null,
          averagePriceUsd: acquired > 0 ? significantDecimal(context.spentUsd / acquired, 8) : null,
          currentPriceUsd: current === null ? null : significantDecimal(current, 8),
          spentUsd: formatUsd(context.spentUsd),
          valueUsd: valueUsd === null ? null : formatUsd(valueUsd),
          pnlUsd: valueUsd === null ? null : formatUsd(valueUsd - context.spentUsd),
          nextRun: next === null ? null : new Date(next).toISOString(),
        };
      }),
    );
    const sum = (pick: (row: DcaStrategyStats) => string | null) =>
      formatUsd(rows.reduce((total, row) => total + Number(pick(row) ?? 0), 0));
    return {
      strategies: rows,
      totals: {
        strategies: rows.length,
        buys: rows.reduce((n, row) => n + row.buys, 0),
        skipped: rows.reduce((n, row) => n + row.skipped, 0),
        spentUsd: sum((r) => r.spentUsd),
        valueUsd: sum((r) => r.valueUsd),
        pnlUsd: sum((r) => r.pnlUsd),
      },
      asOf: new Date(this.deps.clock.now()).toISOString(),
    };
  }

  private async strategies(subject: TradingSubject): Promise<Array<{ context: DcaStrategyContext; status: StrategyView['status'] }>> {
    const out: Array<{ context: DcaStrategyContext; status: StrategyView['status'] }> = [];
    let cursor: string | undefined;
    do {
      const page = await this.deps.actors.strategies.find(
        { index: 'subject', eq: subjectKey(subject) },
        { limit: 200, ...(cursor ? { cursor } : {}) },
      );
      for (const item of page.items)
        if (item.state !== 'deleted') out.push({ context: item.context, status: item.state as StrategyView['status'] });
      cursor = page.nextCursor;
    } while (cursor);
    return out.sort((a, b) => a.context.name.localeCompare(b.context.name));
  }

  async delete(subject: TradingSubject, userId: string | undefined, name: string): Promise<StrategyView> {
    const strategy = await this.byName(subject, userId, name);
    await this.deps.scheduler.removeSchedule(scheduleIdOf(strategy.strategyId));
    await this.deps.scheduler.cancel(endJobIdOf(strategy.strategyId));
    const { view } = await this.deps.actors.strategies.send(strategy.strategyId, { type: 'dca.delete', at: this.deps.clock.now() });
    // Again once deleted: a resume running alongside may have scheduled it in between.
    await this.dropScheduleUnlessActive(strategy.strategyId, view.state);
    await this.releaseName(subject, userId, name);
    return toView(view.context, 'deleted');
  }

  /** Pauses one strategy by name, or every active one of the account. */
  async pause(subject: TradingSubject, userId: string | undefined, name?: string): Promise<StrategyView[]> {
    const targets = name ? [await this.byName(subject, userId, name)] : (await this.list(subject)).filter((s) => s.status === 'active');
    const out: StrategyView[] = [];
    for (const target of targets) {
      // Schedule first: a tick that still fires finds the strategy paused and does nothing.
      await this.deps.scheduler.removeSchedule(scheduleIdOf(target.strategyId));
      const { view } = await this.deps.actors.strategies.send(target.strategyId, { type: 'dca.pause', at: this.deps.clock.now() });
      await this.dropScheduleUnlessActive(target.strategyId, view.state); // again, as in delete
      out.push(toView(view.context, view.state as StrategyView['status']));
    }
    return out;
  }

  /** Resumes from now on: the next run is the next due time after now, not a burst of missed ones. */
  async resume(subject: TradingSubject, userId: string | undefined, name?: string): Promise<StrategyView[]> {
    const targets = name ? [await this.byName(subject, userId, name)] : (await this.list(subject)).filter((s) => s.status === 'paused');
    const out: StrategyView[] = [];
    for (const target of targets) {
      const now = this.deps.clock.now();
      const { accepted, view } = await this.deps.actors.strategies.send(target.strategyId, { type: 'dca.resume', at: now });
      const context = view.context;
      // Only a paused strategy takes it: an active one keeps its schedule (re-anchoring it would
      // push the next buy back), unless it lost it (a pause that failed after removing it).
      const lost = !accepted && view.state === 'active' && (await this.nextRun(context.strategyId)) === null;
      if ((accepted || lost) && view.state === 'active') {
        await this.schedule(context, Math.max(now, context.startAt ?? now));
        // A pause or delete that ran alongside may have removed the schedule before this armed
        // it: whichever of the two looks last after its own change drops it.
        await this.dropScheduleUnlessActive(context.strategyId, (await this.deps.actors.strategies.get(context.strategyId))?.state);
      }
      out.push(toView(context, view.state as StrategyView['status']));
    }
    return out;
  }

  async nextRun(strategyId: string): Promise<number | null> {
    return this.deps.scheduler.nextRun(scheduleIdOf(strategyId));
  }

  /**
   * Arms the end jobs of strategies that are not finished, once per data set (at start): one
   * created before strategies had an end job would otherwise stay active past its end. Later
   * starts find the marker and skip the scan; an interrupted run is done again (re-arming replaces).
   */
  async armEndJobs(): Promise<void> {
    const { store } = this.deps;
    if (await store.get(DCA_NAMES_COLLECTION.name, END_JOBS_MARKER)) return;
    for (const state of ['active', 'paused', 'pending_approval']) {
      let cursor: string | undefined;
      do {
        const page = await this.deps.actors.strategies.find({ index: 'state', eq: state }, { limit: 200, ...(cursor ? { cursor } : {}) });
        for (const item of page.items) await this.armEnd(item.context);
        cursor = page.nextCursor;
      } while (cursor);
    }
    await store
      .put(DCA_NAMES_COLLECTION.name, END_JOBS_MARKER, { data: { at: this.deps.clock.now() }, expectedVersion: 0 })
      .catch((error: unknown) => {
        if (!isAppError(error) || error.code !== 'VERSION_CONFLICT') throw error; // another process marked it first
      });
  }

  /** Removes the schedule of a strategy in `state` unless it is active, and the end job of a deleted one. */
  private async dropScheduleUnlessActive(strategyId: string, state: unknown): Promise<void> {
    if (state === 'active') return;
    await this.deps.scheduler.removeSchedule(scheduleIdOf(strategyId));
    if (state === 'deleted' || state === undefined) await this.deps.scheduler.cancel(endJobIdOf(strategyId));
  }

  /** One job at `endAt` (past: due at once) completes the strategy, whether or not a run falls on it. */
  private async armEnd(strategy: DcaStrategyContext): Promise<void> {
    if (strategy.endAt === undefined) return;
    await this.deps.scheduler.scheduleOnce({
      jobId: endJobIdOf(strategy.strategyId),
      address: { type: DCA_TYPE, id: strategy.strategyId },
      event: { type: END_EVENT },
      runAt: strategy.endAt,
    });
  }

  private async schedule(strategy: DcaStrategyContext, startAt: number | undefined): Promise<void> {
    await this.deps.scheduler.scheduleRepeating({
      scheduleId: scheduleIdOf(strategy.strategyId),
      address: { type: DCA_TYPE, id: strategy.strategyId },
      event: { type: TICK_EVENT },
      ...(strategy.interval.everyMs !== undefined ? { everyMs: strategy.interval.everyMs } : { cron: strategy.interval.cron! }),
      ...(startAt !== undefined ? { startAt } : {}),
      ...(strategy.endAt !== undefined ? { endAt: strategy.endAt } : {}),
    });
    await this.armEnd(strategy);
  }

  private async byName(subject: TradingSubject, userId: string | undefined, name: string): Promise<StrategyView> {
    const claim = await this.deps.store.get<{ strategyId: string }>(DCA_NAMES_COLLECTION.name, nameKey(subject, userId, name));
    const view = claim ? await this.deps.actors.strategies.get(claim.data.strategyId) : null;
    const context = view?.context;
    if (!view || !context || context.subjectType !== subject.type || context.subjectId !== subject.id || view.state === 'deleted') {
      throw AppError.notFound(`Strategy not found: ${name}`);
    }
    return toView(context, view.state as StrategyView['status']);
  }

  private async claimName(subject: TradingSubject, userId: string | undefined, name: string, strategyId: string): Promise<void> {
    try {
      await this.deps.store.put(DCA_NAMES_COLLECTION.name, nameKey(subject, userId, name), { data: { strategyId }, expectedVersion: 0 });
    } catch (error) {
      if (isAppError(error) && error.code === 'VERSION_CONFLICT') throw AppError.conflict(`A strategy named ${name} already exists`);
      throw error;
    }
  }

  private async releaseName(subject: TradingSubject, userId: string | undefined, name: string): Promise<void> {
    const key = nameKey(subject, userId, name);
    const claim = await this.deps.store.get(DCA_NAMES_COLLECTION.name, key);
    if (claim) await this.deps.store.delete(DCA_NAMES_COLLECTION.name, key, claim.version).catch(() => undefined);
  }
}

/** 409 for an approval of a strategy that does not wait for one (as for orders). */
function notPending(name: string, status: string): AppError {
  return AppError.conflict(`Strategy ${name} is not pending approval (status: ${status})`);
}

/** Unique per user (an operator's agents share names); per account for credentials without a user. */
function nameKey(subject: TradingSubject, userId: string | undefined, name: string): string {
  return `${userId ? `user:${userId}` : subjectKey(subject)}|${name}`;
}
