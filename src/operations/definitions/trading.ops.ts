import { z } from 'zod';
import { EVM_CHAIN_ID_WORDS } from '../../../kernel/vocabulary/chains.js';
import type { OrderQueries } from '../../../agents/trading/order-queries.js';
import { requireTokenPair } from '../../../agents/trading/token-pairs.js';
import type { TradingSubject } from '../../../agents/portfolio/portfolio.types.js';
import type { TradingPipeline } from '../../../agents/trading/trading-pipeline.js';
import { defaultSlippageBps } from '../../../agents/config/trading-config.rules.js';
import type { TradeChannel, TradingConfigReader } from '../../../agents/config/trading-config.types.js';
import type { Chain, VenuePort } from '../../../kernel/ports/venue.port.js';
import type { OperationContext } from '../operation.types.js';
import { defineOperation } from '../operation-definition.js';
import { pageFields } from './list-paging.js';
import {
  BASE_UNITS,
  ORDER_DESCRIPTION,
  SLIPPAGE_DEFAULT,
  baseUnits,
  chainOfId,
  evmChainId,
  keyedOrder,
  orderOutput,
  orderPage,
  requiredIdempotencyKey,
  signalSource,
  slippageBps,
  tokenRef,
} from './trading-schemas.js';

export interface TradingOperationsDeps {
  pipeline: TradingPipeline;
  queries: OrderQueries;
  venue: VenuePort;
  /** The account's trading configuration: a quote naming no slippage takes the swap's default. */
  config: TradingConfigReader;
}

const subjectOf = (ctx: OperationContext): TradingSubject => ({ type: ctx.subject.type, id: ctx.subject.id });
const channelOf = (ctx: OperationContext): TradeChannel => (ctx.surface === 'mcp' ? 'mcp' : 'rest');

/** How the EVM quote and swap name their tokens (request shapes), for the refusals that name them. */
const EVM_TOKEN_FIELDS = ['sellToken', 'buyToken'] as const;

const evmSwapFields = {
  chainId: evmChainId,
  sellToken: tokenRef.describe('Token to sell on that chain: its symbol (e.g. "USDC", "WETH") or its 0x contract address.'),
  buyToken: tokenRef.describe('Token to buy on that chain: its symbol or its 0x contract address; not the sell token.'),
  sellAmount: baseUnits.describe(`Amount of the sell token to sell, ${BASE_UNITS}.`),
  slippageBps: slippageBps.optional().describe(`Slippage tolerance in basis points (100 = 1 %), 1-5000; ${SLIPPAGE_DEFAULT}.`),
};
const orderId = z
  .string()
  .min(1)
  .max(100)
  .describe("The order's `order_id`, as a swap, `trading_orders_list` or `trading_approvals_list` answered it.");

const quoteOutput = z.object({
  chainId: z.number(),
  sellToken: z.string(),
  buyToken: z.string(),
  sellAmount: z.string(),
  buyAmount: z.string(),
  minBuyAmount: z.string(),
  priceImpactBps: z.number(),
  feeAmount: z.string(),
  venue: z.string(),
  expiresAt: z.string(),
});

const listInput = z
  .object({
    status: z
      .enum(['pending_approval', 'approved', 'submitting', 'submitted', 'filled', 'failed', 'rejected', 'cancelled', 'expired'])
      .optional()
      .describe('Only orders in this status; default: every order.'),
    ...pageFields,
  })
  .strict();

/** Trading execution (the trading routes and the MCP routes): swaps through the safety path, quotes, orders and approvals. */
export function tradingOperations(deps: TradingOperationsDeps) {
  /** A swap of `amount` base units for the credential's account, idempotent by the call's key. */
  const swap = (
    ctx: OperationContext,
    fields: {
      chain: Chain;
      inputToken: string;
      outputToken: string;
      amount: string;
      slippageBps?: number;
      walletId?: string;
      signalSource?: string;
    },
    tokenFields?: readonly [string, string],
  ) => {
    const { amount, ...rest } = fields;
    return deps.pipeline.place(
      {
        subject: subjectOf(ctx),
        ...(ctx.userId ? { userId: ctx.userId } : {}),
        ...(ctx.account ? { account: ctx.account } : {}),
        channel: channelOf(ctx),
        side: 'swap',
        amount: { kind: 'base', value: amount },
        ...rest,
        ...(tokenFields ? { tokenFields } : {}),
      },
      keyedOrder(ctx, 'swap', fields),
    );
  };
  return [
    defineOperation({
      name: 'trading_solana_aggregator_swap',
      description:
        'Swap on Solana through the safety path (trading enabled, kill switch, custodial wallet, known tokens, input must be ' +
        'native SOL or USDC, risk policy, slippage, balance, circuit breaker). `amount` is in base units of the input token ' +
        '(lamports for SOL). Pass `idempotencyKey` (UUID v4) so that a retry never trades twice. ' +
        ORDER_DESCRIPTION,
      family: 'trading',
      minScope: 'trade',
      principals: ['agent', 'bot', 'operator'],
      effect: 'funds',
      input: z
        .object({
          inputMint: tokenRef.describe(
            'Token to sell: native SOL or USDC (the only inputs allowed on Solana), as the symbol ("SOL", "USDC") or the mint address.',
          ),
          outputMint: tokenRef.describe('Token to buy: its symbol (e.g. "BONK") or its base58 mint address; not the input token.'),
          amount: baseUnits.describe(`Amount of the input token to sell, ${BASE_UNITS}.`),
          slippageBps: slippageBps.optional().describe(`Slippage tolerance in basis points (100 = 1 %), 1-5000; ${SLIPPAGE_DEFAULT}.`),
          signalSource,
          idempotencyKey: requiredIdempotencyKey,
        })
        .strict(),
      output: orderOutput,
      annotations: { destructive: false, idempotent: false },
      handler: (ctx, input) =>
        swap(ctx, {
          chain: 'solana',
          inputToken: input.inputMint,
          outputToken: input.outputMint,
          amount: input.amount,
          ...(input.slippageBps ? { slippageBps: input.slippageBps } : {}),
          ...(input.signalSource ? { signalSource: input.signalSource } : {}),
        }),
    }),
    defineOperation({
      name: 'trading_evm_quote',
      description:
        `Quote an EVM swap (${EVM_CHAIN_ID_WORDS}) without trading: \`buyAmount\` after fees and price impact, ` +
        '`minBuyAmount` after the slippage tolerance (`slippageBps`, default: what a swap would use, the tighter of the trade defaults and the order profile), `priceImpactBps`, `feeAmount` (base units ' +
        'of the sell token) and when the quote expires. Tokens are symbols or addresses; amounts are base units.',
      family: 'research',
      minScope: 'read',
      principals: ['agent', 'bot', 'operator'],
      input: z.object(evmSwapFields).strict(),
      output: quoteOutput,
      annotations: { readOnly: true, idempotent: true },
      handler: async (ctx, input) => {
        const chain = chainOfId(input.chainId);
        const [sell, buy] = await requireTokenPair(deps.venue, chain, input.sellToken, input.buyToken, EVM_TOKEN_FIELDS);
        const slippage = input.slippageBps ?? defaultSlippageBps(await deps.config.get(subjectOf(ctx)));
        const quote = await deps.venue.quote({
          chain,
          inputMint: sell.address,
          outputMint: buy.address,
          amountIn: input.sellAmount,
          slippageBps: slippage,
        });
        return {
          chainId: input.chainId,
          sellToken: sell.address,
          buyToken: buy.address,
          sellAmount: quote.amountIn,
          buyAmount: quote.expectedOut,
          minBuyAmount: quote.minOut,
          priceImpactBps: quote.priceImpactBps,
          feeAmount: quote.feeAmount,
          venue: quote.venue,
          expiresAt: new Date(quote.expiresAt).toISOString(),
        };
      },
    }),
    defineOperation({
      name: 'trading_evm_swap',
      description:
        'Execute an EVM swap through the safety path from the default (or named `walletId`) custodial wallet. Same body as ' +
        '`trading_evm_quote`. ' +
        ORDER_DESCRIPTION,
      family: 'trading',
      minScope: 'trade',
      principals: ['agent', 'bot', 'operator'],
      effect: 'funds',
      input: z
        .object({
          ...evmSwapFields,
          walletId: z
            .string()
            .min(1)
            .max(100)
            .optional()
            .describe(
              'The EVM wallet to trade from, by its walletId (`trading_evm_wallets_list`): a custodial or delegate one, which the service signs with; default: the default EVM wallet.',
            ),
          signalSource,
          idempotencyKey: requiredIdempotencyKey,
        })
        .strict(),
      output: orderOutput,
      annotations: { destructive: false, idempotent: false },
      handler: (ctx, input) =>
        swap(
          ctx,
          {
            chain: chainOfId(input.chainId),
            inputToken: input.sellToken,
            outputToken: input.buyToken,
            amount: input.sellAmount,
            ...(input.slippageBps ? { slippageBps: input.slippageBps } : {}),
            ...(input.walletId ? { walletId: input.walletId } : {}),
            ...(input.signalSource ? { signalSource: input.signalSource } : {}),
          },
          EVM_TOKEN_FIELDS,
        ),
    }),
    defineOperation({
      name: 'trading_orders_list',
      description: 'Orders of the trading account, newest first, optionally only one `status`; paged with `cursor`.',
      family: 'portfolio',
      minScope: 'read',
      principals: ['agent', 'bot', 'operator'],
      input: listInput,
      output: orderPage,
      annotations: { readOnly: true, idempotent: true },
      handler: (ctx, input) =>
        deps.queries.list(subjectOf(ctx), {
          limit: input.limit,
          ...(input.status ? { status: input.status } : {}),
          ...(input.cursor ? { cursor: input.cursor } : {}),
        }),
    }),
    defineOperation({
      name: 'trading_approvals_list',
      description: 'Orders waiting for approval (status `pending_approval`); each expires 15 minutes after creation.',
      family: 'portfolio',
      minScope: 'read',
      principals: ['agent', 'bot', 'operator'],
      input: listInput.omit({ status: true }),
      output: orderPage,
      annotations: { readOnly: true, idempotent: true },
      handler: (ctx, input) =>
        deps.queries.pendingApprovals(subjectOf(ctx), { limit: input.limit, ...(input.cursor ? { cursor: input.cursor } : {}) }),
    }),
    defineOperation({
      name: 'trading_orders_approve',
      description:
        'Approve an order in `pending_approval`: the checks that may have changed (trading enabled, kill switch, blacklist, risk policy, balance, ' +
        'circuit breaker) run again, then it executes. 409 when the order is not pending approval. A `trade` key may approve ' +
        'only when the order profile says `agentsMayApprove`; otherwise approval takes a `manage` key or the owner. ' +
        ORDER_DESCRIPTION,
      family: 'trading',
      minScope: 'trade',
      principals: ['agent', 'bot', 'operator'],
      effect: 'funds',
      input: z.object({ order_id: orderId, idempotencyKey: requiredIdempotencyKey }).strict(),
      output: orderOutput,
      annotations: { destructive: false, idempotent: false },
      handler: (ctx, input) => deps.pipeline.approve(subjectOf(ctx), input.order_id, ctx.scope),
    }),
    defineOperation({
      name: 'trading_orders_cancel',
      description:
        'Cancel an order nothing was sent for yet (`pending_approval` or `approved`): it becomes `cancelled` and never executes. ' +
        '409 `Order <id> cannot be cancelled (status: <status>)` once it was sent or settled; cancelling a cancelled order ' +
        'answers it again (safe to retry). Any `trade` credential of the account may cancel. ' +
        ORDER_DESCRIPTION,
      family: 'trading',
      minScope: 'trade',
      principals: ['agent', 'bot', 'operator'],
      input: z.object({ order_id: orderId }).strict(),
      output: orderOutput,
      // Cancelling again changes nothing more: idempotent by nature, so not guarded by a key (it moves no funds).
      annotations: { destructive: true, idempotent: true },
      handler: (ctx, input) => deps.pipeline.cancel(subjectOf(ctx), input.order_id),
    }),
  ];
}
