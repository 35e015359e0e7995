import type { Quote, QuoteRequest } from '../../kernel/ports/venue.port.js';
import type { JupiterQuote } from './jupiter-wire.js';

/** Fixed-point scale for the impact fraction: keeps sub-basis-point impacts in the spot computation. */
const SCALE = 1_000_000_000n;

/**
 * Jupiter quote → venue quote. `outAmount` is what the route yields after its fees and
 * impact; `otherAmountThreshold` is that less the slippage tolerance, enforced on chain.
 * The mid-price output is recovered from the impact: spot = out / (1 − impact). Route fees
 * count only when taken in the input token (the port states fees in input units).
 */
export function quoteFromJupiter(raw: JupiterQuote, context: { request: QuoteRequest; venue: string; expiresAt: number }): Quote {
  const impact = clampFraction(Number(raw.priceImpactPct));
  const impactScaled = BigInt(Math.round(impact * Number(SCALE)));
  const expectedOut = BigInt(raw.outAmount);
  const spotOut = impactScaled >= SCALE ? expectedOut : (expectedOut * SCALE) / (SCALE - impactScaled);
  const feeAmount = raw.routePlan.reduce((total, step) => {
    const { feeAmount: fee, feeMint } = step.swapInfo;
    return fee && feeMint === context.request.inputMint ? total + BigInt(fee) : total;
  }, 0n);
  return {
    chain: 'solana',
    inputMint: context.request.inputMint,
    outputMint: context.request.outputMint,
    amountIn: raw.inAmount,
    expectedOut: raw.outAmount,
    minOut: raw.otherAmountThreshold,
    spotOut: String(spotOut),
    priceImpactBps: Math.round(impact * 10_000),
    feeAmount: String(feeAmount),
    venue: context.venue,
    expiresAt: context.expiresAt,
  };
}

/** Jupiter can report a tiny negative impact (a favourable route); the port's impact is a cost, never below 0. */
function clampFraction(value: number): number {
  if (!Number.isFinite(value) || value < 0) return 0;
  return Math.min(value, 0.9999);
}
