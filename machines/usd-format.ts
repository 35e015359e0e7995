/**
 * A USD number as a two-decimal string, for records, views and replies. Pure, so the order
 * view can use it too (`agents/trading/amounts.ts` re-exports it).
 */
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
