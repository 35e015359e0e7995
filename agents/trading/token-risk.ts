import { AppError } from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { BreakerReadout, Chain, MarketInfo, TokenInfo, VenuePort } from '../../kernel/ports/venue.port.js';
import { tokenAddressProblem } from '../../kernel/vocabulary/chain-address.js';
import { escapeUnsafe } from '../../kernel/shared/escape-unsafe.js';
import type { KillSwitch, TokenListEntry, TradingConfig, TradingConfigReader } from '../config/trading-config.types.js';
import type { TradingSubject } from '../portfolio/portfolio.types.js';
import { spendableOn } from './safety-path.js';

/**
 * What the service knows about a token's risk, from its own data only: the venue's token list,
 * prices and market data, the account's lists and policy, and the state of the chain.
 */

/** Liquidity under this (USD depth of the main pool) is flagged `low_liquidity`. */
const LOW_LIQUIDITY_USD = 250_000;
/** A 24 h move of at least this (percent, either way) is flagged `high_volatility`. */
const HIGH_VOLATILITY_PCT = 20;
/** A stablecoin this far from $1 is flagged `depeg`. */
const DEPEG_USD = 0.02;

function listed(list: readonly TokenListEntry[], chain: Chain, address: string): boolean {
  return list.some((entry) => entry.chain === chain && entry.address.toLowerCase() === address.toLowerCase());
}

/**
 * The risk flags of token research: `low_liquidity`, `high_volatility`, `depeg` (stablecoins)
 * and `blacklisted` (by the account); a venue without market data flags by price alone.
 */
export function tokenRiskFlags(token: TokenInfo, market: MarketInfo | null, priceUsd: number | null, config: TradingConfig): string[] {
  const flags: string[] = [];
  if (market && market.liquidityUsd < LOW_LIQUIDITY_USD) flags.push('low_liquidity');
  if (market && Math.abs(market.change24hPct) >= HIGH_VOLATILITY_PCT) flags.push('high_volatility');
  if (/^(USDC|USDT|DAI)$/.test(token.symbol) && priceUsd !== null && Math.abs(priceUsd - 1) > DEPEG_USD) flags.push('depeg');
  if (listed(config.blacklist, token.chain, token.address)) flags.push('blacklisted');
  return flags;
}

/** A token's risk report; `token` and everything about it are absent when the venue does not list it. */
export interface TokenRiskReport {
  chain: Chain;
  /** The symbol or address asked about. */
  query: string;
  /** On the venue's token list for that chain: only a listed token can be traded. */
  listed: boolean;
  token?: TokenInfo & { native: boolean };
  priceUsd: number | null;
  liquidityUsd: number | null;
  change24hPct: number | null;
  /** The account's view of it: its lists, whether it may be spent, and its pool liquidity floor. */
  account?: {
    blacklisted: boolean;
    favorite: boolean;
    /** Whether a trade may spend it (on Solana only native SOL and USDC may be). */
    spendable: boolean;
    /** The pool preferences' minimum liquidity, and whether the main pool's depth is under it (null: no market data). */
    minLiquidityUsd: number;
    belowMinLiquidity: boolean | null;
  };
  /** What would stop any trade on the chain right now. */
  chainStatus: { venueTradesChain: boolean; killSwitch: boolean; provider: string; breaker: BreakerReadout['state'] };
  riskFlags: string[];
  asOf: string;
}

export interface TokenRiskDeps {
  venue: VenuePort;
  config: TradingConfigReader;
  killSwitch: KillSwitch;
  breakerOf: (chain: Chain) => BreakerReadout;
  clock: ClockPort;
}

/** Builds token risk reports for an account. */
export class TokenRisk {
  constructor(private readonly deps: TokenRiskDeps) {}

  /**
   * The report of `query` (symbol or address) on `chain` (default: the account's trade defaults'
   * chain); 400 `token is not a valid <chain> address` for an EVM address with a wrong checksum.
   */
  async report(subject: TradingSubject, query: string, chain?: Chain): Promise<TokenRiskReport> {
    const { deps } = this;
    const config = await deps.config.get(subject);
    const on = chain ?? config.tradeDefaults.chain;
    // The lookup ignores case: a wrong EIP-55 checksum is a typo, refused as trading refuses it, not reported on.
    // The query is quoted back: control and bidi characters in it come back escaped.
    const quoted = escapeUnsafe(query);
    const problem = tokenAddressProblem(on, query, 'token');
    if (problem) throw AppError.validation([problem]);
    const breaker = deps.breakerOf(on);
    const chainStatus = {
      venueTradesChain: deps.venue.chains.includes(on),
      killSwitch: await deps.killSwitch.isActive(on),
      provider: breaker.provider,
      breaker: breaker.state,
    };
    const asOf = new Date(deps.clock.now()).toISOString();
    const token = chainStatus.venueTradesChain ? await deps.venue.findToken(on, query) : null;
    if (!token) {
      const none = { priceUsd: null, liquidityUsd: null, change24hPct: null };
      return { chain: on, query: quoted, listed: false, ...none, chainStatus, riskFlags: ['unlisted'], asOf };
    }
    const market = (await deps.venue.market?.(on, token.address)) ?? null;
    const priceUsd = market?.priceUsd ?? (await deps.venue.priceUsd(on, token.address));
    const minLiquidityUsd = config.poolPreferences.minLiquidityUsd;
    const riskFlags = tokenRiskFlags(token, market, priceUsd, config);
    if (priceUsd === null) riskFlags.push('no_price');
    return {
      chain: on,
      query: quoted,
      listed: true,
      token: { ...token, native: token.native === true },
      priceUsd,
      liquidityUsd: market?.liquidityUsd ?? null,
      change24hPct: market?.change24hPct ?? null,
      account: {
        blacklisted: listed(config.blacklist, on, token.address),
        favorite: listed(config.favorites, on, token.address),
        spendable: spendableOn(on, token),
        minLiquidityUsd,
        belowMinLiquidity: market ? market.liquidityUsd < minLiquidityUsd : null,
      },
      chainStatus,
      riskFlags,
      asOf,
    };
  }
}
