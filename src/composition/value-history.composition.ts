import { agentDefinition } from '../../machines/agent.machine.js';
import { botDefinition } from '../../machines/bot.machine.js';
import { subjectOfKey } from '../../agents/portfolio/portfolio.records.js';
import type { PositionsService } from '../../agents/portfolio/positions.service.js';
import { VALUE_HISTORY_COLLECTIONS } from '../../agents/portfolio/value-history.records.js';
import { ValueHistory } from '../../agents/portfolio/value-history.service.js';
import { valueHistoryOperations } from '../operations/definitions/value-history.ops.js';
import type { Chain, VenuePort } from '../../kernel/ports/venue.port.js';
import type { ModuleContext } from './feature-module.types.js';
import type { TradingParts } from './orders.composition.js';

/** The periodic sweep: one repeating schedule for the whole service, taken by `portfolio_value_sample`. */
const SWEEP = { scheduleId: 'portfolio-value-sweep', type: 'portfolio-value', id: 'sweep', event: 'value.sweep' } as const;
const SWEEP_EVERY_MS = 60_000;
/** Final states: an archived agent or a deleted bot never trades again (a paused one is still read). */
const ENDED: ReadonlySet<string> = new Set(['archived', 'deleted']);

/**
 * The portfolio value history, added to the trading module's lists: readings after
 * each balance change (told by the publisher's `position.updated`, for the changes this
 * process made) and on a minute sweep for the accounts whose periodic reading is due.
 */
export function buildValueHistory(
  ctx: ModuleContext,
  deps: { positions: PositionsService; venue: VenuePort },
  parts: TradingParts,
): { start(): Promise<void>; stop(): Promise<void> } {
  const { intervalMs, retentionDays } = ctx.config.trading.valueHistory;
  const agents = ctx.runtime.collection(agentDefinition);
  const bots = ctx.runtime.collection(botDefinition);
  const history = new ValueHistory({
    store: ctx.store,
    clock: ctx.clock,
    logger: ctx.logger,
    positions: deps.positions,
    price: (chain, token) => deps.venue.priceUsd(chain as Chain, token),
    intervalMs,
    retentionDays,
    ended: async (subject) => {
      const view = subject.type === 'agent' ? await agents.get(subject.id) : await bots.get(subject.id);
      return !view || ENDED.has(String(view.state));
    },
  });
  parts.collections.push(...VALUE_HISTORY_COLLECTIONS);
  parts.operations.push(...valueHistoryOperations({ history, clock: ctx.clock, intervalMs }));
  parts.dueJobs.push({ type: SWEEP.type, event: SWEEP.event, operation: 'portfolio_value_sample', input: (job) => ({ dueAt: job.dueAt }) });

  let unobserve: (() => void) | undefined;
  return {
    start: async () => {
      unobserve?.(); // started again: one observer, not two
      unobserve = ctx.publisher.observe((event, stream) => {
        if (event.type !== 'position.updated') return;
        const subject = subjectOfKey(stream);
        if (subject) history.changed(subject);
      });
      // The same id from every process and every start: one schedule, updated, never a second.
      await ctx.scheduler.scheduleRepeating({
        scheduleId: SWEEP.scheduleId,
        address: { type: SWEEP.type, id: SWEEP.id },
        event: { type: SWEEP.event },
        everyMs: Math.min(SWEEP_EVERY_MS, intervalMs),
      });
    },
    stop: async () => {
      unobserve?.();
      await history.stop();
    },
  };
}
