import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { isWrapPair } from '../../adapters/evm/evm-tokens.js';
import { DAILY_VOLUME_COLLECTION, DailyVolume } from '../../agents/trading/daily-volume.js';
import { DEPOSITS_COLLECTION, DepositsService } from '../../agents/wallets/deposits.service.js';
import { newOrderId, randomId } from '../../kernel/vocabulary/ids.js';
import { OrderQueries } from '../../agents/trading/order-queries.js';
import { OrderReconciler } from '../../agents/trading/order-reconciler.js';
import { expiryJobId } from '../../agents/trading/order.records.js';
import { PositionsService } from '../../agents/portfolio/positions.service.js';
import { SafetyPath } from '../../agents/trading/safety-path.js';
import { StoreStatusReader } from '../../agents/portfolio/status-reader.js';
import { TradingCommand } from '../../agents/chat/trading-command.js';
import type { KillSwitch, TradingConfigReader } from '../../agents/config/trading-config.types.js';
import { TradingEvents, type StreamPublisher } from '../../agents/trading/trading-events.js';
import { TradingPipeline } from '../../agents/trading/trading-pipeline.js';
import type { WalletDirectory } from '../../agents/wallets/wallet.types.js';
import type { OrderContext } from '../../machines/order.machine.js';
import type { TradingSubject } from '../../agents/portfolio/portfolio.types.js';
import { orderDefinition } from '../../machines/order.machine.js';
import { DCA_BINDINGS } from '../http/routes/dca.bindings.js';
import { PAPER_FAUCET_BINDING, TRADING_BINDINGS } from '../http/routes/trading.bindings.js';
import { dcaOperations } from '../operations/definitions/dca.ops.js';
import { DcaCommandRunner } from '../../agents/dca/dca-commands.js';
import type { DcaTickObserver } from '../../kernel/ports/dca-tick-observer.port.js';
import { DCA_NAMES_COLLECTION, DCA_TYPE, DcaService } from '../../agents/dca/dca.service.js';
import { END_EVENT, TICK_EVENT } from '../../agents/dca/dca-ticks.js';
import { dcaDueOperations, orderDueOperations } from '../operations/definitions/due-job.ops.js';
import { dcaStrategyDefinition } from '../../machines/dca-strategy.machine.js';
import { commandOperations } from '../operations/definitions/command.ops.js';
import { tradingInfoOperations } from '../operations/definitions/trading-info.ops.js';
import { riskOperations } from '../operations/definitions/risk.ops.js';
import { TradePreflight } from '../../agents/trading/trade-preflight.js';
import { TokenRisk } from '../../agents/trading/token-risk.js';
import { tradingOperations } from '../operations/definitions/trading.ops.js';
import type { OperationCatalog } from '../operations/operation-catalog.js';
import type { ActorCollection } from '../../kernel/ports/actor-collection.port.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { SchedulerPort } from '../../kernel/ports/scheduler.port.js';
import type { StorePort } from '../../kernel/ports/store.port.js';
import type { BreakerReadout, Chain, FaucetPort, VenuePort } from '../../kernel/ports/venue.port.js';
import type { ActorRuntime } from '../runtime/actor-runtime.js';
import { statusActors } from './status-actors.js';
import type { FeatureModule } from './feature-module.types.js';

export interface OrdersCompositionDeps {
  runtime: ActorRuntime;
  /** The command route asks it about the operation each command is equivalent to. */
  catalog: Pick<OperationCatalog, 'callable'>;
  store: StorePort;
  clock: ClockPort;
  logger: Logger;
  /** Trading events go out through the runtime's publisher, once durable. */
  events: StreamPublisher;
  scheduler: SchedulerPort;
  venue: VenuePort;
  breakerOf: (chain: Chain) => BreakerReadout;
  config: TradingConfigReader;
  killSwitch: KillSwitch;
  wallets: WalletDirectory;
  faucet?: FaucetPort;
  /** Told of every due DCA tick (the `dca_ticks_total` and `dca_tick_lag_seconds` metrics). */
  dcaTicks: DcaTickObserver;
  /** DCA settings: the interval floor, and the per-user strategy cap with the accounts it counts over. */
  dca: { minIntervalMs: number; strategiesPerUser: number; subjectsOf: (userId: string) => Promise<TradingSubject[]> };
}

/** How often orders left in flight are looked up again. */
const RECONCILE_EVERY_MS = 30_000;
/** A `submitting` order this old is stuck (its call died), not in progress: the venue's budget is 90 s. */
const STUCK_SUBMITTING_MS = 120_000;
const RECOVERY_PAGE = 200;
/** A faucet deposit pending this long is stuck: its call takes a few writes. */
const STUCK_DEPOSIT_MS = 60_000;

/** The lists of the trading module this section adds to. */
export type TradingParts = Pick<FeatureModule, 'definitions' | 'collections' | 'operations' | 'bindings' | 'dueJobs'>;

/** What the orders section hands back to the trading module: its reader, and its life cycle steps. */
export interface OrdersSection {
  pipeline: TradingPipeline;
  /** The trading book (the value history reads it). */
  positions: PositionsService;
  events: TradingEvents;
  dca: DcaService;
  status: StoreStatusReader;
  /** The command route's executor (a legacy bot's chat executes trading commands through it). */
  command: TradingCommand;
  recover(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Orders, the safety path, positions, DCA and the command route, added to the trading module's lists. */
export function buildOrders(deps: OrdersCompositionDeps, module: TradingParts): OrdersSection {
  const events = new TradingEvents(deps.events);
  const price = (chain: string, token: string) => deps.venue.priceUsd(chain as Chain, token);
  const orders = deps.runtime.collection(orderDefinition);
  const status = new StoreStatusReader({ actors: statusActors(deps.runtime), store: deps.store, clock: deps.clock, price });
  const positions = new PositionsService({ store: deps.store, clock: deps.clock, events, isWrap: isWrapPair });
  const safety = new SafetyPath({
    status,
    config: deps.config,
    killSwitch: deps.killSwitch,
    wallets: deps.wallets,
    venue: deps.venue,
    breakerOf: deps.breakerOf,
    events,
    clock: deps.clock,
  });
  const volume = new DailyVolume(deps.store);
  const pipeline = new TradingPipeline({
    safety,
    orders,
    venue: deps.venue,
    wallets: deps.wallets,
    positions,
    volume,
    scheduler: deps.scheduler,
    config: deps.config,
    clock: deps.clock,
    newOrderId,
  });
  const queries = new OrderQueries(orders, deps.clock);
  const dca = new DcaService({
    actors: { strategies: deps.runtime.collection(dcaStrategyDefinition), orders },
    store: deps.store,
    scheduler: deps.scheduler,
    pipeline,
    venue: deps.venue,
    config: deps.config,
    status,
    clock: deps.clock,
    newId: () => randomBytes(12).toString('base64url'),
    minIntervalMs: deps.dca.minIntervalMs,
    perUser: { max: deps.dca.strategiesPerUser, subjectsOf: deps.dca.subjectsOf },
    observer: deps.dcaTicks,
    logger: deps.logger,
  });
  const deposits = deps.faucet
    ? new DepositsService({
        store: deps.store,
        clock: deps.clock,
        faucet: deps.faucet,
        positions,
        newId: () => randomId('dep'),
      })
    : undefined;
  const command = new TradingCommand({ pipeline, queries, positions, status, config: deps.config, price, dca: new DcaCommandRunner(dca) });

  module.definitions.push(orderDefinition, dcaStrategyDefinition);
  module.collections.push(DAILY_VOLUME_COLLECTION, DCA_NAMES_COLLECTION, ...(deposits ? [DEPOSITS_COLLECTION] : []));
  // Due jobs, each through its `system` operation: DCA ticks run a trade in the strategies service, expiry is an order event.
  module.dueJobs.push(
    { type: DCA_TYPE, event: TICK_EVENT, operation: 'dca_tick', input: (job) => ({ strategyId: job.address.id, dueAt: job.dueAt }) },
    { type: DCA_TYPE, event: END_EVENT, operation: 'dca_end', input: (job) => ({ strategyId: job.address.id, dueAt: job.dueAt }) },
    {
      type: orders.type,
      event: 'order.expire',
      operation: 'order_expire',
      input: (job) => ({ orderId: job.address.id, at: job.event.at, dueAt: job.dueAt }),
    },
  );
  module.operations.push(
    ...tradingOperations({ pipeline, queries, venue: deps.venue, config: deps.config }),
    ...tradingInfoOperations({
      positions,
      venue: deps.venue,
      breakerOf: deps.breakerOf,
      killSwitch: deps.killSwitch,
      config: deps.config,
      wallets: deps.wallets,
      clock: deps.clock,
      ...(deposits ? { deposits } : {}),
    }),
    ...riskOperations({
      preflight: new TradePreflight({ safety, volume, clock: deps.clock }),
      catalog: deps.catalog,
      tokens: new TokenRisk({
        venue: deps.venue,
        config: deps.config,
        killSwitch: deps.killSwitch,
        breakerOf: deps.breakerOf,
        clock: deps.clock,
      }),
      config: deps.config,
    }),
    ...commandOperations(command, deps.catalog),
    ...dcaOperations(dca),
    ...dcaDueOperations(dca),
    ...orderDueOperations(orders),
  );
  module.bindings.push(...TRADING_BINDINGS, ...DCA_BINDINGS, ...(deps.faucet ? [PAPER_FAUCET_BINDING] : []));

  const reconciler = new OrderReconciler({ pipeline, orders, strategies: dca, logger: deps.logger });
  const reconcile = (order: OrderContext) => reconciler.reconcile(order);

  const recover = async () => {
    // Strategies from before the end job existed get one (a past end completes them at once).
    await dca.armEndJobs();
    // Faucet deposits a crash left with one side booked get the other.
    if (deposits) await deposits.finishPending();
    // Finish what a crash left in flight, and re-arm approval expiries.
    for (const state of ['submitting', 'submitted'] as const) await eachOrder(orders, state, reconcile);
    await eachOrder(orders, 'pending_approval', async (order) => {
      await deps.scheduler.scheduleOnce({
        jobId: expiryJobId(order.orderId),
        address: { type: orders.type, id: order.orderId },
        event: { type: 'order.expire', at: order.approvalExpiresAt ?? deps.clock.now() },
        runAt: order.approvalExpiresAt ?? deps.clock.now(),
      });
    });
  };

  let cancel: (() => void) | undefined;
  const sweep = () => {
    cancel = deps.clock.setTimer(() => {
      const stuckBefore = deps.clock.now() - STUCK_SUBMITTING_MS;
      void eachOrder(orders, 'submitted', reconcile)
        .then(() => eachOrder(orders, 'submitting', async (order) => (order.updatedAt < stuckBefore ? reconcile(order) : undefined)))
        // A deposit still pending after a minute lost its call (another process died mid-way).
        .then(async () => void (await deposits?.finishPending(deps.clock.now() - STUCK_DEPOSIT_MS)))
        .catch((error: unknown) => deps.logger.error({ err: error }, 'order reconciliation sweep failed'))
        .finally(() => {
          if (cancel) sweep();
        });
    }, RECONCILE_EVERY_MS);
  };
  const start = async () => sweep();
  const stop = async () => {
    const stopSweep = cancel;
    cancel = undefined;
    stopSweep?.();
  };
  return { pipeline, positions, events, dca, status, command, recover, start, stop };
}

async function eachOrder(
  orders: ActorCollection<OrderContext>,
  state: string,
  visit: (order: OrderContext) => Promise<void>,
): Promise<void> {
  let cursor: string | undefined;
  do {
    const page = await orders.find({ index: 'state', eq: state }, { limit: RECOVERY_PAGE, ...(cursor ? { cursor } : {}) });
    for (const view of page.items) await visit(view.context);
    cursor = page.nextCursor;
  } while (cursor);
}
