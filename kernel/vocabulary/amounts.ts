/**
 * Money amounts as every layer speaks them. Token amounts: whole-token decimal strings (what
 * people type: `0.5`) ↔ base units (what venues and orders carry: `500000000`), exact BigInt
 * arithmetic. USD values: floats, for display and risk limits only, never for balances; summed
 * as whole micro-dollars and written as plain decimals. Pure, so machines (the order view) read
 * it as the agents and the catalog do.
 */

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

/** A USD number as a two-decimal string, for records, views and replies. */
export function formatUsd(value: number): string {
  // Cents with 15 significant digits first: 1.005 * 100 is 100.49999999999999 in binary, and
  // a half cent must round away from zero (1.005 -> 1.01) as the exact sums of `sumUsd` do.
  const cents = Number((Math.abs(value) * 100).toPrecision(15));
  return plainDecimal((Math.sign(value) * Math.round(cents)) / 100, 2);
}

/**
 * A number with `fractionDigits` decimals, never in exponent notation: `toFixed`
 * writes 1e21 and above as `1e+21`, which no decimal parser of ours (or a client's) takes
 * for an amount. Such a value is written with its shortest digits (as `String` gives them)
 * and zeros, not its binary expansion: 1.4e21 is `1400000000000000000000` (NaN and
 * infinities come out as `toFixed` writes them).
 */
export function plainDecimal(value: number, fractionDigits: number): string {
  const fixed = value.toFixed(fractionDigits);
  if (!fixed.includes('e')) return fixed;
  // `String` of a value this large is `[-]d[.ddd]e+N`.
  const [mantissa = '', exponent = '0'] = String(Math.abs(value)).split('e+');
  const digits = mantissa.replace('.', '');
  const whole = digits.padEnd(Number(exponent) + 1, '0');
  return `${value < 0 ? '-' : ''}${whole}${fractionDigits > 0 ? `.${'0'.repeat(fractionDigits)}` : ''}`;
}

/**
 * `value` rounded to `digits` significant digits as a plain decimal without trailing zeros
 * (`toPrecision` without its exponent form): 1.4090026e-7 is `0.00000014090026`, 1.2345e9
 * is `1234500000`, 1 is `1`. For prices, whose scale runs from 1e-9 to 1e5.
 */
export function significantDecimal(value: number, digits: number): string {
  if (value === 0 || !Number.isFinite(value)) return value.toFixed(0);
  const rounded = Number(value.toPrecision(digits));
  const magnitude = Math.floor(Math.log10(Math.abs(rounded)));
  // toFixed takes at most 100 decimals: a value below 1e-90 is shown as 0 at that precision.
  const fixed = plainDecimal(rounded, Math.min(100, Math.max(0, digits - 1 - magnitude)));
  return fixed.includes('.') ? fixed.replace(/\.?0+$/, '') : fixed;
}
