/**
 * Token amounts: whole-token decimal strings (what people type: `0.5`) ↔ base units
 * (what venues and orders carry: `500000000`). Exact BigInt arithmetic; floats only
 * for USD values, which are for display and risk limits, never for balances.
 */

export { formatUsd, plainDecimal, significantDecimal } from '../../machines/usd-format.js';

const DECIMAL = /^\d+(\.\d+)?$/;

/** `0.5` with 9 decimals → 500000000n. Extra fractional digits beyond `decimals` are truncated. */
export function toBaseUnits(amount: string, decimals: number): bigint {
  if (!DECIMAL.test(amount)) throw new RangeError(`not a decimal amount: ${amount}`);
  const [whole = '0', fraction = ''] = amount.split('.');
  return BigInt(whole + fraction.slice(0, decimals).padEnd(decimals, '0'));
}

/** 500000000n with 9 decimals → `0.5` (no trailing zeros). */
export function fromBaseUnits(amount: bigint | string, decimals: number): string {
  const value = BigInt(amount);
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

const MICROS = 1_000_000;

/** USD as whole micro-dollars: float sums like 0.1 + 0.2 must not pass or miss a limit by a hair. */
export function toMicros(usd: number): number {
  return Math.round(usd * MICROS);
}

/** Back to dollars (exact to the micro-dollar). */
export function fromMicros(micros: number): number {
  return micros / MICROS;
}

/** `percent`% of `amount` (a decimal string such as `0.125`), exactly, rounded down: no float, no rounding to whole bps. */
export function percentOf(amount: bigint, percent: string): bigint {
  if (!DECIMAL.test(percent)) throw new RangeError(`not a decimal percentage: ${percent}`);
  const [whole = '0', fraction = ''] = percent.split('.');
  return (amount * BigInt(whole + fraction)) / (100n * 10n ** BigInt(fraction.length));
}

/** A plain non-negative decimal string (`12`, `0.5`): what `toBaseUnits` takes. */
export function isDecimal(value: unknown): value is string {
  return typeof value === 'string' && DECIMAL.test(value);
}

/** The refusal of an amount with non-zero digits past the token's decimals (a repeated buy would drop them each time), or undefined. */
export function finerThanToken(amount: string, token: { symbol: string; decimals: number }): string | undefined {
  const fraction = amount.split('.')[1] ?? '';
  return /[1-9]/.test(fraction.slice(token.decimals)) ? `amount has more decimals than ${token.symbol} has (${token.decimals})` : undefined;
}

/** The refusal of an amount that is not zero but rounds to no base unit of the token. */
export function belowSmallestUnit(token: { symbol: string; decimals: number }): string {
  return `amount is below the smallest unit of ${token.symbol} (${fromBaseUnits(1n, token.decimals)})`;
}
