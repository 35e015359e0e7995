import { z } from 'zod';
import { derivedOrderId } from '../../../agents/order-ids.js';
import { EVM_CHAIN_IDS, type Chain } from '../../ports/venue.port.js';
import { digestWhole } from '../request-digest.js';
import type { OperationContext } from '../operation.types.js';

/** Shared zod pieces of the trading operations: amounts, tokens, chains, the order shape. */

// `abort`: zod runs every check even after one failed; only a well-formed amount is compared.
export const baseUnits = z
  .string()
  .regex(/^\d{1,78}$/, { error: 'must be an integer amount in base units, as a decimal string', abort: true })
  .refine((value) => BigInt(value) > 0n, 'must be greater than 0');
export const wholeTokens = z.string().regex(/^\d{1,30}(\.\d{1,18})?$/, { error: 'must be a decimal amount of whole tokens, e.g. "1.5"', abort: true });
export const slippageBps = z.number().int().min(1).max(5000);
export const tokenRef = z.string().trim().min(1).max(100);
export const chain = z.enum(['solana', 'ethereum', 'base', 'arbitrum']);
/** What prompted a trade (a strategy, a signal feed), checked against the risk policy's `allowedSignalSources`. */
export const signalSource = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,64}$/, 'must be 1-64 letters, digits or . _ : -')
  .optional();

export const idempotencyKey = z
  .string()
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i, 'must be a UUID v4')
  .optional();
export const evmChainId = z
  .number()
  .int()
  .refine((id) => Object.values(EVM_CHAIN_IDS).includes(id), `must be one of ${Object.values(EVM_CHAIN_IDS).join(', ')}`);

export function chainOfId(chainId: number): Chain {
  const entry = Object.entries(EVM_CHAIN_IDS).find(([, id]) => id === chainId);
  return entry![0] as Chain;
}

const usd = z.string().regex(/^-?\d+\.\d{2}$/);

export const orderOutput = z.object({
  order_id: z.string(),
  agentId: z.string().optional(),
  botId: z.string().optional(),
  userId: z.string().optional(),
  chain: z.string(),
  side: z.enum(['buy', 'sell', 'swap']),
  inputMint: z.string(),
  outputMint: z.string(),
  inputSymbol: z.string(),
  outputSymbol: z.string(),
  inputDecimals: z.number().int(),
  outputDecimals: z.number().int(),
  amountIn: z.string(),
  expectedOut: z.string(),
  minOut: z.string(),
  slippageBps: z.number(),
  priceImpactBps: z.number(),
  valueUsd: usd,
  status: z.enum(['pending_approval', 'approved', 'submitting', 'submitted', 'filled', 'failed', 'rejected', 'cancelled', 'expired']),
  venue: z.string(),
  walletId: z.string(),
  channel: z.string(),
  checks: z.array(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
  approvalExpiresAt: z.string().optional(),
  txSignature: z.string().optional(),
  filledOut: z.string().optional(),
  reason: z.string().optional(),
  strategy: z.string().optional(),
});

export const orderPage = z.object({ items: z.array(orderOutput), nextCursor: z.string().optional() });

export const ORDER_DESCRIPTION =
  'Answers with the order: `order_id`, `status` (`filled` when it executed, `pending_approval` when the order profile ' +
  'asks for approval, then approve it with `trading_orders_approve`), amounts in base units (`amountIn`, `expectedOut`, ' +
  '`minOut`, `filledOut`), the venue, and the safety checks it passed.';

/**
 * The order of a guarded call: its id derived from the account and the idempotency key, so a
 * retry (even after a crash) finds the first call's order instead of placing another; and
 * the digest of what was asked (`kind` and `args`, every field: they hold no secret), so that
 * the key reused for another request is refused even after its idempotency record expired.
 */
export function keyedOrder(ctx: OperationContext, kind: string, args: unknown): { orderId?: string; requestDigest?: string } {
  if (!ctx.idempotencyKey) return {};
  return { orderId: derivedOrderId(`${ctx.subject.type}:${ctx.subject.id}|${ctx.idempotencyKey}`), requestDigest: `${kind}:${digestWhole(args)}` };
}
