import { z } from 'zod';
import { CHAIN_WORDS } from '../../../kernel/vocabulary/chains.js';
import { belowSmallestUnit, fromBaseUnits, toBaseUnits } from '../../../kernel/vocabulary/amounts.js';
import type { TradingSubject } from '../../../agents/portfolio/portfolio.types.js';
import type { DepositsService } from '../../../agents/wallets/deposits.service.js';
import { valuePositions } from '../../../agents/portfolio/position-valuation.js';
import type { PositionsService } from '../../../agents/portfolio/positions.service.js';
import type { KillSwitch, TradingConfigReader } from '../../../agents/config/trading-config.types.js';
import { requireToken } from '../../../agents/trading/token-pairs.js';
import { tokenRiskFlags } from '../../../agents/trading/token-risk.js';
import { walletRequired } from '../../../agents/wallets/wallet.records.js';
import type { WalletDirectory } from '../../../agents/wallets/wallet.types.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import type { ClockPort } from '../../../kernel/ports/clock.port.js';
import {
  EVM_CHAINS,
  EVM_CHAIN_IDS,
  walletChainOf,
  type BreakerReadout,
  type Chain,
  type VenuePort,
} from '../../../kernel/ports/venue.port.js';
import type { OperationContext } from '../operation.types.js';
import { defineOperation } from '../operation-definition.js';
import { WHOLE_TOKENS, chain as chainSchema, tokenRef, wholeTokens } from './trading-schemas.js';

export interface TradingInfoDeps {
  positions: PositionsService;
  venue: VenuePort;
  breakerOf: (chain: Chain) => BreakerReadout;
  killSwitch: KillSwitch;
  config: TradingConfigReader;
  wallets: WalletDirectory;
  clock: ClockPort;
  /** Present on the paper venue only: its faucet, booked into positions as one unit with the balance. */
  deposits?: DepositsService;
}

const subjectOf = (ctx: OperationContext): TradingSubject => ({ type: ctx.subject.type, id: ctx.subject.id });
const usd = z.string().regex(/^-?\d+\.\d{2}$/);
const valued = z.object({
  chain: z.string(),
  token: z.string(),
  symbol: z.string(),
  amount: z.string(),
  priceUsd: z.string().nullable(),
  valueUsd: usd.nullable(),
  avgCostUsd: z.string(),
  costBasisUsd: usd,
  realizedPnlUsd: usd,
  unrealizedPnlUsd: usd.nullable(),
  pnlPct: usd.nullable(),
});
const totals = z.object({ valueUsd: usd, costBasisUsd: usd, realizedPnlUsd: usd, unrealizedPnlUsd: usd });
/** Output of both position tools (open only, or with the closed ones kept for their realized PnL). */
const valuedPositionsOutput = z.object({ positions: z.array(valued), totals, asOf: z.string() });

/** Portfolio, market research and engine status (read), plus the paper faucet for operators. */
export function tradingInfoOperations(deps: TradingInfoDeps) {
  const price = (chain: string, token: string) => deps.venue.priceUsd(chain as Chain, token);
  const valuedPositions = async (ctx: OperationContext, includeClosed: boolean) => {
    const records = (await deps.positions.list(subjectOf(ctx))).filter((record) => includeClosed || record.amountBase !== '0');
    return { ...(await valuePositions(records, price)), asOf: new Date(deps.clock.now()).toISOString() };
  };
  const operations = [
    defineOperation({
      name: 'trading_positions',
      description: 'Open positions: amount held (whole tokens), current price and value, average cost and cost basis (USD).',
      family: 'portfolio',
      minScope: 'read',
      principals: ['agent', 'bot', 'operator'],
      input: z.object({}).strict(),
      output: valuedPositionsOutput,
      annotations: { readOnly: true, idempotent: true },
      handler: (ctx) => valuedPositions(ctx, false),
    }),
    defineOperation({
      name: 'trading_positions_pnl',
      description:
        'Positions with PnL: realized PnL from sales against average cost, unrealized PnL of what is held at the current ' +
        'price, percentage against cost basis, and totals. Closed positions stay listed for their realized PnL.',
      family: 'portfolio',
      minScope: 'read',
      principals: ['agent', 'bot', 'operator'],
      input: z.object({}).strict(),
      output: valuedPositionsOutput,
      annotations: { readOnly: true, idempotent: true },
      handler: (ctx) => valuedPositions(ctx, true),
    }),
    defineOperation({
      name: 'trading_evm_status',
      description: 'EVM trading engine status per chain: reachable, the venue circuit breaker state, and the kill switch.',
      family: 'risk',
      minScope: 'read',
      principals: ['agent', 'bot', 'operator'],
      input: z.object({}).strict(),
      output: z.object({
        venue: z.string(),
        chains: z.array(
          z.object({
            chain: z.string(),
            chainId: z.number(),
            provider: z.string(),
            reachable: z.boolean(),
            latencyMs: z.number().optional(),
            error: z.string().optional(),
            breaker: z.enum(['closed', 'open', 'half_open']),
            killSwitch: z.boolean(),
          }),
        ),
        asOf: z.string(),
      }),
      annotations: { readOnly: true, idempotent: true },
      handler: async () => {
        const chains = await Promise.all(
          EVM_CHAINS.map(async (chain) => {
            const health = await deps.venue
              .health(chain)
              .catch((error: unknown) => ({ chain, reachable: false, error: error instanceof Error ? error.message : 'unreachable' }));
            const breaker = deps.breakerOf(chain);
            return {
              ...health,
              chain,
              chainId: EVM_CHAIN_IDS[chain as keyof typeof EVM_CHAIN_IDS],
              provider: breaker.provider,
              breaker: breaker.state,
              killSwitch: await deps.killSwitch.isActive(chain),
            };
          }),
        );
        return { venue: deps.venue.name, chains, asOf: new Date(deps.clock.now()).toISOString() };
      },
    }),
    defineOperation({
      name: 'trading_solana_aggregator_tokens_search',
      description: 'Search Solana tokens by symbol, name or mint; best matches first, with decimals and USD price.',
      family: 'research',
      minScope: 'read',
      principals: ['agent', 'bot', 'operator'],
      input: z
        .object({
          query: z
            .string()
            .trim()
            .min(1)
            .max(100)
            .describe('What to look for: a symbol (e.g. "BONK"), a name, or a mint address; 1-100 characters.'),
          limit: z.number().int().min(1).max(50).default(10).describe('Most tokens to answer with, 1-50; default 10.'),
        })
        .strict(),
      output: z.object({
        tokens: z.array(
          z.object({ mint: z.string(), symbol: z.string(), name: z.string(), decimals: z.number(), priceUsd: z.number().nullable() }),
        ),
      }),
      annotations: { readOnly: true, idempotent: true },
      handler: async (_ctx, input) => {
        const tokens = await deps.venue.searchTokens(input.query, { chain: 'solana', limit: input.limit });
        return {
          tokens: await Promise.all(
            tokens.map(async (token) => ({
              mint: token.address,
              symbol: token.symbol,
              name: token.name,
              decimals: token.decimals,
              priceUsd: await deps.venue.priceUsd('solana', token.address),
            })),
          ),
        };
      },
    }),
    defineOperation({
      name: 'trading_research_token',
      description:
        'Token research: price, pool liquidity, 24 h change and risk flags (`low_liquidity`, `high_volatility`, `depeg` for ' +
        'stablecoins, `blacklisted` by this account). `token` is a symbol or address; `chain` defaults to the trade defaults.',
      family: 'research',
      minScope: 'read',
      principals: ['agent', 'bot', 'operator'],
      input: z
        .object({
          token: tokenRef.describe(
            'Token to research: its symbol (e.g. "SOL", "USDC") or its address on that chain (Solana mint or 0x contract).',
          ),
          chain: chainSchema.optional().describe(`Chain to look on: ${CHAIN_WORDS}; default: the trade defaults' chain.`),
        })
        .strict(),
      output: z.object({
        chain: z.string(),
        address: z.string(),
        symbol: z.string(),
        name: z.string(),
        decimals: z.number(),
        priceUsd: z.number().nullable(),
        liquidityUsd: z.number().nullable(),
        change24hPct: z.number().nullable(),
        riskFlags: z.array(z.string()),
        asOf: z.string(),
      }),
      annotations: { readOnly: true, idempotent: true },
      handler: async (ctx, input) => {
        const config = await deps.config.get(subjectOf(ctx));
        const chain = input.chain ?? config.tradeDefaults.chain;
        const token = await requireToken(deps.venue, chain, input.token);
        const market = (await deps.venue.market?.(chain, token.address)) ?? null;
        const priceUsd = market?.priceUsd ?? (await deps.venue.priceUsd(chain, token.address));
        const flags = tokenRiskFlags(token, market, priceUsd, config);
        return {
          chain,
          address: token.address,
          symbol: token.symbol,
          name: token.name,
          decimals: token.decimals,
          priceUsd,
          liquidityUsd: market?.liquidityUsd ?? null,
          change24hPct: market?.change24hPct ?? null,
          riskFlags: flags,
          asOf: new Date(deps.clock.now()).toISOString(),
        };
      },
    }),
  ];
  return deps.deposits ? [...operations, faucetOperation(deps, deps.deposits)] : operations;
}

/** Trading accounts: the paper venue's faucet credits the account's custodial wallet. */
function faucetOperation(deps: TradingInfoDeps, deposits: DepositsService) {
  return defineOperation({
    name: 'trading_paper_faucet',
    description: "Paper venue only: credit test funds to the account's custodial wallet. `amount` is in whole tokens.",
    family: 'wallet',
    minScope: 'manage',
    principals: ['operator'],
    input: z
      .object({
        chain: chainSchema.describe(
          `Chain to credit on: ${CHAIN_WORDS}; the account needs a custodial wallet of its family (\`trading_wallet_custodial_ensure\`).`,
        ),
        token: tokenRef.describe('Token to credit: its symbol (e.g. "USDC", "SOL") or its address on that chain.'),
        amount: wholeTokens.describe(`Amount to credit, greater than 0, ${WHOLE_TOKENS}; digits past the token's decimals are dropped.`),
      })
      .strict(),
    output: z.object({
      chain: z.string(),
      token: z.string(),
      symbol: z.string(),
      address: z.string(),
      walletId: z.string(),
      credited: z.string(),
      balance: z.string(),
    }),
    annotations: { destructive: false, idempotent: false },
    handler: async (ctx, input) => {
      const subject = subjectOf(ctx);
      const wallet = await deps.wallets.signingWallet(subject, walletChainOf(input.chain));
      if (!wallet) throw walletRequired(walletChainOf(input.chain));
      const token = await requireToken(deps.venue, input.chain, input.token);
      // Digits past the token's decimals are dropped: what is credited (and reported) is what is left.
      const amount = toBaseUnits(input.amount, token.decimals);
      if (amount <= 0n) {
        const dust = /[1-9]/.test(input.amount);
        throw AppError.validation([dust ? belowSmallestUnit(token) : 'amount must be greater than 0']);
      }
      const priceUsd = (await deps.venue.priceUsd(input.chain, token.address)) ?? 0;
      // Balance and position under one server-drawn deposit id: a client's X-Request-Id names no booking.
      const { balance } = await deposits.deposit(subject, { chain: input.chain, address: wallet.address, token, amount, priceUsd });
      return {
        chain: input.chain,
        token: token.address,
        symbol: token.symbol,
        address: wallet.address,
        walletId: wallet.walletId,
        credited: fromBaseUnits(amount, token.decimals),
        balance: fromBaseUnits(balance, token.decimals),
      };
    },
  });
}
