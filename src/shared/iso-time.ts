/**
 * ISO 8601 date-times as clients send them: `2030-02-28T12:00:00Z` or with an offset and
 * optional fractions. `Date.parse` alone accepts far more ("1", "March 7 2031") and moves
 * impossible dates on ("2030-02-30" becomes March 2nd), so a stored time could differ
 * from the one sent; this accepts only real calendar times in the strict form.
 */
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-](\d{2}):(\d{2}))$/;

export function isIsoTime(value: string): boolean {
  const match = ISO_8601.exec(value);
  if (!match) return false;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const offsetHours = match[9] === undefined ? 0 : Number(match[9]);
  const offsetMinutes = match[10] === undefined ? 0 : Number(match[10]);
  // Day 0 of the next month is this month's last; setUTCFullYear, unlike Date.UTC, keeps years below 100.
  const lastDay = new Date(0);
  lastDay.setUTCFullYear(year, month, 0);
  const daysInMonth = lastDay.getUTCDate();
  return (
    month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth &&
    hour <= 23 && minute <= 59 && second <= 59 &&
    offsetHours <= 23 && offsetMinutes <= 59 &&
    Number.isFinite(Date.parse(value))
  );
}
