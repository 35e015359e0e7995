/**
 * Constant-product pool math of the paper venue (x·y = k with a fee on the input), on
 * bigint base units.
 *
 * Reserves are virtual and do not move with trades: each quote rebuilds them from the
 * feed's prices and the pool depth. That keeps the venue stateless across processes and
 * deterministic (a price depends on the seed and the time only, never on who traded
 * before), while the price impact of each trade is still real for its size.
 */

/** The venue's default fee: 30 basis points of the input, as on common AMM pools. */
export const DEFAULT_FEE_BPS = 30;

/** One token of a pair, as the pool needs it. */
export interface PoolSide {
  decimals: number;
  priceUsd: number;
  /** Liquidity of this token's pools in USD; a pair trades on the smaller of its two. */
  depthUsd: number;
}

export interface PoolQuote {
  /** Output after the fee and the curve's price impact (base units). */
  expectedOut: bigint;
  /** Output at the mid price with no fee and no impact (base units). */
  spotOut: bigint;
  /** How far the curve moved the price against the trade, in basis points (fee excluded). */
  priceImpactBps: number;
  /** Fee in base units of the input token. */
  feeAmount: bigint;
}

/** Virtual reserves of a pair: half the smaller depth on each side, in base units. */
function virtualReserves(input: PoolSide, output: PoolSide): { reserveIn: bigint; reserveOut: bigint } {
  const sideUsd = Math.min(input.depthUsd, output.depthUsd) / 2;
  return { reserveIn: toUnits(sideUsd / input.priceUsd, input.decimals), reserveOut: toUnits(sideUsd / output.priceUsd, output.decimals) };
}

/**
 * What `amountIn` of `input` buys of `output`. The fee comes off the input first,
 * rounded up (as Uniswap rounds it: dust does not trade free), then the rest moves along
 * the curve; every other division rounds down, so the pool never gives more than the math
 * allows.
 */
export function quotePool(input: PoolSide, output: PoolSide, amountIn: bigint, feeBps: number = DEFAULT_FEE_BPS): PoolQuote {
  if (amountIn <= 0n) throw new RangeError('amountIn must be positive');
  if (!Number.isInteger(feeBps) || feeBps < 0 || feeBps >= 10_000) throw new RangeError('feeBps must be an integer in [0, 10000)');
  const { reserveIn, reserveOut } = virtualReserves(input, output);
  const feeAmount = (amountIn * BigInt(feeBps) + 9_999n) / 10_000n;
  const netIn = amountIn - feeAmount;
  const expectedOut = (reserveOut * netIn) / (reserveIn + netIn);
  const spotOut = (amountIn * reserveOut) / reserveIn;
  // The curve pays netIn·rOut/(rIn+netIn) instead of netIn·rOut/rIn: short by netIn/(rIn+netIn).
  const impactPpm = (netIn * 1_000_000n) / (reserveIn + netIn);
  return { expectedOut, spotOut, priceImpactBps: Number(impactPpm) / 100, feeAmount };
}

/** Whole tokens (a float) to base units; a double is precise to ~1e-16, far finer than any price here. */
function toUnits(tokens: number, decimals: number): bigint {
  const units = Math.floor(tokens * 10 ** decimals);
  if (!Number.isFinite(units) || units < 1) throw new RangeError('pool reserve is empty or not finite');
  return BigInt(units);
}
