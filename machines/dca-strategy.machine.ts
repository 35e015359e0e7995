import { assign, emit, setup } from 'xstate';
import type { MachineDefinition } from './machine-definition.types.js';

/**
 * One DCA strategy: `active` ⇄ `paused` → `deleted`, and `completed` when a
 * limit (buys, spend, end time) is reached. Ticks are executed outside (an ordinary
 * order through the safety path); the machine keeps the counters and decides, from the
 * outcome, whether to go on, pause itself after too many failures in a row, or finish.
 * A strategy whose buys the order profile's approval rule would hold starts in
 * `pending_approval`, and an active one nobody approved goes there when a tick
 * finds the rule holding its buy; `dca.approve` makes it active and approved.
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
  /**
   * Due times (epoch ms) of the latest ticks handled, oldest first: a tick found here was
   * delivered again. A list, not a high-water mark, because ticks of one strategy can
   * finish out of order (tick d+1 before tick d) and both must count.
   */
  recentDueAts: number[];
  /** A catch-up or skip after downtime covers every tick due up to here. */
  coveredUntil: number;
  /**
   * Orders of handled ticks that were broadcast but not confirmed when their tick ended
   * (live venues): counted, as a buy or a failure, when reconciliation settles them.
   */
  inFlight: string[];
  lastOrderId?: string;
  lastError?: string;
  /** Why the strategy waits (or last waited) for approval: set when it enters `pending_approval`. */
  holdReason?: string;
  /** When an approver approved it (epoch ms), and the scope they approved with: its buys are then not held. */
  approvedAt?: number;
  approvedBy?: string;
  /**
   * Only on strategies stored before machine version 5: a build from before the derived order
   * ids may have placed a tick of theirs under the former name (`ord_<strategyId>_<dueAt>`), so
   * a tick due up to this time (epoch ms) looks that name up first. See `formerNamesAfter`.
   */
  formerOrderNamesUntil?: number;
  createdAt: number;
  updatedAt: number;
}

/** `holdReason` at creation: the approval rule holds its buys, so it starts in `pending_approval`. */
export type DcaStrategyInput = Omit<
  DcaStrategyContext,
  | 'buys'
  | 'spentBase'
  | 'acquiredBase'
  | 'spentUsd'
  | 'failuresInRow'
  | 'failures'
  | 'skipped'
  | 'recentDueAts'
  | 'coveredUntil'
  | 'inFlight'
  | 'updatedAt'
  | 'approvedAt'
  | 'approvedBy'
  | 'formerOrderNamesUntil'
>;

/** What one filled buy moved. */
type Buy = { orderId: string; spentBase: string; acquiredBase: string; spentUsd: number };

/** Fields every tick outcome carries: which tick, and how far a catch-up after downtime reaches. */
type TickOutcome = {
  at: number;
  dueAt: number;
  /** Set when the tick was late (missed while no process ran): it stands for every tick due until then. */
  coversUntil?: number;
};

export type DcaStrategyEvent =
  | { type: 'dca.pause'; at: number }
  | { type: 'dca.resume'; at: number }
  | { type: 'dca.delete'; at: number }
  /** A limit is reached with no buy to complete it (the end passed, the next buy would pass `maxSpend`): finish now. */
  | { type: 'dca.finish'; at: number }
  /** A tick's order filled: `spentBase`/`acquiredBase` of this buy. */
  | (TickOutcome & Buy & { type: 'dca.executed' })
  /** A tick's order was refused or failed. */
  | (TickOutcome & { type: 'dca.failed'; reason: string; orderId?: string })
  /** A tick's order was broadcast but not yet confirmed: the tick is handled, its outcome comes later. */
  | (TickOutcome & { type: 'dca.submitted'; orderId: string })
  /** An order of `inFlight` reached its outcome. */
  | ({ type: 'dca.settled'; at: number } & ((Buy & { filled: true }) | { filled: false; orderId: string; reason: string }))
  /** A tick that did not run: late with `catchUp` off, or the agent paused or its trading off. */
  | (TickOutcome & { type: 'dca.skipped'; reason: string })
  /** A tick whose buy the approval rule holds (the strategy was never approved): it waits for approval; the tick counts as skipped. */
  | (TickOutcome & { type: 'dca.hold'; reason: string })
  /** An approver (session or `manage` key, or a `trade` key where `agentsMayApprove`) approved it. */
  | { type: 'dca.approve'; at: number; by: string };

/** How many handled due times a strategy remembers (a redelivery comes within BullMQ's stall window, about a minute). */
export const RECENT_TICKS = 128;

/** True when the tick due at `dueAt` was already handled (or covered by a catch-up). */
export function tickHandled(context: Pick<DcaStrategyContext, 'recentDueAts' | 'coveredUntil'>, dueAt: number): boolean {
  if (dueAt <= context.coveredUntil || context.recentDueAts.includes(dueAt)) return true;
  // Older than everything remembered in a full list: handled long ago.
  return context.recentDueAts.length >= RECENT_TICKS && dueAt < context.recentDueAts[0]!;
}

/** Remembers a handled tick, keeping the list sorted and bounded. */
function remember(
  context: DcaStrategyContext,
  event: TickOutcome,
): Pick<DcaStrategyContext, 'recentDueAts' | 'coveredUntil' | 'formerOrderNamesUntil'> {
  const recentDueAts = [...context.recentDueAts, event.dueAt].sort((a, b) => a - b).slice(-RECENT_TICKS);
  const coveredUntil = Math.max(context.coveredUntil, event.coversUntil ?? 0);
  // Strategies created since version 5 never carry the field: nothing to write for them.
  if (context.formerOrderNamesUntil === undefined) return { recentDueAts, coveredUntil };
  return { recentDueAts, coveredUntil, formerOrderNamesUntil: formerNamesAfter(context.formerOrderNamesUntil, event) };
}

/** True when a tick due at `dueAt` may have been placed under the former order name (`formerOrderNamesUntil`). */
export function formerOrderNameMayExist(context: Pick<DcaStrategyContext, 'formerOrderNamesUntil'>, dueAt: number): boolean {
  return context.formerOrderNamesUntil !== undefined && dueAt <= context.formerOrderNamesUntil;
}

/** Unknown until a version-5 build counts a tick of a strategy stored before it (the migration's value). */
const FORMER_NAMES_UNBOUNDED = Number.MAX_SAFE_INTEGER;
/** Beyond any clock skew between processes: a former build's tick started before the first version-5 write is due before this. */
const FORMER_NAMES_MARGIN_MS = 60 * 60_000;

/**
 * The first tick this build counts writes the strategy as version 5, which the builds naming
 * orders the former way refuse to read: no tick of theirs starts after it, so only ticks due
 * up to then (plus the margin) may have such an order. With BullMQ a run can be redelivered
 * after a later one was counted, hence a time rather than "the next tick". Once a tick due
 * after it is counted the field goes: nothing is left to look for.
 */
function formerNamesAfter(until: number, event: TickOutcome): number | undefined {
  if (until === FORMER_NAMES_UNBOUNDED) return event.at + FORMER_NAMES_MARGIN_MS;
  return event.dueAt > until ? undefined : until;
}

type Emitted =
  | { type: 'dca.executed'; strategy: string; orderId: string; amount: string; price: string; buys: number }
  | { type: 'dca.failed'; strategy: string; reason: string; failuresInRow: number; paused: boolean };

type Args = { context: DcaStrategyContext; event: DcaStrategyEvent };

const newTick = ({ context, event }: Args) => 'dueAt' in event && !tickHandled(context, event.dueAt);
const settledInFlight =
  (filled: boolean) =>
  ({ context, event }: Args) =>
    event.type === 'dca.settled' && event.filled === filled && context.inFlight.includes(event.orderId);

/** The buy an event reports: a tick's fill, or the fill of an order that was in flight. */
function buyOf(event: DcaStrategyEvent): Buy | undefined {
  if (event.type === 'dca.executed' || (event.type === 'dca.settled' && event.filled)) return event;
  return undefined;
}

/** A failure an event reports: a tick's, or that of an order that was in flight. */
function failureOf(event: DcaStrategyEvent): { reason: string; orderId?: string } | undefined {
  if (event.type === 'dca.failed' || (event.type === 'dca.settled' && !event.filled)) return event;
  return undefined;
}

/** The tick bookkeeping of an outcome: a tick is remembered; a settled order leaves `inFlight`. */
function handled(context: DcaStrategyContext, event: DcaStrategyEvent): Partial<DcaStrategyContext> {
  if (event.type === 'dca.settled') return { inFlight: context.inFlight.filter((id) => id !== event.orderId) };
  return 'dueAt' in event ? remember(context, event) : {};
}

/** Whole-token price of one output token in input tokens, as a decimal string with 8 places. */
function priceOf(spentBase: string, acquiredBase: string, inputDecimals: number, outputDecimals: number): string {
  const acquired = BigInt(acquiredBase);
  if (acquired === 0n) return '0';
  const scaled = (BigInt(spentBase) * 10n ** BigInt(outputDecimals) * 100_000_000n) / (acquired * 10n ** BigInt(inputDecimals));
  const digits = scaled.toString().padStart(9, '0');
  return `${digits.slice(0, -8)}.${digits.slice(-8)}`;
}

/**
 * Transitions of the states that buy nothing (waiting for approval, paused): their end still
 * completes them, and an order that was already in flight still counts, without a new buy.
 */
const countsWithoutBuying = {
  'dca.finish': { guard: 'limitReachedAt', target: 'completed', actions: 'touch' },
  'dca.executed': { guard: 'newTick', actions: 'countBuy' },
  'dca.failed': { guard: 'newTick', actions: 'countFailure' },
  'dca.submitted': { guard: 'newTick', actions: 'countSubmitted' },
  'dca.settled': [
    { guard: 'settledFilled', actions: 'countBuy' },
    { guard: 'settledFailed', actions: 'countFailure' },
  ],
} as const;

export const dcaStrategyMachine = setup({
  types: {
    context: {} as DcaStrategyContext,
    input: {} as DcaStrategyInput,
    events: {} as DcaStrategyEvent,
    emitted: {} as Emitted,
  },
  guards: {
    newTick,
    settledFilled: settledInFlight(true),
    settledFailed: settledInFlight(false),
    limitReached: ({ context }) => limitReached(context, context.updatedAt),
    limitReachedAt: ({ context, event }) => limitReached(context, event.at),
    tooManyFailures: ({ context }) => context.failuresInRow >= context.maxFailuresInRow,
    heldAtCreation: ({ context }) => context.holdReason !== undefined,
    // An approved strategy's buys are approved: only one nobody approved is held by a tick.
    unapprovedTick: (args) => newTick(args) && args.context.approvedAt === undefined,
  },
  actions: {
    touch: assign({ updatedAt: ({ event }) => event.at }),
    countBuy: assign(({ context, event }) => {
      const buy = buyOf(event);
      if (!buy) return {};
      return {
        buys: context.buys + 1,
        spentBase: (BigInt(context.spentBase) + BigInt(buy.spentBase)).toString(),
        acquiredBase: (BigInt(context.acquiredBase) + BigInt(buy.acquiredBase)).toString(),
        spentUsd: context.spentUsd + buy.spentUsd,
        failuresInRow: 0,
        ...handled(context, event),
        lastOrderId: buy.orderId,
        updatedAt: event.at,
      };
    }),
    countFailure: assign(({ context, event }) => {
      const failure = failureOf(event);
      if (!failure) return {};
      return {
        failures: context.failures + 1,
        failuresInRow: context.failuresInRow + 1,
        ...handled(context, event),
        lastError: failure.reason,
        ...(failure.orderId ? { lastOrderId: failure.orderId } : {}),
        updatedAt: event.at,
      };
    }),
    // Neither a buy nor a failure yet: the failures in a row stand until the order settles.
    countSubmitted: assign(({ context, event }) =>
      event.type === 'dca.submitted'
        ? {
            ...remember(context, event),
            inFlight: [...context.inFlight, event.orderId].slice(-RECENT_TICKS),
            lastOrderId: event.orderId,
            updatedAt: event.at,
          }
        : {},
    ),
    countSkip: assign(({ context, event }) =>
      event.type === 'dca.skipped' || event.type === 'dca.hold'
        ? { skipped: context.skipped + 1, ...remember(context, event), updatedAt: event.at }
        : {},
    ),
    hold: assign(({ event }) => (event.type === 'dca.hold' ? { holdReason: event.reason } : {})),
    approve: assign(({ event }) =>
      event.type === 'dca.approve' ? { approvedAt: event.at, approvedBy: event.by, failuresInRow: 0, updatedAt: event.at } : {},
    ),
    announceBuy: emit(({ context, event }) => {
      const buy = buyOf(event);
      return {
        type: 'dca.executed' as const,
        strategy: context.name,
        orderId: buy?.orderId ?? '',
        amount: buy?.spentBase ?? '0',
        price: buy ? priceOf(buy.spentBase, buy.acquiredBase, context.inputDecimals, context.outputDecimals) : '0',
        buys: context.buys,
      };
    }),
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
    recentDueAts: [],
    coveredUntil: 0,
    inFlight: [],
    updatedAt: input.createdAt,
  }),
  // Transient: a strategy the approval rule holds is created waiting for approval.
  initial: 'created',
  on: { 'dca.delete': { target: '.deleted', actions: 'touch' } },
  states: {
    created: { always: [{ guard: 'heldAtCreation', target: 'pending_approval' }, { target: 'active' }] },
    // No schedule: nothing buys until an approver approves it. Not pausable (a resume would
    // make it active unapproved); deleting it or reaching its end finishes it.
    pending_approval: {
      on: {
        'dca.approve': { target: 'active', actions: 'approve' },
        // An order already in flight when a tick held the strategy still counts.
        ...countsWithoutBuying,
      },
    },
    active: {
      on: {
        'dca.pause': { target: 'paused', actions: 'touch' },
        'dca.hold': { guard: 'unapprovedTick', target: 'pending_approval', actions: ['countSkip', 'hold'] },
        'dca.finish': { guard: 'limitReachedAt', target: 'completed', actions: 'touch' },
        'dca.executed': { guard: 'newTick', target: 'checking', actions: ['countBuy', 'announceBuy'] },
        'dca.failed': { guard: 'newTick', target: 'checkingFailures', actions: ['countFailure', 'announceFailure'] },
        'dca.skipped': { guard: 'newTick', actions: 'countSkip' },
        'dca.submitted': { guard: 'newTick', actions: 'countSubmitted' },
        'dca.settled': [
          { guard: 'settledFilled', target: 'checking', actions: ['countBuy', 'announceBuy'] },
          { guard: 'settledFailed', target: 'checkingFailures', actions: ['countFailure', 'announceFailure'] },
        ],
      },
    },
    // Transient: decide where a counted outcome leaves the strategy.
    checking: { always: [{ guard: 'limitReached', target: 'completed' }, { target: 'active' }] },
    checkingFailures: { always: [{ guard: 'tooManyFailures', target: 'paused' }, { target: 'active' }] },
    paused: {
      on: {
        'dca.resume': { target: 'active', actions: [assign({ failuresInRow: 0 }), 'touch'] },
        // An order already in flight when the strategy paused still counts.
        ...countsWithoutBuying,
      },
    },
    // Not final: a finished strategy keeps its counters and can still be deleted; a buy that
    // was already in flight when it finished still counts.
    completed: {
      on: {
        'dca.executed': { guard: 'newTick', actions: 'countBuy' },
        'dca.settled': [
          { guard: 'settledFilled', actions: 'countBuy' },
          { guard: 'settledFailed', actions: 'countFailure' },
        ],
      },
    },
    deleted: { type: 'final' },
  },
});

/**
 * No further buy may start: `maxBuys` done, the next buy would pass `maxSpend`, or `endAt`
 * passed. Checked after every buy (to complete), and by every tick and the end job, which
 * complete a strategy that reached one without a buy (`dca.finish`).
 */
export function limitReached(context: DcaStrategyContext, now: number): boolean {
  if (context.maxBuys !== undefined && context.buys >= context.maxBuys) return true;
  if (context.maxSpend !== undefined) {
    const next = BigInt(context.spentBase) + amountBase(context.amount, context.inputDecimals);
    if (next > amountBase(context.maxSpend, context.inputDecimals)) return true;
  }
  return context.endAt !== undefined && now >= context.endAt;
}

function amountBase(amount: string, decimals: number): bigint {
  const [whole = '0', fraction = ''] = amount.split('.');
  return BigInt(whole + fraction.slice(0, decimals).padEnd(decimals, '0'));
}

export const dcaStrategyDefinition: MachineDefinition<DcaStrategyContext, DcaStrategyEvent, DcaStrategyInput> = {
  type: 'dca-strategy',
  version: 5,
  machine: dcaStrategyMachine,
  migrations: {
    // v1 kept one high-water mark (`lastDueAt`): it becomes the catch-up watermark.
    1: (persisted) => {
      const { lastDueAt, ...context } = persisted.context as Record<string, unknown> & { lastDueAt?: number };
      return { ...persisted, context: { ...context, recentDueAts: [], coveredUntil: lastDueAt ?? 0 } };
    },
    // v2 counted a tick whose order was still unconfirmed as a failure; v3 waits for its outcome.
    2: (persisted) => ({ ...persisted, context: { ...(persisted.context as object), inFlight: [] } }),
    // v4 adds `pending_approval` and optional approval fields; a v3 strategy reads as never
    // approved, so its ticks meet the approval rule. Bumped so that a v3 build refuses a
    // `pending_approval` snapshot instead of mis-reading it.
    3: (persisted) => persisted,
    // v5 looks a tick's order up under the former name only for strategies stored before it
    // (`formerOrderNamesUntil`): any of their ticks may still be in flight under that name.
    4: (persisted) => ({ ...persisted, context: { ...(persisted.context as object), formerOrderNamesUntil: FORMER_NAMES_UNBOUNDED } }),
  },
  indexNames: ['subject'],
  indexes: (context) => ({ subject: `${context.subjectType}:${context.subjectId}` }),
  stream: (context) => `${context.subjectType}:${context.subjectId}`,
};
