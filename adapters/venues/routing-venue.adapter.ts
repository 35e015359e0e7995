import { AppError } from '../../kernel/errors/app-error.js';
import type {
  BreakerReadout,
  Chain,
  ExecuteRequest,
  ExecutionResult,
  MarketInfo,
  PlannedFill,
  Quote,
  QuoteRequest,
  TokenInfo,
  VenueHealth,
  VenuePort,
} from '../../kernel/ports/venue.port.js';

/** A venue that also tells the state of its provider's breaker (a `BreakerVenue`). */
export interface GuardedVenue extends VenuePort {
  breakerOf(chain: Chain): BreakerReadout;
}

/**
 * One venue per chain behind one port (live profile: Jupiter on Solana, a 0x-style API
 * on EVM chains). Callers never branch on the venue; a chain with no venue configured is
 * refused with a clear 400 instead of being traded somewhere unexpected. Every method is
 * async, so that refusal is a rejected promise (callers that `.catch` it, as withdrawals'
 * token directory does on a chain with an RPC but no venue, see it), never a synchronous throw.
 */
export class RoutingVenue implements GuardedVenue {
  readonly name: string;
  readonly chains: readonly Chain[];

  constructor(private readonly byChain: Partial<Record<Chain, GuardedVenue>>) {
    this.chains = Object.keys(byChain) as Chain[];
    this.name = [...new Set(Object.values(byChain).map((venue) => venue!.name))].join('+');
  }

  breakerOf(chain: Chain): BreakerReadout {
    const venue = this.byChain[chain];
    return venue ? venue.breakerOf(chain) : { provider: 'none', state: 'closed' };
  }

  async findToken(chain: Chain, symbolOrAddress: string): Promise<TokenInfo | null> {
    return this.venue(chain).findToken(chain, symbolOrAddress);
  }

  async searchTokens(query: string, options: { chain?: Chain; limit: number }): Promise<TokenInfo[]> {
    if (options.chain) return this.venue(options.chain).searchTokens(query, options);
    const venues = [...new Set(Object.values(this.byChain))] as GuardedVenue[];
    const found = await Promise.all(venues.map((venue) => venue.searchTokens(query, { limit: options.limit })));
    return found.flat().slice(0, options.limit);
  }

  async priceUsd(chain: Chain, address: string): Promise<number | null> {
    return this.venue(chain).priceUsd(chain, address);
  }

  async quote(request: QuoteRequest): Promise<Quote> {
    return this.venue(request.chain).quote(request);
  }

  async execute(request: ExecuteRequest): Promise<ExecutionResult> {
    return this.venue(request.chain).execute(request);
  }

  /** Planned by the chain's venue when it settles in this service's store; null (take `execute`) otherwise. */
  async planFill(request: ExecuteRequest): Promise<PlannedFill | null> {
    const venue = this.venue(request.chain);
    return venue.planFill ? venue.planFill(request) : null;
  }

  async lookup(clientOrderId: string, chain: Chain): Promise<ExecutionResult | null> {
    return this.venue(chain).lookup(clientOrderId, chain);
  }

  async balances(chain: Chain, address: string): Promise<Record<string, string>> {
    return this.venue(chain).balances(chain, address);
  }

  async health(chain: Chain): Promise<VenueHealth> {
    const venue = this.byChain[chain];
    return venue ? venue.health(chain) : { chain, reachable: false, error: `no venue is configured for ${chain}` };
  }

  async market(chain: Chain, address: string): Promise<MarketInfo | null> {
    return (await this.byChain[chain]?.market?.(chain, address)) ?? null;
  }

  private venue(chain: Chain): GuardedVenue {
    const venue = this.byChain[chain];
    if (!venue) throw new AppError('VALIDATION_ERROR', `No trading venue is configured for chain: ${chain}`, { retryable: false });
    return venue;
  }
}
