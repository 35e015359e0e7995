import { z } from 'zod';
import { CHAIN_WORDS, CHAINS } from '../../../kernel/vocabulary/chains.js';
import { derivedOrderId } from '../../../kernel/vocabulary/ids.js';
import { EVM_CHAIN_IDS, type Chain } from '../../../kernel/ports/venue.port.js';
import { keyedRequestDigest } from '../request-digest.js';
import type { OperationContext } from '../operation.types.js';

/** Shared zod pieces of the trading operations: amounts, tokens, chains, the order shape. */

/**
 * An amount as a decimal string, or as a JSON number when JSON carries it exactly (a safe
 * integer: models and tool inspectors send `12`, not `"12"`); always a string once parsed.
 * A larger or fractional number is refused with the advice to send a string, since
 * `JSON.parse` has already rounded it.
 */
export function amountOf(pattern: RegExp, shape: string) {
  // One message per input kind; zod hands the union's error map the issues of both branches.
  const message = (input: unknown): string | undefined => {
    if (input === undefined) return undefined; // `<field> is required`
    if (typeof input !== 'number') return shape;
    if (input < 0) return 'must not be negative';
    return `must be sent as a string: JSON numbers are taken only as integers from 0 to ${Number.MAX_SAFE_INTEGER} (larger ones lose digits)`;
  };
  // `abort`: only a well-formed value reaches the next check (zod runs every check otherwise).
  return z
    .union(
      [z.string().regex(pattern, { abort: true }), z.number().int({ abort: true }).min(0, { abort: true }).max(Number.MAX_SAFE_INTEGER)],
      {
        error: (issue) => message(issue.input),
      },
    )
    .transform(String);
}

/** How a JSON number is taken by an amount field; part of every amount's description. */
export const AMOUNT_AS_NUMBER = `a JSON integer up to ${Number.MAX_SAFE_INTEGER} is taken too; send larger amounts as a string`;
/** What `baseUnits` takes, for the descriptions of fields that name the token. */
export const BASE_UNITS =
  'in base units of the token (its smallest unit, no decimal point: lamports for SOL, 1 SOL = 1000000000; 1 USDC = 1000000; ' +
  `wei for ETH), greater than 0, as a decimal string such as "1500000"; ${AMOUNT_AS_NUMBER}`;
/** What `wholeTokens` takes, for the descriptions of fields that name the token. */
export const WHOLE_TOKENS =
  'in whole tokens, not base units ("1.5" is one and a half tokens), as a decimal string with at most 18 decimals; ' +
  `${AMOUNT_AS_NUMBER} (fractions always as a string)`;

export const baseUnits = amountOf(/^\d{1,78}$/, 'must be an integer amount in base units, as a decimal string')
  .refine((value) => BigInt(value) > 0n, 'must be greater than 0')
  .describe(`Amount ${BASE_UNITS}.`);
export const wholeTokens = amountOf(/^\d{1,30}(\.\d{1,18})?$/, 'must be a decimal amount of whole tokens, e.g. "1.5"').describe(
  `Amount ${WHOLE_TOKENS}.`,
);
export const slippageBps = z
  .number()
  .int()
  .min(1)
  .max(5000)
  .describe("Slippage tolerance in basis points (100 = 1 %), 1-5000; a trade above the risk policy's maxSlippageBps is refused.");
/** What the default slippage of a trade is, for the fields that take `slippageBps` optionally. */
export const SLIPPAGE_DEFAULT = "default: the account's, the tighter of the trade defaults' and the order profile's slippageBps";
/** A symbol or an address; fields say which token (the one sold or bought) and on which chain. */
export const tokenRef = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .describe('A token: its symbol (e.g. "USDC") or its address (Solana mint, or 0x EVM contract).');
export const chain = z.enum(CHAINS).describe(`Chain: ${CHAIN_WORDS}.`);
/** What prompted a trade (a strategy, a signal feed), checked against the risk policy's `allowedSignalSources`. */
export const signalSource = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,64}$/, 'must be 1-64 letters, digits or . _ : -')
  .optional()
  .describe(
    'What prompted this trade (a strategy or signal feed name; 1-64 letters, digits or . _ : -), kept on the order. When the ' +
      'risk policy lists allowedSignalSources, a trade whose source is not listed, or that names none, is refused.',
  );

/** The idempotency key of every guarded operation: one meaning wherever it is taken. */
const IDEMPOTENCY_KEY_MEANING =
  'UUID v4 naming this request, so that a retry cannot do it twice: within 24 hours the same key answers the first ' +
  "call's result (nothing is done again), the same key with other arguments is refused (422), and while the first call " +
  'still runs, 409. Use a fresh key for every new request and the same one for its retries.';
const uuidV4 = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i, 'must be a UUID v4');
export const idempotencyKey = uuidV4
  .optional()
  .describe(
    `${IDEMPOTENCY_KEY_MEANING} Optional over MCP, but without it a retry is a new request (REST takes it as the X-Idempotency-Key header).`,
  );
/** The key of an operation that moves funds (`effect: 'funds'`): required on every surface. */
export const requiredIdempotencyKey = uuidV4.describe(
  `${IDEMPOTENCY_KEY_MEANING} Required: this call moves funds or signs (REST takes it as the X-Idempotency-Key header).`,
);
export const evmChainId = z
  .number()
  .int()
  .refine((id) => Object.values(EVM_CHAIN_IDS).includes(id), `must be one of ${Object.values(EVM_CHAIN_IDS).join(', ')}`)
  .describe(
    `EVM chain id: ${Object.entries(EVM_CHAIN_IDS)
      .map(([name, id]) => `${id} (${name})`)
      .join(', ')}.`,
  );

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
 * the digest of what was asked (`keyedRequestDigest`).
 */
export function keyedOrder(ctx: OperationContext, kind: string, args: unknown): { orderId?: string; requestDigest?: string } {
  if (!ctx.idempotencyKey) return {};
  return {
    orderId: derivedOrderId(`${ctx.subject.type}:${ctx.subject.id}|${ctx.idempotencyKey}`),
    requestDigest: keyedRequestDigest(kind, args),
  };
}
