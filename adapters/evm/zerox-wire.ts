import { z } from 'zod';
import { AppError } from '../../kernel/errors/app-error.js';
import { providerUnavailable } from '../resilience/provider-breaker.js';
import { vendorRefusal } from '../resilience/vendor-http.js';

/**
 * Wire shapes of the 0x Swap API v2, allowance-holder flavour (`/swap/allowance-holder/price`
 * and `/quote`, headers `0x-api-key` and `0x-version: v2`), and the translation of its
 * errors (`{name, message, data}`). Unknown fields are stripped.
 */

const baseUnits = z.string().regex(/^\d+$/);
const fee = z.object({ amount: baseUnits, token: z.string(), type: z.string().optional() }).nullish();

const available = z.object({
  liquidityAvailable: z.literal(true),
  buyAmount: baseUnits,
  minBuyAmount: baseUnits,
  sellAmount: baseUnits,
  buyToken: z.string(),
  sellToken: z.string(),
  fees: z.object({ integratorFee: fee, zeroExFee: fee, gasFee: fee }).partial().nullish(),
  issues: z
    .object({
      allowance: z.object({ actual: baseUnits, spender: z.string() }).nullish(),
      balance: z.object({ token: z.string(), actual: baseUnits, expected: baseUnits }).nullish(),
      simulationIncomplete: z.boolean().nullish(),
    })
    .nullish(),
});

/** `/price`: indicative, no transaction. */
export const zeroExPriceSchema = z.discriminatedUnion('liquidityAvailable', [
  available,
  z.object({ liquidityAvailable: z.literal(false) }),
]);

/** `/quote`: firm, with the transaction the taker signs. */
export const zeroExQuoteSchema = z.discriminatedUnion('liquidityAvailable', [
  available.extend({
    transaction: z.object({
      to: z.string(),
      data: z.string().regex(/^0x[0-9a-fA-F]*$/),
      gas: baseUnits.nullish(),
      gasPrice: baseUnits,
      value: baseUnits,
    }),
  }),
  z.object({ liquidityAvailable: z.literal(false) }),
]);

export type ZeroExPrice = Extract<z.output<typeof zeroExPriceSchema>, { liquidityAvailable: true }>;

const zeroExErrorSchema = z.object({
  name: z.string().optional(),
  message: z.string().optional(),
  data: z
    .object({ details: z.array(z.object({ field: z.string(), reason: z.string() })).optional() })
    .loose()
    .optional(),
});

const TOKEN_FIELDS = new Set(['sellToken', 'buyToken']);

/**
 * Maps a 4xx answer: an unsupported token → 404 `Token not found: <address>`; a bad API key
 * → 503 (an operator must fix it, and the provider is unusable until then); anything else
 * (no route, amount too small, token not authorized) → 400.
 */
export function translateZeroExRefusal(
  provider: string,
  status: number,
  body: unknown,
  tokens: { sellToken: string; buyToken: string },
  /** Tokens known to be tradable: when 0x does not say which token it refuses, it is the other one. */
  isKnown: (address: string) => boolean = () => false,
): AppError {
  const parsed = zeroExErrorSchema.safeParse(body);
  const error = parsed.success ? parsed.data : {};
  const details = { status, ...(error.name ? { vendorCode: error.name } : {}) };
  if (status === 401 || (status === 403 && error.name !== 'TAKER_NOT_AUTHORIZED_FOR_TRADE'))
    return providerUnavailable(provider, `credentials refused (HTTP ${status})`, { details });
  const badField = error.data?.details?.find((d) => TOKEN_FIELDS.has(d.field))?.field as 'sellToken' | 'buyToken' | undefined;
  if (error.name === 'TOKEN_NOT_SUPPORTED' || (error.name === 'INPUT_INVALID' && badField)) {
    const guessed = isKnown(tokens.sellToken) && !isKnown(tokens.buyToken) ? tokens.buyToken : tokens.sellToken;
    const token = badField ? tokens[badField] : /buy/i.test(error.message ?? '') ? tokens.buyToken : guessed;
    return new AppError('TOKEN_NOT_FOUND', `Token not found: ${token}`, { retryable: false, details: { provider, ...details } });
  }
  const reason = [error.name, error.message].filter(Boolean).join(': ');
  return vendorRefusal(provider, `No route found for ${tokens.sellToken} -> ${tokens.buyToken}${reason ? ` (${reason})` : ''}`, details);
}

/** Fees 0x takes in `token` (its own and an integrator's), in base units. */
export function feesIn(quote: ZeroExPrice, token: string): bigint {
  const fees = [quote.fees?.zeroExFee, quote.fees?.integratorFee];
  return fees.reduce((total, f) => (f && f.token.toLowerCase() === token.toLowerCase() ? total + BigInt(f.amount) : total), 0n);
}
