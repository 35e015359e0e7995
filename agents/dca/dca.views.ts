import type { DcaStrategyContext } from '../../machines/dca-strategy.machine.js';

/** DCA strategies as surfaces show them, and their statistics. */

export interface StrategyView {
  name: string;
  strategyId: string;
  /** `pending_approval`: the approval rule holds its buys; nothing buys until an approver approves it. */
  status: 'pending_approval' | 'active' | 'paused' | 'completed' | 'deleted';
  chain: string;
  inputToken: string;
  outputToken: string;
  inputSymbol: string;
  outputSymbol: string;
  amount: string;
  interval: string;
  maxBuys?: number;
  maxSpend?: string;
  slippageBps?: number;
  startAt?: string;
  endAt?: string;
  catchUp: boolean;
  buys: number;
  failures: number;
  failuresInRow: number;
  /** Ticks that did not try a buy: the agent paused or its trading off, missed with `catchUp` off, held for approval. */
  skipped: number;
  /** While `pending_approval`: why the approval rule holds its buys. */
  holdReason?: string;
  approvedAt?: string;
  lastError?: string;
  lastOrderId?: string;
  createdAt: string;
  updatedAt: string;
}

export interface DcaStrategyStats {
  name: string;
  status: StrategyView['status'];
  buys: number;
  failures: number;
  /** Ticks that did not try a buy (agent paused or trading off, missed with `catchUp` off, held for approval). */
  skipped: number;
  /** Whole tokens. */
  spent: string;
  acquired: string;
  inputSymbol: string;
  outputSymbol: string;
  /** Input tokens paid per output token, on average. */
  averagePrice: string | null;
  averagePriceUsd: string | null;
  currentPriceUsd: string | null;
  spentUsd: string;
  valueUsd: string | null;
  pnlUsd: string | null;
  nextRun: string | null;
}

export interface DcaStats {
  strategies: DcaStrategyStats[];
  totals: { strategies: number; buys: number; skipped: number; spentUsd: string; valueUsd: string; pnlUsd: string };
  asOf: string;
}

export function toView(context: DcaStrategyContext, status: StrategyView['status']): StrategyView {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    name: context.name,
    strategyId: context.strategyId,
    status,
    chain: context.chain,
    inputToken: context.inputToken,
    outputToken: context.outputToken,
    inputSymbol: context.inputSymbol,
    outputSymbol: context.outputSymbol,
    amount: context.amount,
    interval: context.interval.text,
    ...(context.maxBuys !== undefined ? { maxBuys: context.maxBuys } : {}),
    ...(context.maxSpend !== undefined ? { maxSpend: context.maxSpend } : {}),
    ...(context.slippageBps !== undefined ? { slippageBps: context.slippageBps } : {}),
    ...(context.startAt !== undefined ? { startAt: iso(context.startAt) } : {}),
    ...(context.endAt !== undefined ? { endAt: iso(context.endAt) } : {}),
    catchUp: context.catchUp,
    buys: context.buys,
    failures: context.failures,
    failuresInRow: context.failuresInRow,
    skipped: context.skipped,
    ...(status === 'pending_approval' && context.holdReason ? { holdReason: context.holdReason } : {}),
    ...(context.approvedAt !== undefined ? { approvedAt: iso(context.approvedAt) } : {}),
    ...(context.lastError ? { lastError: context.lastError } : {}),
    ...(context.lastOrderId ? { lastOrderId: context.lastOrderId } : {}),
    createdAt: iso(context.createdAt),
    updatedAt: iso(context.updatedAt),
  };
}
