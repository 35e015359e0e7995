import { getAddress, isAddress, type Address, type Hex } from 'viem';
import { AppError } from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { StorePort } from '../../kernel/ports/store.port.js';
import {
  EVM_CHAIN_IDS,
  NATIVE_EVM_ADDRESS,
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
import { parseVendorBody, vendorRequest } from '../resilience/vendor-http.js';
import type { EvmChain } from './evm-chain.adapter.js';
import { EvmExecutor, type PreparedEvmSwap } from './evm-execution.js';
import type { Refusal } from '../resilience/journaled-executor.js';
import type { EvmChainName } from './evm-support.js';
import { knownTokens, usdReference } from './evm-tokens.js';
import { feesIn, translateZeroExRefusal, zeroExPriceSchema, zeroExQuoteSchema } from './zerox-wire.js';

export interface ZeroExVenueOptions {
  /** `ZEROX_API_URL`, e.g. `https://api.0x.org`. */
  apiUrl: string;
  /** `ZEROX_API_KEY`, sent as `0x-api-key`; a secret, never logged. */
  apiKey?: string;
  /** One chain adapter per EVM chain with an RPC URL (`EVM_CHAIN_RPC_URLS`); the venue serves those chains. */
  chains: Partial<Record<EvmChainName, EvmChain>>;
  /** Holds `live.executions` (declare `LIVE_EXECUTIONS` at store init). */
  store: StorePort;
  clock?: Pick<ClockPort, 'now'>;
  fetch?: typeof fetch;
  /** Budget of one HTTP request to 0x (`PROVIDER_TIMEOUT_MS`). Default 10 s. */
  requestTimeoutMs?: number;
  /** Quote lifetime (`expiresAt`). Default 30 s. */
  quoteTtlMs?: number;
  /** How long `execute` waits for the receipt before answering `submitted`. Default 60 s; poll every 2 s. */
  confirm?: { timeoutMs?: number; pollMs?: number };
  /** Provider name. Default `0x`. */
  name?: string;
}

/**
 * EVM venue over the 0x Swap API v2 (allowance-holder): indicative quotes from `/price`,
 * executions from a firm `/quote` for the wallet, signed locally and broadcast through the
 * chain's RPC (once per order, see `EvmExecutor`). 0x reports no price impact, so
 * `priceImpactBps` is 0 and `spotOut` is the output before 0x's fee. Tokens: a built-in
 * list per chain plus on-chain metadata reads by address; USD prices are 0x's indicative
 * price of one whole token in the chain's USDC. Selling an ERC-20 needs an allowance to
 * 0x's AllowanceHolder first: without it the execution fails as `rejected`, naming the spender.
 */
export class ZeroExVenue implements VenuePort {
  readonly name: string;
  readonly chains: readonly Chain[];
  private readonly root: string;
  private readonly clock: Pick<ClockPort, 'now'>;
  private readonly executors = new Map<EvmChainName, EvmExecutor>();
  private readonly metadata = new Map<string, TokenInfo | null>();

  constructor(private readonly options: ZeroExVenueOptions) {
    this.name = options.name ?? '0x';
    this.root = options.apiUrl.replace(/\/+$/, '');
    this.clock = options.clock ?? { now: () => Date.now() };
    const journal = new ExecutionJournal(options.store, this.name, this.clock);
    for (const [name, chain] of Object.entries(options.chains) as Array<[EvmChainName, EvmChain]>) {
      this.executors.set(
        name,
        new EvmExecutor({
          chain,
          journal,
          clock: this.clock,
          confirmTimeoutMs: options.confirm?.timeoutMs ?? 60_000,
          pollMs: options.confirm?.pollMs ?? 2_000,
        }),
      );
    }
    this.chains = [...this.executors.keys()];
  }

  async findToken(chain: Chain, symbolOrAddress: string): Promise<TokenInfo | null> {
    const name = this.served(chain);
    if (!name) return null;
    const query = symbolOrAddress.trim();
    const known = knownTokens(name);
    if (!isAddress(query, { strict: false })) return known.find((t) => t.symbol.toLowerCase() === query.toLowerCase()) ?? null;
    const byAddress = known.find((t) => t.address.toLowerCase() === query.toLowerCase());
    if (byAddress) return byAddress;
    // Token metadata never changes: read once per address.
    const key = `${name}:${query.toLowerCase()}`;
    if (!this.metadata.has(key)) {
      const read = await this.options.chains[name]!.readErc20(query);
      this.metadata.set(key, read && { chain: name, address: getAddress(query), ...read });
    }
    return this.metadata.get(key) ?? null;
  }

  async searchTokens(query: string, options: { chain?: Chain; limit: number }): Promise<TokenInfo[]> {
    const chains = options.chain ? [this.served(options.chain)].filter((c): c is EvmChainName => !!c) : [...this.executors.keys()];
    const q = query.trim().toLowerCase();
    if (!q) return [];
    const matches = chains.flatMap((c) =>
      knownTokens(c).filter((t) => t.symbol.toLowerCase().includes(q) || t.name.toLowerCase().includes(q) || t.address.toLowerCase() === q),
    );
    if (!matches.length && isAddress(q, { strict: false })) {
      for (const c of chains) {
        const found = await this.findToken(c, q);
        if (found) matches.push(found);
      }
    }
    return matches.slice(0, options.limit);
  }

  async priceUsd(chain: Chain, address: string): Promise<number | null> {
    const name = this.served(chain);
    const token = name ? await this.findToken(chain, address) : null;
    if (!name || !token) return null;
    const usdc = usdReference(name);
    if (token.address === usdc.address) return 1;
    const response = await this.zeroEx('price', name, {
      sellToken: token.address,
      buyToken: usdc.address,
      sellAmount: String(10n ** BigInt(token.decimals)),
    });
    if (response.status >= 400) return null;
    const price = parseVendorBody(this.name, zeroExPriceSchema, response.body, 'price');
    return price.liquidityAvailable ? Number(price.buyAmount) / 10 ** usdc.decimals : null;
  }

  async quote(request: QuoteRequest): Promise<Quote> {
    const chain = this.require(request.chain);
    const tokens = { sellToken: tokenParam(request.inputMint), buyToken: tokenParam(request.outputMint) };
    const response = await this.zeroEx('price', chain, {
      ...tokens,
      sellAmount: baseUnits(request.amountIn, 'amountIn'),
      slippageBps: String(request.slippageBps),
    });
    if (response.status >= 400)
      throw translateZeroExRefusal(this.name, response.status, response.body, tokens, (address) => isKnown(chain, address));
    const price = this.available(parseVendorBody(this.name, zeroExPriceSchema, response.body, 'price'), tokens);
    return {
      chain: request.chain,
      inputMint: request.inputMint,
      outputMint: request.outputMint,
      amountIn: price.sellAmount,
      expectedOut: price.buyAmount,
      minOut: price.minBuyAmount,
      spotOut: String(BigInt(price.buyAmount) + feesIn(price, price.buyToken)),
      priceImpactBps: 0,
      feeAmount: String(feesIn(price, price.sellToken)),
      venue: this.name,
      expiresAt: this.clock.now() + (this.options.quoteTtlMs ?? 30_000),
    };
  }

  async execute(request: ExecuteRequest): Promise<ExecutionResult> {
    const chain = this.require(request.chain);
    return this.executors.get(chain)!.execute(request, () => this.firmQuote(chain, request));
  }

  lookup(clientOrderId: string, chain: Chain): Promise<ExecutionResult | null> {
    const name = this.served(chain);
    return name ? this.executors.get(name)!.lookup(clientOrderId) : Promise.resolve(null);
  }

  /** Native balance plus the built-in tokens the address holds: without an indexer, other ERC-20s are not listed. */
  async balances(chain: Chain, address: string): Promise<Record<string, string>> {
    const name = this.require(chain);
    const rpc = this.options.chains[name]!;
    const entries = await Promise.all(knownTokens(name).map(async (t) => [t.address, await rpc.tokenBalance(address, t.address)] as const));
    return Object.fromEntries(entries.filter(([address, amount]) => amount !== '0' || address === NATIVE_EVM_ADDRESS));
  }

  /** The chain's block number and 0x's `/sources` for that chain, side by side. */
  async health(chain: Chain): Promise<VenueHealth> {
    const name = this.served(chain);
    if (!name) return { chain, reachable: false, error: `${this.name} has no RPC for ${chain}` };
    const started = Date.now();
    const [rpc, api] = await Promise.allSettled([this.options.chains[name]!.health(), this.zeroEx('sources', name, {})]);
    const errors = [
      rpc.status === 'fulfilled' && !rpc.value.reachable ? rpc.value.error : undefined,
      api.status === 'rejected'
        ? api.reason instanceof Error
          ? api.reason.message
          : String(api.reason)
        : api.value.status >= 400
          ? `${this.name} answered HTTP ${api.value.status}`
          : undefined,
    ].filter(Boolean);
    return errors.length
      ? { chain, reachable: false, error: errors.join('; ') }
      : { chain, reachable: true, latencyMs: Date.now() - started };
  }

  private async firmQuote(chain: EvmChainName, request: ExecuteRequest): Promise<PreparedEvmSwap | Refusal> {
    const tokens = { sellToken: tokenParam(request.inputMint), buyToken: tokenParam(request.outputMint) };
    const response = await this.zeroEx('quote', chain, {
      ...tokens,
      sellAmount: baseUnits(request.amountIn, 'amountIn'),
      taker: request.signer.address,
      slippageBps: String(request.slippageBps),
    });
    if (response.status >= 400)
      throw translateZeroExRefusal(this.name, response.status, response.body, tokens, (address) => isKnown(chain, address));
    const quote = this.available(parseVendorBody(this.name, zeroExQuoteSchema, response.body, 'quote'), tokens);
    const balance = quote.issues?.balance;
    if (balance)
      return {
        refused: {
          reason: 'insufficient_balance',
          message: `Insufficient balance: ${balance.actual} of ${balance.token} held, ${balance.expected} needed`,
        },
      };
    const allowance = quote.issues?.allowance;
    if (allowance)
      return {
        refused: {
          reason: 'rejected',
          message: `Allowance needed: approve ${allowance.spender} to spend ${tokens.sellToken} (current ${allowance.actual})`,
        },
      };
    // The transaction only enforces 0x's minimum: below the order's minOut it must not be sent.
    if (BigInt(quote.minBuyAmount) < BigInt(baseUnits(request.minOut, 'minOut'))) {
      return { refused: { reason: 'slippage', message: `Quoted minimum output ${quote.minBuyAmount} is below minOut ${request.minOut}` } };
    }
    const tx = quote.transaction;
    return {
      to: getAddress(tx.to),
      data: tx.data as Hex,
      value: BigInt(tx.value),
      gasPrice: BigInt(tx.gasPrice),
      expectedOut: quote.buyAmount,
      ...(tx.gas ? { gas: BigInt(tx.gas) } : {}),
    };
  }

  private available<T extends { liquidityAvailable: boolean }>(
    answer: T,
    tokens: { sellToken: string; buyToken: string },
  ): Extract<T, { liquidityAvailable: true }> {
    if (!answer.liquidityAvailable)
      throw new AppError('VALIDATION_ERROR', `No route found for ${tokens.sellToken} -> ${tokens.buyToken} (no liquidity)`, {
        retryable: false,
        details: { provider: this.name },
      });
    return answer as Extract<T, { liquidityAvailable: true }>;
  }

  private zeroEx(endpoint: 'price' | 'quote' | 'sources', chain: EvmChainName, params: Record<string, string>) {
    const path = endpoint === 'sources' ? '/sources' : `/swap/allowance-holder/${endpoint}`;
    const query = new URLSearchParams({ chainId: String(EVM_CHAIN_IDS[chain]), ...params });
    return vendorRequest({
      provider: this.name,
      fetch: this.options.fetch ?? fetch,
      url: `${this.root}${path}?${query}`,
      headers: { '0x-version': 'v2', ...(this.options.apiKey ? { '0x-api-key': this.options.apiKey } : {}) },
      signal: AbortSignal.timeout(this.options.requestTimeoutMs ?? 10_000),
    });
  }

  private served(chain: Chain): EvmChainName | undefined {
    return chain !== 'solana' && this.executors.has(chain) ? chain : undefined;
  }

  private require(chain: Chain): EvmChainName {
    const name = this.served(chain);
    if (!name) throw AppError.validation([`${this.name} does not trade on ${chain}`]);
    return name;
  }
}

/** A token as 0x takes it (checksummed; the native marker as is), or 404 for anything else. */
function tokenParam(value: string): Address {
  if (!isAddress(value, { strict: false })) throw new AppError('TOKEN_NOT_FOUND', `Token not found: ${value}`);
  return getAddress(value);
}

function isKnown(chain: EvmChainName, address: string): boolean {
  return knownTokens(chain).some((t) => t.address.toLowerCase() === address.toLowerCase());
}

function baseUnits(value: string, field: string): string {
  if (!/^\d+$/.test(value)) throw AppError.validation([`${field} must be a non-negative integer in base units`]);
  return value;
}
