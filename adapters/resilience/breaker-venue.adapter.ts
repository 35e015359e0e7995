import { isAppError } from '../../kernel/errors/app-error.js';
import type {
  BreakerReadout,
  Chain,
  MarketInfo,
  ExecuteRequest,
  PlannedFill,
  ExecutionResult,
  Quote,
  QuoteRequest,
  TokenInfo,
  VenueHealth,
  VenuePort,
} from '../../kernel/ports/venue.port.js';
import { ProviderBreaker, providerUnavailable, type BreakerState, type ProviderBreakerOptions } from './provider-breaker.js';

export interface BreakerVenueOptions extends Omit<ProviderBreakerOptions, 'provider'> {
  /** Default: the wrapped venue's `name`. */
  provider?: string;
  /**
   * Budget of `execute` and `lookup`, which sign, broadcast and wait for confirmation:
   * longer than `timeoutMs` and than the venue's own confirmation wait. Default 90 s.
   */
  executeTimeoutMs?: number;
}

const DEFAULT_EXECUTE_TIMEOUT_MS = 90_000;

/**
 * Decorates any venue so that every call goes through one `ProviderBreaker`: a provider
 * that keeps failing is short-circuited with `Circuit breaker open for provider: <name>`
 * instead of being hammered, and the safety path reads `breakerState()` before trading.
 */
export class BreakerVenue implements VenuePort {
  readonly name: string;
  readonly chains: readonly Chain[];
  private readonly breaker: ProviderBreaker;
  private readonly provider: string;
  private readonly executeTimeoutMs: number;

  constructor(
    private readonly inner: VenuePort,
    options: BreakerVenueOptions,
  ) {
    this.name = inner.name;
    this.chains = inner.chains;
    const { executeTimeoutMs, provider, ...breakerOptions } = options;
    this.provider = provider ?? inner.name;
    this.breaker = new ProviderBreaker({ ...breakerOptions, provider: this.provider });
    const market = inner.market?.bind(inner);
    if (market) this.market = (chain, address) => this.breaker.execute(() => market(chain, address));
    const planFill = inner.planFill?.bind(inner);
    // Planned as `execute` is run: through the breaker, under the same budget.
    if (planFill) this.planFill = (request) => this.breaker.execute(() => planFill(request), { timeoutMs: this.executeTimeoutMs });
    this.executeTimeoutMs = executeTimeoutMs ?? Math.max(DEFAULT_EXECUTE_TIMEOUT_MS, options.timeoutMs);
  }

  breakerState(): BreakerState {
    return this.breaker.state();
  }

  /** The breaker of this venue's provider (one provider per venue, whatever the chain). */
  breakerOf(_chain: Chain): BreakerReadout {
    return { provider: this.provider, state: this.breaker.state() };
  }

  /** Market data through the same breaker, when the wrapped venue has it. */
  readonly market?: (chain: Chain, address: string) => Promise<MarketInfo | null>;

  /** A fill planned as writes, when the wrapped venue settles in this service's store. */
  readonly planFill?: (request: ExecuteRequest) => Promise<PlannedFill | null>;

  // Token lookups may be answered from the venue's own list: weak evidence of the provider's health.
  findToken(chain: Chain, symbolOrAddress: string): Promise<TokenInfo | null> {
    return this.breaker.execute(() => this.inner.findToken(chain, symbolOrAddress), { weak: true });
  }

  searchTokens(query: string, options: { chain?: Chain; limit: number }): Promise<TokenInfo[]> {
    return this.breaker.execute(() => this.inner.searchTokens(query, options), { weak: true });
  }

  priceUsd(chain: Chain, address: string): Promise<number | null> {
    return this.breaker.execute(() => this.inner.priceUsd(chain, address));
  }

  quote(request: QuoteRequest): Promise<Quote> {
    return this.breaker.execute(() => this.inner.quote(request));
  }

  execute(request: ExecuteRequest): Promise<ExecutionResult> {
    return this.breaker.execute(() => this.inner.execute(request), { timeoutMs: this.executeTimeoutMs });
  }

  lookup(clientOrderId: string, chain: Chain): Promise<ExecutionResult | null> {
    return this.breaker.execute(() => this.inner.lookup(clientOrderId, chain), { timeoutMs: this.executeTimeoutMs });
  }

  balances(chain: Chain, address: string): Promise<Record<string, string>> {
    return this.breaker.execute(() => this.inner.balances(chain, address));
  }

  /**
   * Never throws: an open circuit or a failed probe is reported as unreachable. A probe that
   * finds the provider unreachable counts as a failure of it (on a chain the venue serves).
   */
  async health(chain: Chain): Promise<VenueHealth> {
    if (!this.chains.includes(chain)) return this.inner.health(chain);
    let probed: VenueHealth | undefined;
    try {
      return await this.breaker.execute(async () => {
        probed = await this.inner.health(chain);
        if (!probed.reachable) throw providerUnavailable(this.provider, probed.error ?? 'unreachable');
        return probed;
      });
    } catch (error) {
      return probed ?? { chain, reachable: false, error: isAppError(error) || error instanceof Error ? error.message : String(error) };
    }
  }
}
