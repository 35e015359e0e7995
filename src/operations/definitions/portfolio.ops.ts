import { z } from 'zod';
import type { StatusReader } from '../../../agents/portfolio/portfolio.types.js';
import { defineOperation } from '../operation-definition.js';

const decimal = z.string().regex(/^\d+(\.\d+)?$/);

const portfolioSummary = z.object({
  subjectType: z.enum(['agent', 'bot']),
  subjectId: z.string(),
  name: z.string(),
  status: z.string(),
  tradingEnabled: z.boolean(),
  wallets: z.array(z.object({ walletId: z.string(), chain: z.string(), address: z.string(), custodial: z.boolean() })),
  positions: z.array(
    z.object({ chain: z.string(), token: z.string(), symbol: z.string().optional(), amount: decimal, valueUsd: decimal.optional() }),
  ),
  openOrders: z.number().int().nonnegative(),
  valueUsd: decimal,
  asOf: z.string(),
});

/** Portfolio and status family (the MCP routes). */
export function portfolioOperations(reader: StatusReader) {
  return [
    defineOperation({
      name: 'trading_portfolio_summary',
      description:
        'Portfolio of the trading account this credential acts on: lifecycle status, whether trading is enabled, wallets ' +
        '(no key material), open positions (whole-token decimal amounts), the number of open orders, total USD value of ' +
        'priced positions (two decimals) and `asOf`. The account is named by `subjectType` ("agent", or "bot" for a legacy ' +
        'bot, which has its own trading account) and `subjectId`, so both principals get the same shape. Empty lists mean ' +
        'nothing is held yet.',
      family: 'portfolio',
      minScope: 'read',
      principals: ['agent', 'bot', 'operator'],
      input: z.object({}).strict(),
      output: portfolioSummary,
      annotations: { readOnly: true, idempotent: true },
      handler: (ctx) => reader.portfolio(ctx.subject),
    }),
  ];
}
