import { z } from 'zod';
import { CHAIN_WORDS } from '../../../kernel/vocabulary/chains.js';
import { scopeCovers } from '../../../kernel/vocabulary/scopes.js';
import type { TradingConfigReader } from '../../../agents/config/trading-config.types.js';
import type { TradingSubject } from '../../../agents/portfolio/portfolio.types.js';
import { PREFLIGHT_CHECKS, type TradePreflight } from '../../../agents/trading/trade-preflight.js';
import type { TokenRisk } from '../../../agents/trading/token-risk.js';
import { AppError, isAppError } from '../../../kernel/errors/app-error.js';
import type { Chain } from '../../../kernel/ports/venue.port.js';
import type { OperationCatalog } from '../operation-catalog.js';
import type { OperationContext } from '../operation.types.js';
import { defineOperation } from '../operation-definition.js';
import { BASE_UNITS, SLIPPAGE_DEFAULT, baseUnits, chain as chainSchema, signalSource, slippageBps, tokenRef } from './trading-schemas.js';

export interface RiskOperationsDeps {
  preflight: TradePreflight;
  /** Asked whether the caller may call the swap a preflight stands for: its first verdict. */
  catalog: Pick<OperationCatalog, 'callable'>;
  tokens: TokenRisk;
  /** The account's trading configuration: a preflight naming no chain takes the trade defaults'. */
  config: TradingConfigReader;
}

/** The swap tool a trade on `chain` goes through. */
const swapOperation = (chain: Chain) => (chain === 'solana' ? 'trading_solana_aggregator_swap' : 'trading_evm_swap');

/**
 * The catalog's refusal of the swap for this caller (scope, a switched-off family or tool, a
 * chain this deployment does not trade), as the swap itself would answer it; none when callable.
 */
function swapRefusal(catalog: RiskOperationsDeps['catalog'], chain: Chain, ctx: OperationContext): AppError | undefined {
  if (!ctx.viewer) return scopeCovers(ctx.scope, 'trade') ? undefined : AppError.scopeInsufficient('trade', ctx.scope);
  try {
    catalog.callable(swapOperation(chain), ctx.viewer);
    return undefined;
  } catch (error) {
    if (isAppError(error)) return error;
    throw error;
  }
}
/** How a preflight names its two tokens in refusals (the swap into itself). */
const PREFLIGHT_TOKEN_FIELDS = ['inputToken', 'outputToken'] as const;

const subjectOf = (ctx: OperationContext): TradingSubject => ({ type: ctx.subject.type, id: ctx.subject.id });

const verdictSchema = z.object({
  check: z.enum(PREFLIGHT_CHECKS),
  verdict: z.enum(['passed', 'refused', 'not_run']),
  code: z.string().optional().describe('The error code the trade would be refused with'),
  message: z.string().optional().describe("The refusal's message, word for word what the trade would answer"),
  retryable: z.boolean().optional(),
  retryAfter: z.number().optional().describe('Seconds to wait before a retry may pass (an open circuit breaker)'),
});

const preflightOutput = z.object({
  passed: z.boolean().describe('True when every check passed: the same trade placed now would become an order'),
  checks: z.array(verdictSchema).describe('Every check in the order it runs; after a refusal the remaining ones are `not_run`'),
  trade: z
    .object({
      chain: z.string(),
      inputToken: z.string(),
      inputSymbol: z.string(),
      outputToken: z.string(),
      outputSymbol: z.string(),
      amountIn: z.string(),
      expectedOut: z.string(),
      minOut: z.string(),
      priceImpactBps: z.number(),
      slippageBps: z.number(),
      feeAmount: z.string(),
      venue: z.string(),
      valueUsd: z.string().nullable(),
      walletId: z.string(),
      approval: z.enum(['approval_required', 'auto_approved']),
      approvalReason: z.string().optional(),
    })
    .optional()
    .describe('The order the trade would make, present once every safety check passed (the daily volume may still refuse it)'),
  asOf: z.string(),
});

const tokenOutput = z.object({
  chain: z.string(),
  query: z.string(),
  listed: z.boolean().describe("On the venue's token list for the chain: only listed tokens trade"),
  token: z
    .object({ chain: z.string(), address: z.string(), symbol: z.string(), name: z.string(), decimals: z.number(), native: z.boolean() })
    .optional(),
  priceUsd: z.number().nullable(),
  liquidityUsd: z.number().nullable(),
  change24hPct: z.number().nullable(),
  account: z
    .object({
      blacklisted: z.boolean(),
      favorite: z.boolean(),
      spendable: z.boolean().describe('Whether a trade may spend it (on Solana only native SOL and USDC may be)'),
      minLiquidityUsd: z.number(),
      belowMinLiquidity: z.boolean().nullable(),
    })
    .optional(),
  chainStatus: z.object({
    venueTradesChain: z.boolean(),
    killSwitch: z.boolean(),
    provider: z.string(),
    breaker: z.enum(['closed', 'open', 'half_open']),
  }),
  riskFlags: z.array(z.string()),
  asOf: z.string(),
});

/** Risk and security checks: a trade's dry run through the safety path, and a token's risk report. */
export function riskOperations(deps: RiskOperationsDeps) {
  return [
    defineOperation({
      name: 'trading_preflight',
      description:
        'Run a proposed swap through every safety check without placing it: whether this credential may call the swap tool ' +
        '(scope, switched-off tools), trading enabled, kill switch, ' +
        'wallet, known tokens, blacklist, input token, amount, risk policy, spending cap, balance, quote and slippage, circuit ' +
        "breaker and the risk policy's daily volume, each with its verdict in order (a refusal carries the exact code and " +
        'message the trade would get; the checks after it are `not_run`), and, once priced, the order it would make and whether ' +
        'it would wait for approval. Places, reserves and publishes nothing.',
      family: 'risk',
      minScope: 'read',
      principals: ['agent', 'bot', 'operator'],
      input: z
        .object({
          chain: chainSchema.optional().describe(`Chain to trade on: ${CHAIN_WORDS}; default: the trade defaults' chain.`),
          inputToken: tokenRef.describe('Token to sell: its symbol (e.g. "SOL", "USDC") or its address on that chain.'),
          outputToken: tokenRef.describe('Token to buy: its symbol or its address on that chain; not the input token.'),
          amount: baseUnits.describe(`Amount of the input token to sell, ${BASE_UNITS}.`),
          slippageBps: slippageBps.optional().describe(`Slippage tolerance in basis points (100 = 1 %), 1-5000; ${SLIPPAGE_DEFAULT}.`),
          walletId: z
            .string()
            .min(1)
            .max(100)
            .optional()
            .describe("The wallet to trade from, by its walletId; default: the account's default wallet of the chain's family."),
          signalSource,
        })
        .strict(),
      output: preflightOutput,
      annotations: { readOnly: true, idempotent: true },
      handler: async (ctx, input) => {
        const chain = input.chain ?? (await deps.config.get(subjectOf(ctx))).tradeDefaults.chain;
        const credentialRefusal = swapRefusal(deps.catalog, chain, ctx);
        return deps.preflight.run(
          {
            subject: subjectOf(ctx),
            ...(ctx.userId ? { userId: ctx.userId } : {}),
            channel: ctx.surface === 'mcp' ? 'mcp' : 'rest',
            chain,
            side: 'swap',
            inputToken: input.inputToken,
            outputToken: input.outputToken,
            amount: { kind: 'base', value: input.amount },
            ...(input.slippageBps ? { slippageBps: input.slippageBps } : {}),
            ...(input.walletId ? { walletId: input.walletId } : {}),
            ...(input.signalSource ? { signalSource: input.signalSource } : {}),
            tokenFields: PREFLIGHT_TOKEN_FIELDS,
          },
          credentialRefusal,
        );
      },
    }),
    defineOperation({
      name: 'trading_token_risk_report',
      description:
        "What the service knows about a token's risk: whether the venue lists it on the chain (an unlisted one answers " +
        '`listed: false`, not an error), its price, pool liquidity and 24 h change when the venue has them, its address, ' +
        "decimals and whether it is native, the account's view (blacklisted, favorite, spendable as a trade's input, under " +
        "the pool preferences' minimum liquidity), what would stop any trade on the chain (kill switch, circuit breaker), and " +
        'the risk flags of token research plus `unlisted` and `no_price`.',
      family: 'risk',
      minScope: 'read',
      principals: ['agent', 'bot', 'operator'],
      input: z
        .object({
          token: tokenRef.describe(
            'Token to report on: its symbol (e.g. "BONK") or its address on that chain (Solana mint or 0x contract).',
          ),
          chain: chainSchema.optional().describe(`Chain to look on: ${CHAIN_WORDS}; default: the trade defaults' chain.`),
        })
        .strict(),
      output: tokenOutput,
      annotations: { readOnly: true, idempotent: true },
      handler: (ctx, input) => deps.tokens.report(subjectOf(ctx), input.token, input.chain),
    }),
  ];
}
