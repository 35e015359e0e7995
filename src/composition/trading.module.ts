import { KILL_SWITCH_COLLECTIONS, StoreKillSwitch } from '../../agents/config/kill-switch.service.js';
import { StoreTradingConfig, TRADING_CONFIG_COLLECTIONS } from '../../agents/config/trading-config.service.js';
import { CUSTODIAL_KEYS_PURPOSE, LocalKeyCustody } from '../../adapters/key-custody/local-key-custody.adapter.js';
import { APPROVAL_COLLECTIONS, TokenApprovalsService } from '../../agents/wallets/token-approvals.service.js';
import { TradingEvents } from '../../agents/trading/trading-events.js';
import { TRADING_RECORD_COLLECTIONS } from '../../agents/portfolio/portfolio.records.js';
import { WALLET_COLLECTIONS } from '../../agents/wallets/wallet.records.js';
import { WalletService } from '../../agents/wallets/wallet.service.js';
import { buildOrders, type TradingParts } from './orders.composition.js';
import { buildValueHistory } from './value-history.composition.js';
import { buildVenue } from './venue.composition.js';
import type { FeatureModule, ModuleContext } from './feature-module.types.js';
import { instrumentVenue, type BreakerAwareVenue } from '../observability/instrumented-venue.js';
import { SecretBox } from '../../kernel/crypto/secret-box.js';
import { KILL_SWITCH_BINDINGS } from '../http/routes/kill-switch.bindings.js';
import { killSwitchOperations } from '../operations/definitions/kill-switch.ops.js';
import { TRADING_CONFIG_BINDINGS } from '../http/routes/trading-config.bindings.js';
import { WALLET_BINDINGS } from '../http/routes/wallet.bindings.js';
import { tradingConfigOperations } from '../operations/definitions/trading-config.ops.js';
import { walletOperations } from '../operations/definitions/wallet.ops.js';
import { portfolioOperations } from '../operations/definitions/portfolio.ops.js';
import { walletChainOf, type BreakerReadout, type Chain, type WalletChain } from '../../kernel/ports/venue.port.js';
import type { ActorRuntime } from '../runtime/actor-runtime.js';
import { agentDefinition } from '../../machines/agent.machine.js';
import { botDefinition } from '../../machines/bot.machine.js';

/**
 * The trading core: venue, trading configuration, kill switch, wallets, orders and
 * the safety path, positions and portfolio, DCA, and their due jobs (order expiry, DCA ticks
 * and ends). Each section builds one part; only this file knows the adapters chosen.
 * `status` is its reader of status and portfolio (positions valued at the venue's prices).
 */
export function tradingModule(ctx: ModuleContext) {
  const parts: TradingParts = { definitions: [], collections: [...TRADING_RECORD_COLLECTIONS], operations: [], bindings: [], dueJobs: [] };
  const box = (purpose: string) => new SecretBox(ctx.secrets.DATA_ENCRYPTION_KEY, purpose);

  // --- venue: the paper venue by default, live adapters when configured ---
  const built = buildVenue(ctx.config.trading, ctx);
  const { faucet } = built;
  parts.collections.push(...built.collections);
  const venue = instrumentVenue(built.venue, ctx.metrics.trading);
  ctx.metrics.trading.addBreakerSource(() => breakersOf(venue));

  // --- trading configuration and kill switch ---
  // The safety path (orders section) reads both: `tradingConfig.get/isBlacklisted`, `killSwitch.isActive`.
  const tradingConfig = new StoreTradingConfig({ store: ctx.store, clock: ctx.clock });
  const killSwitch = new StoreKillSwitch({ store: ctx.store, clock: ctx.clock, configured: ctx.config.trading.killSwitch });
  parts.operations.push(...tradingConfigOperations(tradingConfig));
  parts.bindings.push(...TRADING_CONFIG_BINDINGS);
  parts.collections.push(...TRADING_CONFIG_COLLECTIONS, ...KILL_SWITCH_COLLECTIONS);
  parts.operations.push(...killSwitchOperations(killSwitch, ctx.logger));
  parts.bindings.push(...KILL_SWITCH_BINDINGS);

  // --- wallets ---
  // The orders section signs and spends through `wallets` (a WalletDirectory: signingWallet, signer, reserveSpend).
  const custody = new LocalKeyCustody(box(CUSTODIAL_KEYS_PURPOSE));
  const walletEvents = new TradingEvents(ctx.publisher);
  const wallets = new WalletService({ store: ctx.store, custody, clock: ctx.clock, events: walletEvents });
  const approvals = new TokenApprovalsService({ store: ctx.store, clock: ctx.clock, wallets });
  parts.operations.push(...walletOperations(wallets, approvals));
  parts.bindings.push(...WALLET_BINDINGS);
  parts.collections.push(...WALLET_COLLECTIONS, ...APPROVAL_COLLECTIONS);

  // --- orders and the safety path, positions, DCA ---
  const orders = buildOrders(
    {
      ...ctx,
      events: ctx.publisher,
      venue,
      breakerOf: (chain) => venue.breakerOf(chain),
      config: tradingConfig,
      killSwitch,
      wallets,
      dcaTicks: ctx.metrics.dcaTicks,
      dca: {
        minIntervalMs: ctx.config.trading.dcaMinIntervalMs,
        strategiesPerUser: ctx.config.limits.strategiesPerUser,
        // Every agent and legacy bot the user owns: strategies of each count against the per-user cap.
        subjectsOf: async (userId) => [...(await ownedBy(ctx.runtime, 'agent', userId)), ...(await ownedBy(ctx.runtime, 'bot', userId))],
      },
      ...(faucet ? { faucet } : {}),
    },
    parts,
  );
  parts.operations.push(...portfolioOperations(orders.status));

  // --- portfolio value history: readings after balance changes and on a minute sweep ---
  const valueHistory = buildValueHistory(ctx, { positions: orders.positions, venue }, parts);

  const module = {
    name: 'trading',
    ...offeredOn(venue.chains, parts),
    routers: [],
    recover: orders.recover,
    start: async () => {
      await orders.start();
      await valueHistory.start();
    },
    stop: async () => {
      await valueHistory.stop();
      await orders.stop();
    },
  } satisfies FeatureModule;
  // `withdrawals` (withdrawals.module.ts) pays out of the same wallets, under the same kill switch, through the venue's chains.
  return {
    ...module,
    status: orders.status,
    command: orders.command,
    withdrawalParts: { venue, chains: built.chains, killSwitch, wallets, status: orders.status },
  };
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
async function ownedBy(
  runtime: ActorRuntime,
  type: 'agent' | 'bot',
  userId: string,
): Promise<Array<{ type: 'agent' | 'bot'; id: string }>> {
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
 * A smaller deployment offers fewer tools (the MCP routes): without a venue for a chain
 * family, its trading operations and their REST routes are left out, so `tools/list` and
 * the OpenAPI document only show what can work here.
 */
function offeredOn(chains: readonly Chain[], module: TradingParts): TradingParts {
  // A renamed operation must not silently stay offered everywhere.
  for (const name of Object.keys(NEEDS_VENUE))
    if (!module.operations.some((operation) => operation.name === name)) throw new Error(`NEEDS_VENUE names no operation: ${name}`);
  const served = new Set(chains.map(walletChainOf));
  const offered = (name: string) => NEEDS_VENUE[name] === undefined || served.has(NEEDS_VENUE[name]);
  return {
    ...module,
    operations: module.operations.filter((operation) => offered(operation.name)),
    bindings: module.bindings.filter((binding) => offered(binding.operation)),
  };
}
