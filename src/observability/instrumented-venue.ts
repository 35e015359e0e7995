import { isAppError } from '../../kernel/errors/app-error.js';
import type { BreakerReadout, Chain, ExecuteRequest, ExecutionResult, PlannedFill, VenuePort } from '../../kernel/ports/venue.port.js';
import type { SwapOutcome, TradingMetrics } from './trading.metrics.js';

/** A venue behind its breakers (`GuardedVenue` of the adapters, named here by its ports only). */
export type BreakerAwareVenue = VenuePort & { breakerOf(chain: Chain): BreakerReadout };

/**
 * The same venue, with the latency of every swap (`execute`, through the provider's breaker
 * and timeout) observed in `swap_duration_seconds` by provider, chain and outcome. Wrapping
 * the port keeps venues and the trading pipeline free of metrics code; one clock read on
 * each side and a histogram observation is all it adds to the swap path.
 */
export function instrumentVenue(venue: BreakerAwareVenue, metrics: TradingMetrics): BreakerAwareVenue {
  // The provider behind a chain is fixed by the configuration: looked up once per chain.
  const providers = new Map<string, string>();
  const providerOf = (chain: Chain): string => {
    let provider = providers.get(chain);
    if (provider === undefined) {
      provider = venue.breakerOf(chain).provider;
      providers.set(chain, provider);
    }
    return provider;
  };
  const execute = async (request: ExecuteRequest): Promise<ExecutionResult> => {
    const started = performance.now();
    let outcome: SwapOutcome = 'error';
    try {
      const result = await venue.execute(request);
      outcome = result.status;
      return result;
    } catch (error) {
      if (isAppError(error) && error.code === 'CIRCUIT_BREAKER_OPEN') outcome = 'circuit_open';
      throw error;
    } finally {
      metrics.observeSwap(providerOf(request.chain), request.chain, outcome, (performance.now() - started) / 1000);
    }
  };
  // A planned fill is the swap of a venue that settles in this store: observed as one when planned
  // (its commit follows at once; a plan redone after a lost compare-and-set is observed again).
  const plan = venue.planFill?.bind(venue);
  const planFill =
    plan &&
    (async (request: ExecuteRequest): Promise<PlannedFill | null> => {
      const started = performance.now();
      const planned = await plan(request);
      if (planned) metrics.observeSwap(providerOf(request.chain), request.chain, 'filled', (performance.now() - started) / 1000);
      return planned;
    });
  // Every other member is the venue's own, delegated as it is (explicitly: no per-call binding on the hot path).
  const market = venue.market?.bind(venue);
  return {
    name: venue.name,
    chains: venue.chains,
    breakerOf: (chain) => venue.breakerOf(chain),
    findToken: (chain, symbolOrAddress) => venue.findToken(chain, symbolOrAddress),
    searchTokens: (query, options) => venue.searchTokens(query, options),
    priceUsd: (chain, address) => venue.priceUsd(chain, address),
    quote: (request) => venue.quote(request),
    execute,
    lookup: (clientOrderId, chain) => venue.lookup(clientOrderId, chain),
    balances: (chain, address) => venue.balances(chain, address),
    health: (chain) => venue.health(chain),
    ...(market ? { market } : {}),
    ...(planFill ? { planFill } : {}),
  };
}
