import { EvmChain, evmRpcTransport } from '../../adapters/evm/evm-chain.adapter.js';
import { ZeroExVenue } from '../../adapters/evm/zerox-venue.adapter.js';
import { PAPER_COLLECTIONS } from '../../adapters/paper/paper-ledger.js';
import { PaperChain } from '../../adapters/paper/paper-chain.adapter.js';
import { PaperVenue } from '../../adapters/paper/paper-venue.adapter.js';
import { SolanaChain } from '../../adapters/solana/solana-chain.adapter.js';
import { BreakerVenue } from '../../adapters/resilience/breaker-venue.adapter.js';
import type { BreakerLogger } from '../../adapters/resilience/provider-breaker.js';
import { LIVE_EXECUTIONS } from '../../adapters/resilience/execution-journal.js';
import { JupiterVenue } from '../../adapters/solana/jupiter-venue.adapter.js';
import { connectionRpc } from '../../adapters/solana/solana-rpc.js';
import { RoutingVenue, type GuardedVenue } from '../../adapters/venues/routing-venue.adapter.js';
import type { TradingSettings } from '../config/config.schema.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { CollectionSpec, StorePort } from '../../kernel/ports/store.port.js';
import type { ChainPort } from '../../kernel/ports/chain.port.js';
import { CHAINS, type Chain, type FaucetPort } from '../../kernel/ports/venue.port.js';

export interface VenueChoice {
  venue: GuardedVenue;
  /** The paper venue's faucet; absent on the live profile. */
  faucet?: FaucetPort;
  collections: CollectionSpec[];
  /** Transfers per chain (withdrawals): paper chains on the paper venue; the configured RPCs live. */
  chains: Partial<Record<Chain, ChainPort>>;
}

/**
 * The venue of the configuration: the paper venue (default), or live venues per chain
 * (Jupiter on Solana, a 0x-style API on EVM chains with an RPC URL). Every venue sits
 * behind its own circuit breaker and timeout.
 */
export function buildVenue(settings: TradingSettings, deps: { store: StorePort; clock: ClockPort; logger?: BreakerLogger }): VenueChoice {
  const guard = {
    threshold: settings.breaker.threshold,
    openMs: settings.breaker.openMs,
    timeoutMs: settings.providerTimeoutMs,
    clock: deps.clock,
    ...(deps.logger ? { logger: deps.logger } : {}),
  };
  if (settings.venue === 'paper') {
    const paper = new PaperVenue({ store: deps.store, clock: deps.clock, seed: settings.paperSeed });
    // In-process: a breaker still isolates its failures, but there is no network to time out.
    const chains = Object.fromEntries(CHAINS.map((chain) => [chain, new PaperChain({ chain, store: deps.store, clock: deps.clock })]));
    return {
      venue: new BreakerVenue(paper, { ...guard, timeoutMs: 0, executeTimeoutMs: 0 }),
      faucet: paper,
      collections: PAPER_COLLECTIONS,
      chains,
    };
  }
  const { live } = settings;
  const byChain: ConstructorParameters<typeof RoutingVenue>[0] = {};
  if (live.jupiterApiUrl && live.solanaRpcUrl) {
    const jupiter = new JupiterVenue({
      apiUrl: live.jupiterApiUrl,
      rpc: connectionRpc(live.solanaRpcUrl),
      store: deps.store,
      clock: deps.clock,
      requestTimeoutMs: settings.providerTimeoutMs,
    });
    byChain.solana = new BreakerVenue(jupiter, guard);
  }
  const evmChains = Object.fromEntries(
    Object.entries(live.evmRpcUrls).map(([chain, url]) => [
      chain,
      new EvmChain({
        chain: chain as keyof typeof live.evmRpcUrls,
        transport: evmRpcTransport(url!, { timeoutMs: settings.providerTimeoutMs }),
      }),
    ]),
  );
  if (live.zeroxApiUrl && Object.keys(evmChains).length > 0) {
    const zeroEx = new BreakerVenue(
      new ZeroExVenue({
        apiUrl: live.zeroxApiUrl,
        ...(live.zeroxApiKey ? { apiKey: live.zeroxApiKey } : {}),
        chains: evmChains,
        store: deps.store,
        clock: deps.clock,
        requestTimeoutMs: settings.providerTimeoutMs,
      }),
      guard,
    );
    for (const chain of Object.keys(evmChains)) byChain[chain as keyof typeof byChain] = zeroEx;
  }
  // Withdrawals need only a chain's RPC, not a venue on it.
  const chains: Partial<Record<Chain, ChainPort>> = { ...evmChains };
  if (live.solanaRpcUrl) chains.solana = new SolanaChain({ rpc: connectionRpc(live.solanaRpcUrl) });
  return { venue: new RoutingVenue(byChain), collections: [LIVE_EXECUTIONS], chains };
}
