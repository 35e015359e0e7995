import { chosenAgentId } from './agent-id.js';
import { formatUsd } from '../kernel/vocabulary/amounts.js';
import type { OrderContext, OrderStatus } from './order-context.types.js';

/**
 * The order as every surface shows it (orders): `order_id`, amounts as
 * decimal strings in base units, ISO times. Symbols, decimals, USD value and the
 * checks it passed are extras for people and audits.
 */
export interface OrderView {
  order_id: string;
  agentId?: string;
  botId?: string;
  userId?: string;
  chain: string;
  side: OrderContext['side'];
  inputMint: string;
  outputMint: string;
  inputSymbol: string;
  outputSymbol: string;
  /** Decimals of the two tokens: base units → whole tokens. */
  inputDecimals: number;
  outputDecimals: number;
  amountIn: string;
  expectedOut: string;
  minOut: string;
  slippageBps: number;
  priceImpactBps: number;
  valueUsd: string;
  status: OrderStatus;
  venue: string;
  walletId: string;
  channel: string;
  checks: string[];
  createdAt: string;
  updatedAt: string;
  approvalExpiresAt?: string;
  txSignature?: string;
  filledOut?: string;
  reason?: string;
  strategy?: string;
}

export function toOrderView(context: OrderContext): OrderView {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    order_id: context.orderId,
    // The agent as its owner knows it, not its actor id `<ownerId>~<agentId>`.
    ...(context.subjectType === 'agent' ? { agentId: chosenAgentId(context.subjectId) } : { botId: context.subjectId }),
    ...(context.userId ? { userId: context.userId } : {}),
    chain: context.chain,
    side: context.side,
    inputMint: context.inputMint,
    outputMint: context.outputMint,
    inputSymbol: context.inputSymbol,
    outputSymbol: context.outputSymbol,
    inputDecimals: context.inputDecimals,
    outputDecimals: context.outputDecimals,
    amountIn: context.amountIn,
    expectedOut: context.expectedOut,
    minOut: context.minOut,
    slippageBps: context.slippageBps,
    priceImpactBps: context.priceImpactBps,
    valueUsd: formatUsd(context.valueUsd),
    status: context.status,
    venue: context.venue,
    walletId: context.walletId,
    channel: context.channel,
    checks: context.checks,
    createdAt: iso(context.createdAt),
    updatedAt: iso(context.updatedAt),
    ...(context.status === 'pending_approval' && context.approvalExpiresAt ? { approvalExpiresAt: iso(context.approvalExpiresAt) } : {}),
    ...(context.txSignature ? { txSignature: context.txSignature } : {}),
    ...(context.filledOut ? { filledOut: context.filledOut } : {}),
    ...(context.reason ? { reason: context.reason } : {}),
    ...(context.strategy ? { strategy: context.strategy } : {}),
  };
}
