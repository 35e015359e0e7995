/** How amounts, prices and times read on the console's pages. */

/** A base-unit integer string as whole tokens (`"1500000"`, 6 → `"1.5"`), without losing digits to floats. */
export function fromUnits(amount: string, decimals: number): string {
  if (!/^\d+$/.test(amount) || decimals === 0) return amount;
  const padded = amount.padStart(decimals + 1, '0');
  const whole = padded.slice(0, -decimals);
  const fraction = padded.slice(-decimals).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

const usdFormat = new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD', maximumFractionDigits: 2 });

/** A USD amount the service sent as a decimal string (or null when it has no price). */
export function usd(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return '—';
  const number = Number(value);
  return Number.isFinite(number) ? usdFormat.format(number) : String(value);
}

/** A token amount with at most 6 decimals shown (the full amount in the title attribute where it matters). */
export function tokens(value: string): string {
  const number = Number(value);
  if (!Number.isFinite(number)) return value;
  return number.toLocaleString(undefined, { maximumFractionDigits: 6 });
}

export const when = (iso: string): string => new Date(iso).toLocaleString();

const relativeFormat = new Intl.RelativeTimeFormat('en', { numeric: 'always' });
const RELATIVE_STEPS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['second', 60],
  ['minute', 60],
  ['hour', 24],
  ['day', 30],
  ['month', 12],
  ['year', Number.POSITIVE_INFINITY],
];

/** A past time as people say it: "3 minutes ago", "2 days ago" (at least "1 second ago", never "in 0 seconds"). */
export function ago(iso: string, now: number = Date.now()): string {
  let amount = Math.max(1, Math.floor((now - new Date(iso).getTime()) / 1000));
  for (const [unit, per] of RELATIVE_STEPS) {
    if (amount < per) return relativeFormat.format(-amount, unit);
    amount = Math.floor(amount / per);
  }
  return when(iso);
}

/** A status or check name as words: `pending_approval` → `pending approval`. */
export const words = (name: string): string => name.replace(/_/g, ' ');
