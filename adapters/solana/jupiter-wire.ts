import { z } from 'zod';
import { AppError } from '../../kernel/errors/app-error.js';
import { providerUnavailable } from '../resilience/provider-breaker.js';
import { vendorRefusal } from '../resilience/vendor-http.js';

/**
 * Wire shapes of Jupiter's Swap API (`/quote`, `/swap`; the v6 shapes, served today under
 * `/swap/v1`), Tokens API v2 (`/tokens/v2/search`) and Price API v3 (`/price/v3`), and the
 * translation of their refusals. Unknown fields are stripped: Jupiter adds fields often.
 */

const baseUnits = z.string().regex(/^\d+$/);

export const jupiterQuoteSchema = z
  .object({
    inputMint: z.string(),
    inAmount: baseUnits,
    outputMint: z.string(),
    outAmount: baseUnits,
    /** ExactIn: the minimum output after slippage; the swap program fails below it. */
    otherAmountThreshold: baseUnits,
    swapMode: z.string(),
    slippageBps: z.number(),
    /** A fraction despite the name: "0.012" is 1.2 %. */
    priceImpactPct: z.string(),
    routePlan: z.array(
      z
        .object({
          swapInfo: z
            .object({ inputMint: z.string(), outputMint: z.string(), feeAmount: baseUnits.optional(), feeMint: z.string().optional() })
            .loose(),
          percent: z.number().nullish(),
        })
        .loose(),
    ),
  })
  // Kept whole: `/swap` takes the quote back exactly as it was given.
  .loose();

export type JupiterQuote = z.output<typeof jupiterQuoteSchema>;

export const jupiterSwapSchema = z.object({
  /** Base64 wire bytes of an unsigned VersionedTransaction paid by `userPublicKey`. */
  swapTransaction: z.string().min(1),
  lastValidBlockHeight: z.number().int().nonnegative(),
});

export const jupiterTokenSchema = z.object({
  id: z.string(),
  name: z.string(),
  symbol: z.string(),
  decimals: z.number().int().min(0).max(255),
  usdPrice: z.number().nullish(),
  isVerified: z.boolean().nullish(),
});
export type JupiterToken = z.output<typeof jupiterTokenSchema>;
export const jupiterTokenListSchema = z.array(jupiterTokenSchema);

/** `{[mint]: {usdPrice, blockId, decimals, priceChange24h}}`; unpriced mints are absent. */
export const jupiterPriceSchema = z.record(z.string(), z.object({ usdPrice: z.number() }).loose().nullable());

const jupiterErrorSchema = z
  .object({ error: z.string().optional(), errorCode: z.string().optional(), message: z.string().optional() })
  .loose();

const UNKNOWN_TOKEN = /not tradable|TOKEN_NOT_TRADABLE|invalid (input|output)?\s*mint|mint.*not found|token.*not found/i;

/**
 * Maps a 4xx answer of `/quote` or `/swap`: an unknown or untradable mint → 404
 * `Token not found: <mint>`; any other refusal (no route, amount too small) → 400.
 */
export function translateJupiterRefusal(
  provider: string,
  status: number,
  body: unknown,
  mints: { inputMint: string; outputMint: string },
): AppError {
  const parsed = jupiterErrorSchema.safeParse(body);
  const error = parsed.success ? parsed.data : {};
  const text = [error.errorCode, error.error, error.message].filter(Boolean).join(': ');
  const details = { status, ...(error.errorCode ? { vendorCode: error.errorCode } : {}) };
  if (status === 401 || status === 403) return providerUnavailable(provider, `credentials refused (HTTP ${status})`, { details });
  if (UNKNOWN_TOKEN.test(text)) {
    // Jupiter names the offending mint (or the parameter) in its message.
    const mint = text.includes(mints.outputMint) || /output/i.test(text) ? mints.outputMint : mints.inputMint;
    return new AppError('TOKEN_NOT_FOUND', `Token not found: ${mint}`, { retryable: false, details: { provider, ...details } });
  }
  return vendorRefusal(provider, `No route found for ${mints.inputMint} -> ${mints.outputMint}${text ? ` (${text})` : ''}`, details);
}
