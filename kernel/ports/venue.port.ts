/**
 * Venue port: where an order is quoted and executed (the paper venue by default, an
 * aggregator API on a live chain otherwise), plus the token directory and prices it
 * trades on. Amounts cross this port as decimal strings in base units (orders); USD prices as numbers (display and risk only, never balances).
 * Every adapter passes `test/contracts/venue.contract.ts`.
 */

/** The chain vocabulary lives in kernel/vocabulary; the port speaks it and re-exports it for its adapters. */
export {
  type Chain,
  CHAINS,
  EVM_CHAINS,
  EVM_CHAIN_IDS,
  NATIVE_EVM_ADDRESS,
  NATIVE_SOL_MINT,
  type WalletChain,
  walletChainOf,
} from '../vocabulary/chains.js';
import type { Chain, WalletChain } from '../vocabulary/chains.js';
import type { CommitWrite } from './store.port.js';

export interface TokenInfo {
  chain: Chain;
  /** Mint (base58) on Solana; checksummed 0x address on EVM; the native markers above for native coins. */
  address: string;
  symbol: string;
  name: string;
  decimals: number;
  native?: boolean;
}

export interface QuoteRequest {
  chain: Chain;
  inputMint: string;
  outputMint: string;
  /** Base units of the input token. */
  amountIn: string;
  slippageBps: number;
}

export interface Quote {
  chain: Chain;
  inputMint: string;
  outputMint: string;
  amountIn: string;
  /** What the trade yields at the quoted state, after fees and price impact (base units). */
  expectedOut: string;
  /** `expectedOut` less the slippage tolerance: a fill below it fails instead. */
  minOut: string;
  /** What the same input would yield at the mid price with no impact and no fee (base units). */
  spotOut: string;
  /** Price impact of this size against the mid price, in basis points. */
  priceImpactBps: number;
  /** Fee taken by the venue, in base units of the input token. */
  feeAmount: string;
  /** Venue (provider) name, e.g. `paper`, `jupiter`, `0x`. */
  venue: string;
  /** Epoch ms after which the quote must not be executed. */
  expiresAt: number;
}

/**
 * What a venue needs to sign for a custodial wallet. The secret key is decrypted only
 * inside `withSecretKey` and wiped after, so it never lives longer than the signing.
 */
export interface WalletSigner {
  walletId: string;
  chain: WalletChain;
  address: string;
  withSecretKey<T>(use: (secretKey: Uint8Array) => Promise<T>): Promise<T>;
}

export interface ExecuteRequest {
  /** The order id. A venue executes one client order id at most once, whatever the retries. */
  clientOrderId: string;
  chain: Chain;
  signer: WalletSigner;
  inputMint: string;
  outputMint: string;
  amountIn: string;
  /** Fill below this → `failed` with reason `slippage`, nothing moves. */
  minOut: string;
  slippageBps: number;
}

/** Why a venue refused or failed an execution; translated at the boundary from vendor errors. */
export type ExecutionFailureReason = 'slippage' | 'insufficient_balance' | 'unknown_token' | 'rejected' | 'expired';

export type ExecutionResult =
  /** Final: the swap happened. */
  | { status: 'filled'; filledOut: string; txSignature: string; at: number }
  /** Broadcast, not yet confirmed: look it up again later (`lookup`). */
  | { status: 'submitted'; txSignature: string; at: number }
  /** Final: nothing moved. */
  | { status: 'failed'; reason: ExecutionFailureReason; message: string; txSignature?: string; at: number };

/** A fill decided and not yet written: its outcome and the compare-and-set writes that record it. */
export interface PlannedFill {
  result: Extract<ExecutionResult, { status: 'filled' }>;
  /** Conditional on the versions read: a commit of them fails, writing nothing, if anything moved meanwhile. */
  writes: CommitWrite[];
}

/** Result of a health probe for the EVM status route and readiness. */
export interface VenueHealth {
  chain: Chain;
  reachable: boolean;
  latencyMs?: number;
  error?: string;
}

export interface VenuePort {
  /** Provider name used in messages (`Circuit breaker open for provider: <name>`) and on orders. */
  readonly name: string;
  /** Chains this venue can quote and execute on. */
  readonly chains: readonly Chain[];

  /** Tokens by symbol (case-insensitive) or address; null when unknown on that chain. */
  findToken(chain: Chain, symbolOrAddress: string): Promise<TokenInfo | null>;
  /** Tokens whose symbol, name or address matches `query`, best matches first. */
  searchTokens(query: string, options: { chain?: Chain; limit: number }): Promise<TokenInfo[]>;
  /** Mid price in USD, or null when the venue has none. */
  priceUsd(chain: Chain, address: string): Promise<number | null>;

  /** Throws AppError 404 `Token not found: <mint>` for an unknown token, 400 when no route exists. */
  quote(request: QuoteRequest): Promise<Quote>;
  /**
   * Executes once per `clientOrderId`: a repeated call answers with the first outcome
   * (or its current status) and never moves funds again.
   */
  execute(request: ExecuteRequest): Promise<ExecutionResult>;
  /** The outcome of an earlier `execute` (reconciliation after a crash); null when it never reached the venue. */
  lookup(clientOrderId: string, chain: Chain): Promise<ExecutionResult | null>;
  /**
   * Only a venue that settles in this service's own store (the paper venue): the fill
   * `execute` would make now, as writes the caller commits instead of the venue, so the
   * order, its fill, the balances it moves and the positions it books are one unit of work
   * that no crash can cut (nothing needs reconciling: all of it is on disk or none). Writes
   * nothing itself. Null when the outcome would not be a fill (slippage, funds, an unknown
   * token): the caller takes the road of `execute`, which records that outcome. Venues
   * that trade elsewhere do not have it: their order must be on disk before anything is sent.
   */
  planFill?(request: ExecuteRequest): Promise<PlannedFill | null>;

  /** Balances of an address in base units, by token address; tokens with no balance may be absent. */
  balances(chain: Chain, address: string): Promise<Record<string, string>>;
  health(chain: Chain): Promise<VenueHealth>;
  /** Market data for token research; null when the venue has none for the token. Optional: not every venue has it. */
  market?(chain: Chain, address: string): Promise<MarketInfo | null>;
}

/** What token research shows besides the token itself. */
export interface MarketInfo {
  priceUsd: number;
  /** USD depth of the token's main pool. */
  liquidityUsd: number;
  /** Price change over the last 24 hours, percent. */
  change24hPct: number;
}

/** A provider's circuit breaker as the safety path and the status route see it. */
export interface BreakerReadout {
  provider: string;
  state: 'closed' | 'open' | 'half_open';
}

/** Paper venue only: credits test funds (trading accounts, faucet). */
export interface FaucetPort {
  /**
   * Adds `amount` base units of `token` to `address`; returns the new balance. With `ref`,
   * once per ref: a second credit under it changes nothing and returns the balance.
   */
  credit(chain: Chain, address: string, token: string, amount: string, ref?: string): Promise<string>;
}
