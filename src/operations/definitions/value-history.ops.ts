import { z } from 'zod';
import type { TradingSubject } from '../../../agents/portfolio/portfolio.types.js';
import { DAY_MS } from '../../../agents/portfolio/value-history.records.js';
import type { ValueHistory } from '../../../agents/portfolio/value-history.service.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import type { ClockPort } from '../../../kernel/ports/clock.port.js';
import { defineOperation, defineUnboundOperation } from '../operation-definition.js';
import { isoTime } from './output-fields.js';

/** The longest range one read covers (a year of days, read as one index range). */
const MAX_RANGE_DAYS = 366;
const DEFAULT_RANGE_MS = 7 * DAY_MS;

const usd = z.string().regex(/^-?\d+\.\d{2}$/);
const time = z
  .string()
  .datetime({ offset: true })
  .describe('ISO 8601 time')
  .transform((value) => Date.parse(value));

const historyInput = z
  .object({
    from: time.optional().describe('Start of the range, ISO 8601 (inclusive); default: 7 days before `to`.'),
    to: time.optional().describe('End of the range, ISO 8601 (inclusive); default: now.'),
    limit: z
      .number()
      .int()
      .min(2)
      .max(1000)
      .default(200)
      .describe(
        'Most points to answer with, 2-1000 (default 200): more readings are thinned to the last one of each of this many equal slices of the time they span.',
      ),
  })
  .strict();

const point = z.object({
  at: isoTime,
  valueUsd: usd,
  costBasisUsd: usd,
  realizedPnlUsd: usd,
  unrealizedPnlUsd: usd,
  reason: z.enum(['change', 'periodic']).describe('`change`: taken after a fill, deposit or withdrawal; `periodic`: the regular reading.'),
});

export interface ValueHistoryOpsDeps {
  history: Pick<ValueHistory, 'read' | 'sweep'>;
  clock: ClockPort;
  /** Gap between periodic readings (told to the reader, who may want to know how fine the line is). */
  intervalMs: number;
}

/** The portfolio value history: the read for every principal, and the periodic sweep for the service. */
export function valueHistoryOperations(deps: ValueHistoryOpsDeps) {
  return [
    defineOperation({
      name: 'trading_portfolio_history',
      description:
        "The account's portfolio value over time, as the service recorded it: a reading after each fill, deposit and withdrawal, " +
        'and a periodic one (every `intervalSeconds`) while the account holds something. Each point has the total USD value of ' +
        'priced positions, cost basis, realized and unrealized PnL (two-decimal strings, as in `trading_positions_pnl`). Oldest first; ' +
        'empty when nothing was held in the range.',
      family: 'portfolio',
      minScope: 'read',
      principals: ['agent', 'bot', 'operator'],
      input: historyInput,
      output: z.object({ points: z.array(point), from: isoTime, to: isoTime, intervalSeconds: z.number().int(), asOf: isoTime }),
      annotations: { readOnly: true, idempotent: true },
      handler: async (ctx, input) => {
        const now = deps.clock.now();
        const to = input.to ?? now;
        const from = input.from ?? to - DEFAULT_RANGE_MS;
        const problems = rangeProblems(from, to);
        if (problems.length > 0) throw AppError.validation(problems);
        const subject: TradingSubject = { type: ctx.subject.type, id: ctx.subject.id };
        const points = await deps.history.read(subject, { from, to, maxPoints: input.limit });
        return {
          points: points.map((p) => ({ ...p, at: new Date(p.at).toISOString() })),
          from: new Date(from).toISOString(),
          to: new Date(to).toISOString(),
          intervalSeconds: Math.round(deps.intervalMs / 1000),
          asOf: new Date(now).toISOString(),
        };
      },
    }),
    defineUnboundOperation({
      name: 'portfolio_value_sample',
      description: 'Takes the periodic portfolio value reading of every account whose reading is due (due job, every minute).',
      family: 'portfolio',
      minScope: 'manage',
      principals: ['system'],
      target: 'service',
      input: z.object({ dueAt: z.number().int().nonnegative().describe('Epoch ms the sweep was due.') }).strict(),
      output: z.object({ sampled: z.number().int(), failed: z.number().int() }),
      annotations: { idempotent: true },
      handler: () => deps.history.sweep(),
    }),
  ];
}

function rangeProblems(from: number, to: number): string[] {
  if (from > to) return ['from must not be after to'];
  if (to - from > MAX_RANGE_DAYS * DAY_MS) return [`from and to must be at most ${MAX_RANGE_DAYS} days apart`];
  return [];
}
