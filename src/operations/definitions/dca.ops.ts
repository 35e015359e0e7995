import { z } from 'zod';
import { CHAIN_WORDS } from '../../../kernel/vocabulary/chains.js';
import type { DcaService } from '../../../agents/dca/dca.service.js';
import type { TradingSubject } from '../../../agents/portfolio/portfolio.types.js';
import { INTERVAL_HINT } from '../../../agents/dca/dca-interval.js';
import { HINT, WHOLE_MESSAGE } from '../../../kernel/errors/validation-messages.js';
import { isIsoTime } from '../../../kernel/shared/iso-time.js';
import type { OperationContext } from '../operation.types.js';
import { defineOperation } from '../operation-definition.js';
import { pageFields, pageOfList, pageSchema } from './list-paging.js';
import { WHOLE_TOKENS, chain, slippageBps, tokenRef, wholeTokens } from './trading-schemas.js';

const subjectOf = (ctx: OperationContext): TradingSubject => ({ type: ctx.subject.type, id: ctx.subject.id });
const strategyName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/, 'must be 1-64 letters, digits or . _ : - (starting with a letter or digit)');
const isoTime = z.string().refine(isIsoTime, 'must be an ISO 8601 time');
/** The name of an existing strategy (a path parameter over REST). */
const strategyNameRef = strategyName.describe('Name of the DCA strategy, as it was created (`trading_dca_strategies_list` lists them).');

const strategy = z.object({
  name: z.string(),
  strategyId: z.string(),
  status: z.enum(['pending_approval', 'active', 'paused', 'completed', 'deleted']),
  chain: z.string(),
  inputToken: z.string(),
  outputToken: z.string(),
  inputSymbol: z.string(),
  outputSymbol: z.string(),
  amount: z.string(),
  interval: z.string(),
  maxBuys: z.number().optional(),
  maxSpend: z.string().optional(),
  slippageBps: z.number().optional(),
  startAt: z.string().optional(),
  endAt: z.string().optional(),
  catchUp: z.boolean(),
  buys: z.number(),
  failures: z.number(),
  failuresInRow: z.number(),
  skipped: z.number(),
  holdReason: z.string().optional(),
  approvedAt: z.string().optional(),
  lastError: z.string().optional(),
  lastOrderId: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const strategies = z.object({ items: z.array(strategy) });
const nullable = z.string().nullable();

/** DCA strategies (the trading routes): list and stats read, changes trade. */
export function dcaOperations(dca: DcaService) {
  return [
    defineOperation({
      name: 'trading_dca_strategies_list',
      description:
        'DCA strategies of the trading account by name, with their status (`pending_approval`, `active`, `paused`, `completed`) and counters; paged with `cursor`.',
      family: 'strategy',
      minScope: 'read',
      principals: ['agent', 'bot', 'operator'],
      input: z.object(pageFields).strict(),
      output: pageSchema(strategy),
      annotations: { readOnly: true, idempotent: true },
      handler: async (ctx, input) => pageOfList(await dca.list(subjectOf(ctx)), (s) => `${s.name}|${s.strategyId}`, input),
    }),
    defineOperation({
      name: 'trading_dca_strategy_create',
      description:
        'Create a DCA strategy that buys `amount` (whole tokens of `inputToken`) of `outputToken` on a schedule until paused, ' +
        'deleted or a limit is reached. `interval`: a cron expression (UTC, 5 fields or 6 with seconds) or "every <n> ' +
        '<minutes|hours|days>" ("every hour", "every 2h", "daily", "weekly" too), at least a minute apart. Limits: `maxBuys`, `maxSpend` (whole input tokens, at least `amount`), `endAt`; the strategy is ' +
        '`completed` when one is reached. `catchUp` (default true): a buy ' +
        'missed while the service was down runs once at restart; false skips it. Every buy is an ordinary order through the ' +
        'safety path. When the order profile would hold one buy for approval (autoApprove off, or a buy over ' +
        '`approvalAboveUsd`), the strategy is created `pending_approval` and buys nothing until approved with ' +
        '`trading_dca_strategy_approve`. Names are unique per user; 409 past the per-user strategy limit.',
      family: 'strategy',
      minScope: 'trade',
      principals: ['agent', 'bot', 'operator'],
      input: z
        .object({
          name: strategyName.describe(
            'Name of the strategy, unique among your strategies: 1-64 letters, digits or . _ : -, starting with a letter or digit. Other DCA tools name it by this.',
          ),
          inputToken: tokenRef.describe('Token each buy spends: its symbol or address; on Solana native SOL or USDC.'),
          outputToken: tokenRef.describe('Token each buy acquires: its symbol or address; not the input token.'),
          amount: wholeTokens
            .refine((value) => Number(value) > 0, 'must be greater than 0')
            .describe(`Amount of the input token each buy spends, greater than 0, ${WHOLE_TOKENS}.`),
          interval: z
            .string()
            .trim()
            .min(1)
            .max(100)
            // Checked here, not only in the service, so that a bad interval is listed with the body's other problems.
            .superRefine((value, ctx) => {
              const parsed = dca.parseInterval(value);
              if (!parsed.ok)
                ctx.addIssue({ code: 'custom', message: parsed.error, params: { [WHOLE_MESSAGE]: true, [HINT]: INTERVAL_HINT } });
            })
            .describe(
              'How often to buy, at least a minute apart: a cron expression in UTC (5 fields, or 6 with seconds, e.g. "0 9 * * 1") or ' +
                '"every <n> <minutes|hours|days>" (e.g. "every 30 minutes", "every 2h"); "every hour", "daily" and "weekly" too.',
            ),
          chain: chain.optional().describe(`Chain to buy on: ${CHAIN_WORDS}; default: the trade defaults' chain.`),
          maxBuys: z
            .number()
            .int()
            .min(1)
            .max(1_000_000)
            .optional()
            .describe('Stop (status `completed`) after this many buys, 1-1000000; default: no limit.'),
          maxSpend: wholeTokens
            .optional()
            .describe(
              `Stop (status \`completed\`) once this much of the input token is spent, ${WHOLE_TOKENS}; at least \`amount\`; default: no limit.`,
            ),
          slippageBps: slippageBps
            .optional()
            .describe("Slippage tolerance of each buy in basis points (100 = 1 %), 1-5000; default: the account's at the time of the buy."),
          startAt: isoTime.optional().describe('When the first buy may run, an ISO 8601 time (e.g. "2030-01-01T09:00:00Z"); default: now.'),
          endAt: isoTime
            .optional()
            .describe('When the strategy ends (status `completed`), an ISO 8601 time after startAt and in the future; default: no end.'),
          catchUp: z
            .boolean()
            .optional()
            .describe('true (default): a buy missed while the service was down runs once at restart; false: it is skipped.'),
          maxFailuresInRow: z
            .number()
            .int()
            .min(1)
            .max(100)
            .optional()
            .describe('Pause the strategy after this many failed buys in a row, 1-100; default 3.'),
        })
        .strict()
        // Checks across fields (DECISIONS "HTTP"): `when` runs them even when another field failed, so a 400 lists them all.
        .superRefine(
          (value, ctx) => {
            for (const message of dca.fieldProblems(value)) ctx.addIssue({ code: 'custom', message, params: { [WHOLE_MESSAGE]: true } });
          },
          { when: (payload) => typeof payload.value === 'object' && payload.value !== null },
        ),
      output: strategy,
      annotations: { destructive: false, idempotent: false },
      handler: (ctx, input) => dca.create(subjectOf(ctx), ctx.userId, input),
    }),
    defineOperation({
      name: 'trading_dca_strategy_approve',
      description:
        "Approve a DCA strategy in `pending_approval` (its buys are over the order profile's approval size, or auto-approval " +
        'is off): it becomes `active`, is scheduled from now, and its buys are approved. 409 when it is not pending approval. ' +
        'A `trade` key may approve only when the order profile says `agentsMayApprove`; otherwise approval takes a `manage` key or the owner.',
      family: 'strategy',
      minScope: 'trade',
      principals: ['agent', 'bot', 'operator'],
      input: z.object({ strategyName: strategyNameRef }).strict(),
      output: strategy,
      annotations: { destructive: false, idempotent: false },
      handler: (ctx, input) => dca.approve(subjectOf(ctx), ctx.userId, input.strategyName, ctx.scope),
    }),
    defineOperation({
      name: 'trading_dca_strategy_delete',
      description: 'Delete a DCA strategy by name: its schedule is removed at once; its orders stay in the order history.',
      family: 'strategy',
      minScope: 'trade',
      principals: ['agent', 'bot', 'operator'],
      input: z.object({ strategyName: strategyNameRef }).strict(),
      output: strategy,
      annotations: { destructive: true, idempotent: false },
      handler: (ctx, input) => dca.delete(subjectOf(ctx), ctx.userId, input.strategyName),
    }),
    defineOperation({
      name: 'trading_dca_pause',
      description: 'Pause one DCA strategy (`name`) or every active one: no buys until resumed.',
      family: 'strategy',
      minScope: 'trade',
      principals: ['agent', 'bot', 'operator'],
      input: z
        .object({ name: strategyName.optional().describe('Name of the strategy to pause; omit to pause every active one.') })
        .strict(),
      output: strategies,
      annotations: { destructive: false, idempotent: true },
      handler: async (ctx, input) => ({ items: await dca.pause(subjectOf(ctx), ctx.userId, input.name) }),
    }),
    defineOperation({
      name: 'trading_dca_resume',
      description:
        'Resume one paused DCA strategy (`name`) or every paused one: the next buy is the next due time from now, without a burst of missed buys.',
      family: 'strategy',
      minScope: 'trade',
      principals: ['agent', 'bot', 'operator'],
      input: z
        .object({ name: strategyName.optional().describe('Name of the strategy to resume; omit to resume every paused one.') })
        .strict(),
      output: strategies,
      annotations: { destructive: false, idempotent: true },
      handler: async (ctx, input) => ({ items: await dca.resume(subjectOf(ctx), ctx.userId, input.name) }),
    }),
    defineOperation({
      name: 'trading_dca_stats',
      description:
        'DCA statistics per strategy and in total: buys, failures, skipped ticks (agent paused or trading off, missed with catchUp off, ' +
        'held for approval), spent, acquired, average price vs current price, value and PnL in USD, next run.',
      family: 'strategy',
      minScope: 'read',
      principals: ['agent', 'bot', 'operator'],
      input: z.object({}).strict(),
      output: z.object({
        strategies: z.array(
          z.object({
            name: z.string(),
            status: z.string(),
            buys: z.number(),
            failures: z.number(),
            skipped: z.number(),
            spent: z.string(),
            acquired: z.string(),
            inputSymbol: z.string(),
            outputSymbol: z.string(),
            averagePrice: nullable,
            averagePriceUsd: nullable,
            currentPriceUsd: nullable,
            spentUsd: z.string(),
            valueUsd: nullable,
            pnlUsd: nullable,
            nextRun: nullable,
          }),
        ),
        totals: z.object({
          strategies: z.number(),
          buys: z.number(),
          skipped: z.number(),
          spentUsd: z.string(),
          valueUsd: z.string(),
          pnlUsd: z.string(),
        }),
        asOf: z.string(),
      }),
      annotations: { readOnly: true, idempotent: true },
      handler: (ctx) => dca.stats(subjectOf(ctx)),
    }),
  ];
}
