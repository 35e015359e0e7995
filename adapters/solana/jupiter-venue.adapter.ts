import { PublicKey, VersionedTransaction } from '@solana/web3.js';
import { AppError } from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { StorePort } from '../../kernel/ports/store.port.js';
import {
  NATIVE_SOL_MINT,
  type Chain,
  type ExecuteRequest,
  type ExecutionResult,
  type Quote,
  type QuoteRequest,
  type TokenInfo,
  type VenueHealth,
  type VenuePort,
} from '../../kernel/ports/venue.port.js';
import { ExecutionJournal } from '../resilience/execution-journal.js';
import { providerUnavailable } from '../resilience/provider-breaker.js';
import { parseVendorBody, vendorRefusal, vendorRequest } from '../resilience/vendor-http.js';
import {
  jupiterPriceSchema,
  jupiterQuoteSchema,
  jupiterSwapSchema,
  jupiterTokenListSchema,
  translateJupiterRefusal,
  type JupiterQuote,
  type JupiterToken,
} from './jupiter-wire.js';
import { quoteFromJupiter } from './jupiter-quote.mapper.js';
import { SolanaChain } from './solana-chain.adapter.js';
import { SolanaExecutor, type PreparedSolanaSwap } from './solana-execution.js';
import type { SolanaRpc } from './solana-rpc.js';
import type { Refusal } from '../resilience/journaled-executor.js';
import { parseBaseUnits } from './solana-transactions.js';

export interface JupiterVenueOptions {
  /** Swap API root with its version (`JUPITER_API_URL`), e.g. `https://lite-api.jup.ag/swap/v1`; `/quote` and `/swap` are appended. */
  apiUrl: string;
  /** Default: `<origin of apiUrl>/tokens/v2`. */
  tokensApiUrl?: string;
  /** Default: `<origin of apiUrl>/price/v3`. */
  priceApiUrl?: string;
  /** Sent as `x-api-key` (Jupiter's paid hosts); never logged. */
  apiKey?: string;
  rpc: SolanaRpc;
  /** Holds `live.executions` (declare `LIVE_EXECUTIONS` at store init). */
  store: StorePort;
  clock?: Pick<ClockPort, 'now'>;
  fetch?: typeof fetch;
  /** Budget of one HTTP request to Jupiter (`PROVIDER_TIMEOUT_MS`). Default 10 s. */
  requestTimeoutMs?: number;
  /** How long token lookups are cached. Default 60 s. */
  tokenCacheMs?: number;
  /** Quote lifetime (`expiresAt`); a blockhash lives about a minute. Default 30 s. */
  quoteTtlMs?: number;
  /** How long `execute` waits for confirmation before answering `submitted`. Default 30 s; poll every 1 s. */
  confirm?: { timeoutMs?: number; pollMs?: number };
  /** Provider name. Default `jupiter`. */
  name?: string;
}

const TOKEN_CACHE_LIMIT = 1_000;

/**
 * Solana venue over Jupiter's HTTP APIs: tokens and prices from the Tokens and Price APIs,
 * quotes from `/quote`, executions from `/swap` signed by the order's wallet and broadcast
 * through the Solana RPC (see `SolanaExecutor` for the once-only rule), balances from chain.
 * The fill is read from the landed transaction's token balances; for native SOL output it
 * is the quote's expected output (lamport deltas mix in fees and rent).
 */
export class JupiterVenue implements VenuePort {
  readonly name: string;
  readonly chains: readonly Chain[] = ['solana'];
  private readonly root: string;
  private readonly tokensRoot: string;
  private readonly priceRoot: string;
  private readonly clock: Pick<ClockPort, 'now'>;
  private readonly fetchImpl: typeof fetch;
  private readonly chain: SolanaChain;
  private readonly executor: SolanaExecutor;
  private readonly tokenCache = new Map<string, { at: number; tokens: JupiterToken[] }>();

  constructor(private readonly options: JupiterVenueOptions) {
    this.name = options.name ?? 'jupiter';
    this.root = options.apiUrl.replace(/\/+$/, '');
    const origin = new URL(this.root).origin;
    this.tokensRoot = (options.tokensApiUrl ?? `${origin}/tokens/v2`).replace(/\/+$/, '');
    this.priceRoot = (options.priceApiUrl ?? `${origin}/price/v3`).replace(/\/+$/, '');
    this.clock = options.clock ?? { now: () => Date.now() };
    this.fetchImpl = options.fetch ?? fetch;
    this.chain = new SolanaChain({ rpc: options.rpc });
    this.executor = new SolanaExecutor({
      rpc: options.rpc,
      journal: new ExecutionJournal(options.store, this.name, this.clock),
      clock: this.clock,
      confirmTimeoutMs: options.confirm?.timeoutMs ?? 30_000,
      pollMs: options.confirm?.pollMs ?? 1_000,
      rpcProvider: 'solana-rpc',
    });
  }

  async findToken(chain: Chain, symbolOrAddress: string): Promise<TokenInfo | null> {
    if (chain !== 'solana' || !symbolOrAddress.trim()) return null;
    const query = symbolOrAddress.trim();
    const tokens = await this.search(query);
    if (isAddress(query)) return toTokenInfo(tokens.find((t) => t.id === query));
    // Symbols are not unique: a verified token wins over look-alikes, then Jupiter's ranking.
    const same = tokens.filter((t) => t.symbol.toLowerCase() === query.toLowerCase());
    return toTokenInfo(same.find((t) => t.isVerified) ?? same[0]);
  }

  async searchTokens(query: string, options: { chain?: Chain; limit: number }): Promise<TokenInfo[]> {
    if ((options.chain && options.chain !== 'solana') || !query.trim()) return [];
    return (await this.search(query.trim())).slice(0, options.limit).map((t) => toTokenInfo(t)!);
  }

  async priceUsd(chain: Chain, address: string): Promise<number | null> {
    if (chain !== 'solana' || !isAddress(address)) return null;
    const body = await this.get(`${this.priceRoot}?ids=${encodeURIComponent(address)}`, 'price');
    return parseVendorBody(this.name, jupiterPriceSchema, body, 'price')[address]?.usdPrice ?? null;
  }

  async quote(request: QuoteRequest): Promise<Quote> {
    this.assertSolana(request.chain);
    const raw = await this.fetchQuote(request.inputMint, request.outputMint, request.amountIn, request.slippageBps);
    return quoteFromJupiter(raw, { request, venue: this.name, expiresAt: this.clock.now() + (this.options.quoteTtlMs ?? 30_000) });
  }

  async execute(request: ExecuteRequest): Promise<ExecutionResult> {
    this.assertSolana(request.chain);
    return this.executor.execute(request, () => this.prepareSwap(request));
  }

  lookup(clientOrderId: string, chain: Chain): Promise<ExecutionResult | null> {
    if (chain !== 'solana') return Promise.resolve(null);
    return this.executor.lookup(clientOrderId);
  }

  async balances(chain: Chain, address: string): Promise<Record<string, string>> {
    this.assertSolana(chain);
    const [native, tokens] = await Promise.all([this.chain.nativeBalance(address), this.chain.tokenBalances(address)]);
    // SOL is what swaps spend (wrapAndUnwrapSol); a stray wrapped-SOL account is not listed under the same key.
    return { ...tokens, [NATIVE_SOL_MINT]: native };
  }

  /** One price read (Jupiter) and one block height read (RPC), side by side. */
  async health(chain: Chain): Promise<VenueHealth> {
    if (chain !== 'solana') return { chain, reachable: false, error: `${this.name} does not serve ${chain}` };
    const started = Date.now();
    const [api, rpc] = await Promise.allSettled([this.priceUsd('solana', NATIVE_SOL_MINT), this.chain.health()]);
    const errors = [
      api.status === 'rejected' ? (api.reason instanceof Error ? api.reason.message : String(api.reason)) : undefined,
      rpc.status === 'fulfilled' && !rpc.value.reachable ? rpc.value.error : undefined,
    ].filter(Boolean);
    return errors.length
      ? { chain, reachable: false, error: errors.join('; ') }
      : { chain, reachable: true, latencyMs: Date.now() - started };
  }

  private async prepareSwap(request: ExecuteRequest): Promise<PreparedSolanaSwap | Refusal> {
    // A wallet that cannot pay fails here, signing nothing, rather than in simulation.
    const owner = request.signer.address;
    const held = BigInt(
      request.inputMint === NATIVE_SOL_MINT
        ? await this.chain.nativeBalance(owner)
        : await this.chain.tokenBalance(owner, request.inputMint),
    );
    if (held < parseBaseUnits(request.amountIn, 'amountIn')) {
      return {
        refused: {
          reason: 'insufficient_balance',
          message: `Insufficient balance: ${held} of ${request.inputMint} held, ${request.amountIn} needed`,
        },
      };
    }
    const quote = await this.fetchQuote(request.inputMint, request.outputMint, request.amountIn, request.slippageBps);
    // The swap program only enforces the quote's threshold: below the order's minOut it must not be sent.
    if (BigInt(quote.otherAmountThreshold) < parseBaseUnits(request.minOut, 'minOut')) {
      return {
        refused: { reason: 'slippage', message: `Quoted minimum output ${quote.otherAmountThreshold} is below minOut ${request.minOut}` },
      };
    }
    const body = await this.post(
      `${this.root}/swap`,
      { quoteResponse: quote, userPublicKey: request.signer.address, wrapAndUnwrapSol: true, dynamicComputeUnitLimit: true },
      request,
    );
    const swap = parseVendorBody(this.name, jupiterSwapSchema, body, 'swap');
    let tx: VersionedTransaction;
    try {
      tx = VersionedTransaction.deserialize(Buffer.from(swap.swapTransaction, 'base64'));
    } catch (error) {
      throw providerUnavailable(this.name, 'swap transaction does not deserialize', { cause: error });
    }
    if (tx.message.staticAccountKeys[0]?.toBase58() !== request.signer.address)
      throw providerUnavailable(this.name, 'swap transaction is not paid by the wallet');
    return { tx, lastValidBlockHeight: swap.lastValidBlockHeight, expectedOut: quote.outAmount };
  }

  private async fetchQuote(inputMint: string, outputMint: string, amountIn: string, slippageBps: number): Promise<JupiterQuote> {
    parseBaseUnits(amountIn, 'amountIn');
    if (!isAddress(inputMint)) throw new AppError('TOKEN_NOT_FOUND', `Token not found: ${inputMint}`);
    if (!isAddress(outputMint)) throw new AppError('TOKEN_NOT_FOUND', `Token not found: ${outputMint}`);
    const params = new URLSearchParams({ inputMint, outputMint, amount: amountIn, slippageBps: String(slippageBps), swapMode: 'ExactIn' });
    const response = await this.send({ url: `${this.root}/quote?${params}` });
    if (response.status >= 400) throw translateJupiterRefusal(this.name, response.status, response.body, { inputMint, outputMint });
    return parseVendorBody(this.name, jupiterQuoteSchema, response.body, 'quote');
  }

  /** Token search through a short cache: symbol lookups repeat on every order. */
  private async search(query: string): Promise<JupiterToken[]> {
    const key = query.toLowerCase();
    const cached = this.tokenCache.get(key);
    if (cached && this.clock.now() - cached.at < (this.options.tokenCacheMs ?? 60_000)) return cached.tokens;
    const body = await this.get(`${this.tokensRoot}/search?query=${encodeURIComponent(query)}`, 'token search');
    const tokens = parseVendorBody(this.name, jupiterTokenListSchema, body, 'token search');
    if (this.tokenCache.size >= TOKEN_CACHE_LIMIT) this.tokenCache.delete(this.tokenCache.keys().next().value!);
    this.tokenCache.set(key, { at: this.clock.now(), tokens });
    return tokens;
  }

  private async get(url: string, what: string): Promise<unknown> {
    const response = await this.send({ url });
    if (response.status === 401 || response.status === 403)
      throw providerUnavailable(this.name, `credentials refused (HTTP ${response.status})`);
    // Jupiter answered: a refusal is about the request, not the provider's health.
    if (response.status >= 400)
      throw vendorRefusal(this.name, `${what} refused by ${this.name} (HTTP ${response.status})`, { status: response.status });
    return response.body;
  }

  private async post(url: string, json: unknown, request: ExecuteRequest): Promise<unknown> {
    const response = await this.send({ url, method: 'POST', json });
    if (response.status >= 400) throw translateJupiterRefusal(this.name, response.status, response.body, request);
    return response.body;
  }

  private send(init: { url: string; method?: 'GET' | 'POST'; json?: unknown }) {
    return vendorRequest({
      provider: this.name,
      fetch: this.fetchImpl,
      ...init,
      ...(this.options.apiKey ? { headers: { 'x-api-key': this.options.apiKey } } : {}),
      signal: AbortSignal.timeout(this.options.requestTimeoutMs ?? 10_000),
    });
  }

  private assertSolana(chain: Chain): void {
    if (chain !== 'solana') throw AppError.validation([`${this.name} does not trade on ${chain}`]);
  }
}

function isAddress(value: string): boolean {
  try {
    return new PublicKey(value).toBase58() === value;
  } catch {
    return false;
  }
}

function toTokenInfo(token: JupiterToken | undefined): TokenInfo | null {
  if (!token) return null;
  const native = token.id === NATIVE_SOL_MINT;
  return {
    chain: 'solana',
    address: token.id,
    symbol: native ? 'SOL' : token.symbol,
    name: token.name,
    decimals: token.decimals,
    ...(native ? { native } : {}),
  };
}
