import { assign, emit, setup } from 'xstate';
import type { MachineDefinition } from './machine-definition.types.js';

/**
 * One DCA strategy (issue 6): `active` ⇄ `paused` → `deleted`, and `completed` when a
 * limit (buys, spend, end time) is reached. Ticks are executed outside (an ordinary
 * order through the safety path); the machine keeps the counters and decides, from the
 * outcome, whether to go on, pause itself after too many failures in a row, or finish.
 */

export interface DcaInterval {
  /** As the user wrote it: a cron expression or `every <n> <minutes|hours|days>`. */
  text: string;
  everyMs?: number;
  cron?: string;
}

export interface DcaStrategyContext {
  strategyId: string;
  name: string;
  subjectType: 'agent' | 'bot';
  subjectId: string;
  userId?: string;
  chain: string;
  inputToken: string;
  outputToken: string;
  inputSymbol: string;
  outputSymbol: string;
  inputDecimals: number;
  outputDecimals: number;
  /** Whole tokens of the input token per buy (decimal string). */
  amount: string;
  interval: DcaInterval;
  maxBuys?: number;
  /** Whole tokens of the input token. */
  maxSpend?: string;
  slippageBps?: number;
  /** Epoch ms. */
  startAt?: number;
  endAt?: number;
  /** A tick missed while no process ran: run it once after restart (true) or skip it. */
  catchUp: boolean;
  /** Failures in a row after which the strategy pauses itself. */
  maxFailuresInRow: number;
  // Counters.
  buys: number;
  /** Base units of the input token spent, of the output token acquired. */
  spentBase: string;
  acquiredBase: string;
  /** USD paid in total (for the average price). */
  spentUsd: number;
  failuresInRow: number;
  failures: number;
  skipped: number;
  /** Due time (epoch ms) of the last tick handled; a tick due at or before it is a duplicate. */
  lastDueAt: number;
  lastOrderId?: string;
  lastError?: string;
  createdAt: number;
  updatedAt: number;
}

export type DcaStrategyInput = Omit<
  DcaStrategyContext,
  'buys' | 'spentBase' | 'acquiredBase' | 'spentUsd' | 'failuresInRow' | 'failures' | 'skipped' | 'lastDueAt' | 'updatedAt'
>;

export type DcaStrategyEvent =
  | { type: 'dca.pause'; at: number }
  | { type: 'dca.resume'; at: number }
  | { type: 'dca.delete'; at: number }
  /** A tick's order filled: `spentBase`/`acquiredBase` of this buy. */
  | { type: 'dca.executed'; at: number; dueAt: number; orderId: string; spentBase: string; acquiredBase: string; spentUsd: number }
  /** A tick's order was refused or failed. */
  | { type: 'dca.failed'; at: number; dueAt: number; reason: string; orderId?: string }
  /** A tick that did not run: late with `catchUp` off, or already covered by a catch-up run. */
  | { type: 'dca.skipped'; at: number; dueAt: number; reason: string };

type Emitted =
  | { type: 'dca.executed'; strategy: string; orderId: string; amount: string; price: string; buys: number }
  | { type: 'dca.failed'; strategy: string; reason: string; failuresInRow: number; paused: boolean };

const newTick = ({ context, event }: { context: DcaStrategyContext; event: DcaStrategyEvent }) =>
  'dueAt' in event && event.dueAt > context.lastDueAt;

/** Whole-token price of one output token in input tokens, as a decimal string with 8 places. */
function priceOf(spentBase: string, acquiredBase: string, inputDecimals: number, outputDecimals: number): string {
  const acquired = BigInt(acquiredBase);
  if (acquired === 0n) return '0';
  const scaled = (BigInt(spentBase) * 10n ** BigInt(outputDecimals) * 100_000_000n) / (acquired * 10n ** BigInt(inputDecimals));
  const digits = scaled.toString().padStart(9, '0');
  return `${digits.slice(0, -8)}.${digits.slice(-8)}`;
}

export const dcaStrategyMachine = setup({
  types: {
    context: {} as DcaStrategyContext,
    input: {} as DcaStrategyInput,
    events: {} as DcaStrategyEvent,
    emitted: {} as Emitted,
  },
  guards: {
    newTick,
    limitReached: ({ context }) => {
      if (context.maxBuys !== undefined && context.buys >= context.maxBuys) return true;
      if (context.maxSpend !== undefined && BigInt(context.spentBase) >= amountBase(context.maxSpend, context.inputDecimals)) return true;
      return context.endAt !== undefined && context.updatedAt >= context.endAt;
    },
    tooManyFailures: ({ context }) => context.failuresInRow >= context.maxFailuresInRow,
  },
  actions: {
    touch: assign({ updatedAt: ({ event }) => event.at }),
    countBuy: assign(({ context, event }) => {
      if (event.type !== 'dca.executed') return {};
      return {
        buys: context.buys + 1,
        spentBase: (BigInt(context.spentBase) + BigInt(event.spentBase)).toString(),
        acquiredBase: (BigInt(context.acquiredBase) + BigInt(event.acquiredBase)).toString(),
        spentUsd: context.spentUsd + event.spentUsd,
        failuresInRow: 0,
        lastDueAt: event.dueAt,
        lastOrderId: event.orderId,
        updatedAt: event.at,
      };
    }),
    countFailure: assign(({ context, event }) => {
      if (event.type !== 'dca.failed') return {};
      return {
        failures: context.failures + 1,
        failuresInRow: context.failuresInRow + 1,
        lastDueAt: event.dueAt,
        lastError: event.reason,
        ...(event.orderId ? { lastOrderId: event.orderId } : {}),
        updatedAt: event.at,
      };
    }),
    countSkip: assign(({ context, event }) => (event.type === 'dca.skipped' ? { skipped: context.skipped + 1, lastDueAt: event.dueAt, updatedAt: event.at } : {})),
    announceBuy: emit(({ context, event }) => ({
      type: 'dca.executed' as const,
      strategy: context.name,
      orderId: event.type === 'dca.executed' ? event.orderId : '',
      amount: event.type === 'dca.executed' ? event.spentBase : '0',
      price: event.type === 'dca.executed' ? priceOf(event.spentBase, event.acquiredBase, context.inputDecimals, context.outputDecimals) : '0',
      buys: context.buys,
    })),
    announceFailure: emit(({ context }) => ({
      type: 'dca.failed' as const,
      strategy: context.name,
      reason: context.lastError ?? 'failed',
      failuresInRow: context.failuresInRow,
      paused: context.failuresInRow >= context.maxFailuresInRow,
    })),
  },
}).createMachine({
  id: 'dca-strategy',
  context: ({ input }) => ({
    ...input,
    buys: 0,
    spentBase: '0',
    acquiredBase: '0',
    spentUsd: 0,
    failuresInRow: 0,
    failures: 0,
    skipped: 0,
    lastDueAt: 0,
    updatedAt: input.createdAt,
  }),
  initial: 'active',
  on: { 'dca.delete': { target: '.deleted', actions: 'touch' } },
  states: {
    active: {
      on: {
        'dca.pause': { target: 'paused', actions: 'touch' },
        'dca.executed': { guard: 'newTick', target: 'checking', actions: ['countBuy', 'announceBuy'] },
        'dca.failed': { guard: 'newTick', target: 'checkingFailures', actions: ['countFailure', 'announceFailure'] },
        'dca.skipped': { guard: 'newTick', actions: 'countSkip' },
      },
    },
    // Transient: decide where a counted outcome leaves the strategy.
    checking: { always: [{ guard: 'limitReached', target: 'completed' }, { target: 'active' }] },
    checkingFailures: { always: [{ guard: 'tooManyFailures', target: 'paused' }, { target: 'active' }] },
    paused: {
      on: {
        'dca.resume': { target: 'active', actions: [assign({ failuresInRow: 0 }), 'touch'] },
        // An order already in flight when the strategy paused still counts.
        'dca.executed': { guard: 'newTick', actions: 'countBuy' },
        'dca.failed': { guard: 'newTick', actions: 'countFailure' },
      },
    },
    // Not final: a finished strategy keeps its counters and can still be deleted.
    completed: {},
    deleted: { type: 'final' },
  },
});

function amountBase(amount: string, decimals: number): bigint {
  const [whole = '0', fraction = ''] = amount.split('.');
  return BigInt(whole + fraction.slice(0, decimals).padEnd(decimals, '0'));
}

export const dcaStrategyDefinition: MachineDefinition<DcaStrategyContext> = {
  type: 'dca-strategy',
  version: 1,
  machine: dcaStrategyMachine,
  indexNames: ['subject'],
  indexes: (context) => ({ subject: `${context.subjectType}:${context.subjectId}` }),
  stream: (context) => `${context.subjectType}:${context.subjectId}`,
};
