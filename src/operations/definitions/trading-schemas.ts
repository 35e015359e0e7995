import { z } from 'zod';
import { derivedOrderId } from '../../../agents/order-ids.js';
import { EVM_CHAIN_IDS, type Chain } from '../../ports/venue.port.js';
import { digestWhole } from '../request-digest.js';
import type { OperationContext } from '../operation.types.js';

/** Shared zod pieces of the trading operations: amounts, tokens, chains, the order shape. */

/**
 * An amount as a decimal string, or as a JSON number when JSON carries it exactly (a safe
 * integer: models and tool inspectors send `12`, not `"12"`); always a string once parsed.
 * A larger or fractional number is refused with the advice to send a string, since
 * `JSON.parse` has already rounded it.
 */
function amountOf(pattern: RegExp, shape: string) {
  // One message per input kind; zod hands the union's error map the issues of both branches.
  const message = (input: unknown): string | undefined => {
    if (input === undefined) return undefined; // `<field> is required`
    if (typeof input !== 'number') return shape;
    if (input < 0) return 'must not be negative';
    return `must be sent as a string: JSON numbers are taken only as integers from 0 to ${Number.MAX_SAFE_INTEGER} (larger ones lose digits)`;
  };
  // `abort`: only a well-formed value reaches the next check (zod runs every check otherwise).
  return z
    .union([z.string().regex(pattern, { abort: true }), z.number().int({ abort: true }).min(0, { abort: true }).max(Number.MAX_SAFE_INTEGER)], {
      error: (issue) => message(issue.input),
    })
    .transform(String);
}

export const baseUnits = amountOf(/^\d{1,78}$/, 'must be an integer amount in base units, as a decimal string').refine(
  (value) => BigInt(value) > 0n,
  'must be greater than 0',
);
export const wholeTokens = amountOf(/^\d{1,30}(\.\d{1,18})?$/, 'must be a decimal amount of whole tokens, e.g. "1.5"');
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
