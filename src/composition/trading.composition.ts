import type { Logger } from 'pino';
import { KILL_SWITCH_COLLECTIONS, StoreKillSwitch } from '../../agents/config/kill-switch.service.js';
import { StoreTradingConfig, TRADING_CONFIG_COLLECTIONS } from '../../agents/config/trading-config.service.js';
import { CUSTODIAL_KEYS_PURPOSE, LocalKeyCustody } from '../../adapters/key-custody/local-key-custody.adapter.js';
import { APPROVAL_COLLECTIONS, TokenApprovalsService } from '../../agents/wallets/token-approvals.service.js';
import { TradingEvents, type StreamPublisher } from '../../agents/trading/trading-events.js';
import { WALLET_COLLECTIONS } from '../../agents/wallets/wallet.records.js';
import { WalletService } from '../../agents/wallets/wallet.service.js';
import { buildOrders } from './orders.composition.js';
import { buildVenue } from './venue.composition.js';
import { buildWithdrawals, type WithdrawalsCompositionDeps } from './withdrawals.composition.js';
import type { TradingModule } from './trading-module.types.js';

export type { TradingModule } from './trading-module.types.js';
import type { AgentsService } from '../accounts/agents.service.js';
import { instrumentVenue, type BreakerAwareVenue } from '../observability/instrumented-venue.js';
import type { Metrics } from '../observability/metrics.js';
import type { AppConfig } from '../config/config.schema.js';
import type { Secrets } from '../config/secrets.js';
import { SecretBox } from '../crypto/secret-box.js';
import { KILL_SWITCH_BINDINGS } from '../http/routes/account.bindings.js';
import { killSwitchOperations } from '../operations/definitions/service-admin.ops.js';
import { TRADING_CONFIG_BINDINGS } from '../http/routes/trading-config.bindings.js';
import { WALLET_BINDINGS } from '../http/routes/wallet.bindings.js';
import { tradingConfigOperations } from '../operations/definitions/trading-config.ops.js';
import { walletOperations } from '../operations/definitions/wallet.ops.js';
import type { ClockPort } from '../ports/clock.port.js';
import type { SchedulerPort } from '../ports/scheduler.port.js';
import type { StorePort } from '../ports/store.port.js';
import { walletChainOf, type BreakerReadout, type Chain, type WalletChain } from '../ports/venue.port.js';
import type { ActorRuntime } from '../runtime/actor-runtime.js';
import { agentDefinition } from '../../machines/agent.machine.js';
import { botDefinition } from '../../machines/bot.machine.js';

export interface TradingCompositionDeps {
  runtime: ActorRuntime;
  store: StorePort;
  clock: ClockPort;
  logger: Logger;
  /** Trading events go out through the runtime's publisher, once durable. */
  events: StreamPublisher;
  scheduler: SchedulerPort;
  agents: AgentsService;
  config: AppConfig;
  secrets: Secrets;
  /** Swap latency and breaker states go here; the DCA tick observer is `metrics.dcaTicks`. */
  metrics: Metrics;
  /** Spends step-up tokens (withdrawal settings, withdrawals that require it). */
  stepUp: WithdrawalsCompositionDeps['stepUp'];
}

/**
 * The trading core (issue 5): venue, trading configuration, wallets, orders and the
 * safety path. Each section builds one part; only this file knows the adapters chosen.
 */
export function buildTrading(deps: TradingCompositionDeps): TradingModule {
  const module: TradingModule = { operations: [], bindings: [], collections: [], definitions: [], dueJobs: {}, start: async () => undefined, stop: async () => undefined };
  const box = (purpose: string) => new SecretBox(deps.secrets.DATA_ENCRYPTION_KEY, purpose);

  // --- venue: the paper venue by default, live adapters when configured ---
  const built = buildVenue(deps.config.trading, deps);
  const { faucet } = built;
  module.collections.push(...built.collections);
  const venue = instrumentVenue(built.venue, deps.metrics.trading);
  deps.metrics.trading.addBreakerSource(() => breakersOf(venue));

  // --- trading configuration and kill switch ---
  // The safety path (orders section) reads both: `tradingConfig.get/isBlacklisted`, `killSwitch.isActive`.
  const tradingConfig = new StoreTradingConfig({ store: deps.store, clock: deps.clock });
  const killSwitch = new StoreKillSwitch({ store: deps.store, clock: deps.clock, configured: deps.config.trading.killSwitch });
  module.operations.push(...tradingConfigOperations(tradingConfig));
  module.bindings.push(...TRADING_CONFIG_BINDINGS);
  module.collections.push(...TRADING_CONFIG_COLLECTIONS, ...KILL_SWITCH_COLLECTIONS);
  module.operations.push(...killSwitchOperations(killSwitch, deps.logger));
  module.bindings.push(...KILL_SWITCH_BINDINGS);

  // --- wallets ---
  // The orders section signs and spends through `wallets` (a WalletDirectory: signingWallet, signer, reserveSpend).
  const custody = new LocalKeyCustody(box(CUSTODIAL_KEYS_PURPOSE));
  const walletEvents = new TradingEvents(deps.events);
  const wallets = new WalletService({ store: deps.store, custody, clock: deps.clock, events: walletEvents });
  const approvals = new TokenApprovalsService({ store: deps.store, clock: deps.clock, wallets });
  module.operations.push(...walletOperations(wallets, approvals));
  module.bindings.push(...WALLET_BINDINGS);
  module.collections.push(...WALLET_COLLECTIONS, ...APPROVAL_COLLECTIONS);

  // --- orders and the safety path ---
  buildOrders(
    {
      ...deps,
      venue,
      breakerOf: (chain) => venue.breakerOf(chain),
      config: tradingConfig,
      killSwitch,
      wallets,
      dcaTicks: deps.metrics.dcaTicks,
      dca: {
        minIntervalMs: deps.config.trading.dcaMinIntervalMs,
        strategiesPerUser: deps.config.limits.strategiesPerUser,
        // Every agent and legacy bot the user owns: strategies of each count against the per-user cap.
        subjectsOf: async (userId) => [...(await ownedBy(deps.runtime, 'agent', userId)), ...(await ownedBy(deps.runtime, 'bot', userId))],
      },
      ...(faucet ? { faucet } : {}),
    },
    module,
  );

  // --- agent wallet: balances and withdrawals ---
  buildWithdrawals({ ...deps, venue, chains: built.chains, killSwitch, wallets }, module);

  return offeredOn(venue.chains, module);
}

/** One readout per provider: a provider serving several chains (0x on every EVM chain) has one breaker. */
function breakersOf(venue: BreakerAwareVenue): BreakerReadout[] {
  const byProvider = new Map<string, BreakerReadout>();
  for (const chain of venue.chains) {
    const readout = venue.breakerOf(chain);
    byProvider.set(readout.provider, readout);
  }
  return [...byProvider.values()];
}

/**
 * The agents (or bots) a user owns whose strategies count against the cap: an archived agent or
 * a deleted bot (final states) never trades again and cannot be addressed to delete its strategies.
 */
async function ownedBy(runtime: ActorRuntime, type: 'agent' | 'bot', userId: string): Promise<Array<{ type: 'agent' | 'bot'; id: string }>> {
  const out: Array<{ type: 'agent' | 'bot'; id: string }> = [];
  const actors = type === 'agent' ? runtime.collection(agentDefinition) : runtime.collection(botDefinition);
  let cursor: string | undefined;
  do {
    const page = await actors.find({ index: 'ownerId', eq: userId }, { limit: 200, ...(cursor ? { cursor } : {}) });
    for (const item of page.items) {
      if (item.state === 'archived' || item.state === 'deleted') continue;
      out.push({ type, id: item.id }); // the actor id: strategies name their account by it
    }
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

/** Operations that trade through a venue of one chain family: offered only where one serves it. */
const NEEDS_VENUE: Readonly<Record<string, WalletChain>> = {
  trading_solana_aggregator_swap: 'solana',
  trading_solana_aggregator_tokens_search: 'solana',
  trading_evm_quote: 'evm',
  trading_evm_swap: 'evm',
};

/**
 * A smaller deployment offers fewer tools (interface 4.5): without a venue for a chain
 * family, its trading operations and their REST routes are left out, so `tools/list` and
 * the OpenAPI document only show what can work here.
 */
function offeredOn(chains: readonly Chain[], module: TradingModule): TradingModule {
  // A renamed operation must not silently stay offered everywhere.
  for (const name of Object.keys(NEEDS_VENUE)) if (!module.operations.some((operation) => operation.name === name)) throw new Error(`NEEDS_VENUE names no operation: ${name}`);
  const served = new Set(chains.map(walletChainOf));
  const offered = (name: string) => NEEDS_VENUE[name] === undefined || served.has(NEEDS_VENUE[name]);
  module.operations = module.operations.filter((operation) => offered(operation.name));
  module.bindings = module.bindings.filter((binding) => offered(binding.operation));
  return module;
}
