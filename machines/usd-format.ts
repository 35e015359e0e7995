/**
 * A USD number as a two-decimal string, for records, views and replies. Pure, so the order
 * view can use it too (`agents/amounts.ts` re-exports it).
 */
export function formatUsd(value: number): string {
  // Cents with 15 significant digits first: 1.005 * 100 is 100.49999999999999 in binary, and
  // a half cent must round away from zero (1.005 -> 1.01) as the exact sums of `sumUsd` do.
  const cents = Number((Math.abs(value) * 100).toPrecision(15));
  return ((Math.sign(value) * Math.round(cents)) / 100).toFixed(2);
}
