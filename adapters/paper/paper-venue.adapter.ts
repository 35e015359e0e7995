/**
 * The paper venue (the default): real token addresses, a seeded price feed, constant-
 * product pools with fees and price impact, and balances in the store. Every safety check
 * of the service runs against it as against a live venue; only the money is simulated.
 */
import { hash } from 'node:crypto';
import { WALLET_CHAINS } from '../../kernel/vocabulary/chains.js';
import { z } from 'zod';
import { AppError } from '../../kernel/errors/app-error.js';
import { validationMessages } from '../../kernel/errors/validation-messages.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { StorePort } from '../../kernel/ports/store.port.js';
import {
  CHAINS,
  walletChainOf,
  type Chain,
  type ExecuteRequest,
  type ExecutionResult,
  type FaucetPort,
  type MarketInfo,
  type PlannedFill,
  type Quote,
  type QuoteRequest,
  type TokenInfo,
  type VenueHealth,
  type VenuePort,
} from '../../kernel/ports/venue.port.js';
import { normalizeAddress, PaperLedger, SLIPPAGE_MESSAGE, type FillDoc, type FillRequest } from './paper-ledger.js';
import bs58 from 'bs58';
import { DEFAULT_FEE_BPS, quotePool, type PoolQuote } from './paper-pools.js';
import { PaperPriceFeed } from './paper-price-feed.js';
import { findPaperToken, isWrapPair, searchPaperTokens, type PaperToken } from './paper-tokens.js';

export interface PaperVenueOptions {
  store: StorePort;
  clock: ClockPort;
  /** Seed of the price feed (config `PAPER_SEED`): same seed, same market on every process. */
  seed: string;
  /** Pool fee in basis points of the input (default 30). */
  feeBps?: number;
  /** How long a quote stays executable (default 30 s). */
  quoteTtlMs?: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const ChainSchema = z.enum(CHAINS);
// Up to 78 digits, as the routes take (a uint256): a longer cap on one side turned a valid
// request into a message naming the venue's own field.
const BaseUnits = z
  .string()
  .regex(/^\d{1,78}$/, 'must be an integer in base units')
  .transform((value) => BigInt(value));
const Positive = BaseUnits.refine((value) => value > 0n, 'must be greater than 0');
const Mint = z.string().trim().min(1).max(100);
const Options = z.object({
  seed: z.string().min(1),
  feeBps: z.number().int().min(0).max(9_999).default(DEFAULT_FEE_BPS),
  quoteTtlMs: z.number().int().positive().default(30_000),
});
const QuoteInput = z.object({
  chain: ChainSchema,
  inputMint: Mint,
  outputMint: Mint,
  amountIn: Positive,
  slippageBps: z.number().int().min(0).max(10_000),
});
const ExecuteInput = QuoteInput.extend({
  clientOrderId: z.string().min(1).max(200),
  minOut: BaseUnits,
  signer: z.object({ chain: z.enum(WALLET_CHAINS), address: z.string().min(1).max(100) }),
});
/** Faucet input crosses from the HTTP surface: validate it all again here. */
const CreditInput = z.object({
  chain: ChainSchema,
  address: z.string().min(1).max(100),
  token: Mint,
  amount: Positive,
  ref: z.string().min(1).max(200).optional(),
});

function validate<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value, { reportInput: true });
  if (!result.success) throw AppError.validation(validationMessages(result.error));
  return result.data;
}

/** `expectedOut` less the slippage tolerance, rounded down. */
export function minOutOf(expectedOut: bigint, slippageBps: number): bigint {
  return (expectedOut * BigInt(10_000 - slippageBps)) / 10_000n;
}

/** An execution request as the venue takes it: valid, and signed by a wallet of the chain. */
function executeInput(request: ExecuteRequest): z.output<typeof ExecuteInput> {
  const input = validate(ExecuteInput, request);
  if (input.signer.chain !== walletChainOf(input.chain)) {
    throw AppError.validation([`signer is a ${input.signer.chain} wallet, not one for ${input.chain}`]);
  }
  return input;
}

/** A stable signature per order id, shaped like the chain's own (64-byte base58 on Solana, 32-byte hex on EVM). */
export function paperTxSignature(chain: Chain, clientOrderId: string): string {
  if (chain === 'solana') return bs58.encode(hash('sha512', `paper:${clientOrderId}`, 'buffer'));
  return `0x${hash('sha256', `paper:${clientOrderId}`, 'hex')}`;
}

function tokenNotFound(mint: string): AppError {
  return new AppError('TOKEN_NOT_FOUND', `Token not found: ${mint}`);
}

function publicToken({ chain, address, symbol, name, decimals, native }: PaperToken): TokenInfo {
  return { chain, address, symbol, name, decimals, ...(native ? { native } : {}) };
}

/** The simulated venue and its faucet. */
export class PaperVenue implements VenuePort, FaucetPort {
  readonly name = 'paper';
  readonly chains: readonly Chain[] = CHAINS;
  private readonly clock: ClockPort;
  private readonly feed: PaperPriceFeed;
  private readonly ledger: PaperLedger;
  private readonly feeBps: number;
  private readonly quoteTtlMs: number;

  constructor(options: PaperVenueOptions) {
    const { seed, feeBps, quoteTtlMs } = validate(Options, options);
    this.clock = options.clock;
    this.feed = new PaperPriceFeed({ seed, clock: options.clock });
    this.ledger = new PaperLedger({ store: options.store });
    this.feeBps = feeBps;
    this.quoteTtlMs = quoteTtlMs;
  }

  async findToken(chain: Chain, symbolOrAddress: string): Promise<TokenInfo | null> {
    if (!ChainSchema.safeParse(chain).success) return null;
    const token = findPaperToken(chain, symbolOrAddress);
    return token ? publicToken(token) : null;
  }

  async searchTokens(query: string, options: { chain?: Chain; limit: number }): Promise<TokenInfo[]> {
    return searchPaperTokens(query, options.chain ? [options.chain] : CHAINS, options.limit).map(publicToken);
  }

  async priceUsd(chain: Chain, address: string): Promise<number | null> {
    const token = ChainSchema.safeParse(chain).success ? findPaperToken(chain, address) : null;
    return token ? this.feed.priceUsd(token) : null;
  }

  /** Research data from the same feed and pools the venue trades on. */
  async market(chain: Chain, address: string): Promise<MarketInfo | null> {
    const token = ChainSchema.safeParse(chain).success ? findPaperToken(chain, address) : null;
    if (!token) return null;
    const now = this.clock.now();
    const priceUsd = this.feed.priceUsd(token, now);
    const dayAgo = this.feed.priceUsd(token, now - DAY_MS);
    return { priceUsd, liquidityUsd: token.depthUsd, change24hPct: Math.round(((priceUsd - dayAgo) / dayAgo) * 10_000) / 100 };
  }

  async quote(request: QuoteRequest): Promise<Quote> {
    const input = validate(QuoteInput, request);
    const [from, to] = this.pair(input.chain, input.inputMint, input.outputMint);
    const pool = this.pool(from, to, input.amountIn);
    return {
      chain: input.chain,
      inputMint: from.address,
      outputMint: to.address,
      amountIn: input.amountIn.toString(),
      expectedOut: pool.expectedOut.toString(),
      minOut: minOutOf(pool.expectedOut, input.slippageBps).toString(),
      spotOut: pool.spotOut.toString(),
      priceImpactBps: pool.priceImpactBps,
      feeAmount: pool.feeAmount.toString(),
      venue: this.name,
      expiresAt: this.clock.now() + this.quoteTtlMs,
    };
  }

  /**
   * Once per client order id: a fill already recorded is answered (and finished if a
   * crash left it half-done); otherwise the pool is priced now and the first recorded
   * outcome wins, however many callers race.
   */
  async execute(request: ExecuteRequest): Promise<ExecutionResult> {
    const input = executeInput(request);
    const existing = await this.ledger.readFill(input.clientOrderId);
    if (existing) return this.ledger.settle(existing);
    return this.ledger.fill(this.decide(input));
  }

  /**
   * The fill `execute` would make now, as writes (see VenuePort): no fill of the id is read
   * first, since the writes create it only if none exists.
   */
  async planFill(request: ExecuteRequest): Promise<PlannedFill | null> {
    const planned = await this.ledger.planFill(this.decide(executeInput(request)));
    return planned && { result: planned.outcome, writes: planned.writes };
  }

  /** The outcome of executing `input` now: a pending fill at the pool's price, or its failure. */
  private decide(input: z.output<typeof ExecuteInput>): FillDoc {
    const fields: FillRequest = {
      clientOrderId: input.clientOrderId,
      chain: input.chain,
      address: normalizeAddress(input.chain, input.signer.address),
      inputMint: input.inputMint,
      outputMint: input.outputMint,
      amountIn: input.amountIn.toString(),
      minOut: input.minOut.toString(),
      slippageBps: input.slippageBps,
    };
    const at = this.clock.now();
    try {
      const [from, to] = this.pair(input.chain, input.inputMint, input.outputMint);
      const { expectedOut } = this.pool(from, to, input.amountIn);
      const canonical = { ...fields, inputMint: from.address, outputMint: to.address };
      if (expectedOut < input.minOut)
        return { ...canonical, outcome: { status: 'failed', reason: 'slippage', message: SLIPPAGE_MESSAGE, at } };
      return {
        ...canonical,
        outcome: {
          status: 'pending',
          filledOut: expectedOut.toString(),
          txSignature: paperTxSignature(input.chain, input.clientOrderId),
          at,
        },
      };
    } catch (error) {
      // An unknown token is an outcome of the order (recorded once), not a caller error.
      if (!(error instanceof AppError && error.code === 'TOKEN_NOT_FOUND')) throw error;
      return { ...fields, outcome: { status: 'failed', reason: 'unknown_token', message: error.message, at } };
    }
  }

  async lookup(clientOrderId: string, chain: Chain): Promise<ExecutionResult | null> {
    const fill = await this.ledger.readFill(clientOrderId);
    return fill && fill.chain === chain ? this.ledger.settle(fill) : null;
  }

  async balances(chain: Chain, address: string): Promise<Record<string, string>> {
    const valid = validate(ChainSchema, chain);
    return this.ledger.balances(valid, normalizeAddress(valid, address));
  }

  async health(chain: Chain): Promise<VenueHealth> {
    return { chain, reachable: ChainSchema.safeParse(chain).success, latencyMs: 0 };
  }

  /** Faucet: `amount` is in base units; `token` a symbol or address. */
  async credit(chain: Chain, address: string, token: string, amount: string, ref?: string): Promise<string> {
    const input = validate(CreditInput, { chain, address, token, amount, ...(ref === undefined ? {} : { ref }) });
    const found = findPaperToken(input.chain, input.token);
    if (!found) throw tokenNotFound(input.token);
    const owner = normalizeAddress(input.chain, input.address);
    return (await this.ledger.credit(input.chain, owner, found.address, input.amount, input.ref)).toString();
  }

  /** Both tokens of a swap; 404 for an unknown one (input first), 400 for a swap into itself. */
  private pair(chain: Chain, inputMint: string, outputMint: string): [PaperToken, PaperToken] {
    const from = findPaperToken(chain, inputMint);
    if (!from) throw tokenNotFound(inputMint);
    const to = findPaperToken(chain, outputMint);
    if (!to) throw tokenNotFound(outputMint);
    if (from === to) throw AppError.validation(['inputMint and outputMint must be different tokens']);
    return [from, to];
  }

  /**
   * Prices the pair now; an input too small to buy one base unit has no route (400). A wrap
   * or unwrap (ETH ↔ WETH) is what the chain does: 1:1, no fee, no impact, no pool.
   */
  private pool(from: PaperToken, to: PaperToken, amountIn: bigint): PoolQuote {
    if (isWrapPair(from, to)) return { expectedOut: amountIn, spotOut: amountIn, priceImpactBps: 0, feeAmount: 0n };
    const now = this.clock.now();
    const side = (token: PaperToken) => ({ decimals: token.decimals, priceUsd: this.feed.priceUsd(token, now), depthUsd: token.depthUsd });
    const quote = quotePool(side(from), side(to), amountIn, this.feeBps);
    if (quote.expectedOut === 0n) throw AppError.validation([`amountIn is too small to buy any ${to.symbol}`]);
    return quote;
  }
}
