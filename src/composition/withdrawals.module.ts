import { EvmChain } from '../../adapters/evm/evm-chain.adapter.js';
import { nativeToken } from '../../kernel/vocabulary/chains.js';
import { PositionsService } from '../../agents/portfolio/positions.service.js';
import { TradingEvents } from '../../agents/trading/trading-events.js';
import { WITHDRAWAL_CAP_COLLECTION, WithdrawalCap } from '../../agents/withdrawals/withdrawal-cap.js';
import { logWithdrawalChange } from '../../agents/withdrawals/withdrawal-log.js';
import { WithdrawalReconciler } from '../../agents/withdrawals/withdrawal-reconciler.js';
import { WITHDRAWAL_SETTINGS_COLLECTION, WithdrawalSettingsStore } from '../../agents/withdrawals/withdrawal-settings.js';
import { WithdrawalService } from '../../agents/withdrawals/withdrawal.service.js';
import type { WalletService } from '../../agents/wallets/wallet.service.js';
import { withdrawalDefinition } from '../../machines/withdrawal.machine.js';
import { WITHDRAWAL_BINDINGS } from '../http/routes/withdrawals.bindings.js';
import { withdrawalOperations } from '../operations/definitions/withdrawals.ops.js';
import type { ChainPort } from '../../kernel/ports/chain.port.js';
import { CHAINS, type Chain, type TokenInfo, type VenuePort } from '../../kernel/ports/venue.port.js';
import type { FeatureModule, ModuleContext } from './feature-module.types.js';
import type { StoreStatusReader } from '../../agents/portfolio/status-reader.js';

/** What withdrawals take from the trading module (venue, chains, kill switch, wallets) and from accounts (step-up, claims). */
export interface WithdrawalsParts {
  venue: VenuePort;
  chains: Partial<Record<Chain, ChainPort>>;
  killSwitch: { isActive(chain: Chain): Promise<boolean> };
  /** The agent's (or bot's) status, as the safety path reads it. */
  status: Pick<StoreStatusReader, 'agentStatus'>;
  wallets: WalletService;
  stepUp: { consume(input: { userId: string; target: string; token: string | null | undefined }): Promise<void> };
  /** The control plane's claim (accounts): settings change only for the operator who claimed the agent. */
  claims: { requireClaim(userId: string, agentActorId: string): Promise<void> };
}

/** The reconciliation sweep's period (the start-up recovery runs once before it). */
const SWEEP_EVERY_MS = 30_000;

/**
 * Agent wallet balances and withdrawals: the withdrawal actor, its settings and
 * daily cap records, the balance and withdraw operations, and the reconciler that finishes
 * what a crash left in flight (at recovery, then every 30 s for withdrawals stuck in flight).
 */
export function withdrawalsModule(ctx: ModuleContext, parts: WithdrawalsParts): FeatureModule {
  const withdrawals = ctx.runtime.collection(withdrawalDefinition);
  const settings = new WithdrawalSettingsStore({ store: ctx.store, clock: ctx.clock });
  const service = new WithdrawalService({
    withdrawals,
    chainOf: (chain) => parts.chains[chain],
    chains: CHAINS.filter((chain) => parts.chains[chain] !== undefined),
    wallets: parts.wallets,
    tokens: tokenDirectory(parts.venue, parts.chains),
    killSwitch: parts.killSwitch,
    accountActive: async (subject) => (await parts.status.agentStatus(subject)).status === 'active',
    settings,
    cap: new WithdrawalCap(ctx.store),
    stepUp: parts.stepUp,
    positions: new PositionsService({ store: ctx.store, clock: ctx.clock, events: new TradingEvents(ctx.publisher) }),
    clock: ctx.clock,
  });
  const reconciler = new WithdrawalReconciler({ service, withdrawals, clock: ctx.clock, logger: ctx.logger });
  // Observed from here on: recovery (before start) moves withdrawals too.
  ctx.publisher.observe((event) => logWithdrawalChange(ctx.logger, event));

  let cancel: (() => void) | undefined;
  const sweep = () => {
    cancel = ctx.clock.setTimer(() => {
      void reconciler
        .run({ stuckOnly: true })
        .catch((error: unknown) => ctx.logger.error({ err: error }, 'withdrawal reconciliation sweep failed'))
        .finally(() => {
          if (cancel) sweep();
        });
    }, SWEEP_EVERY_MS);
  };

  return {
    name: 'withdrawals',
    definitions: [withdrawalDefinition],
    collections: [WITHDRAWAL_SETTINGS_COLLECTION, WITHDRAWAL_CAP_COLLECTION],
    operations: withdrawalOperations(service, settings, parts.stepUp, parts.claims),
    bindings: WITHDRAWAL_BINDINGS,
    routers: [],
    dueJobs: [],
    // At start: finish what a crash left in flight (no request of this process is running yet).
    recover: () => reconciler.run({ stuckOnly: false }),
    start: async () => sweep(),
    stop: async () => {
      const stopSweep = cancel;
      cancel = undefined;
      stopSweep?.();
    },
  };
}

/**
 * Tokens and prices for withdrawals: the venue's directory first; the native coins always;
 * on a live EVM chain without a venue, an ERC-20's own metadata. Balances from the venue,
 * else the chain's native balance.
 */
function tokenDirectory(venue: VenuePort, chains: Partial<Record<Chain, ChainPort>>) {
  const native = (chain: Chain): TokenInfo => {
    const { address, symbol, name, decimals } = nativeToken(chain);
    return { chain, address, symbol, name, decimals, native: true };
  };
  return {
    async find(chain: Chain, ref: string): Promise<TokenInfo | null> {
      const found = await venue.findToken(chain, ref).catch(() => null);
      if (found) return found;
      const coin = native(chain);
      if (ref.toUpperCase() === coin.symbol || ref.toLowerCase() === coin.address.toLowerCase()) return coin;
      const evm = chains[chain];
      if (evm instanceof EvmChain && /^0x[0-9a-fA-F]{40}$/.test(ref)) {
        const meta = await evm.readErc20(ref);
        return meta ? { chain, address: ref, name: meta.name, symbol: meta.symbol, decimals: meta.decimals } : null;
      }
      return null;
    },
    priceUsd: (chain: Chain, address: string) => venue.priceUsd(chain, address).catch(() => null),
    async balances(chain: Chain, address: string): Promise<Record<string, string>> {
      const fromVenue = await venue.balances(chain, address).catch(() => null);
      if (fromVenue) return fromVenue;
      const port = chains[chain];
      return port ? { [native(chain).address]: await port.nativeBalance(address) } : {};
    },
  };
}
