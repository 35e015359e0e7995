import { z } from 'zod';

/**
 * ISO 8601 date-times as clients send them: `2030-02-28T12:00:00Z` or with an offset and
 * optional fractions. `Date.parse` alone accepts far more ("1", "March 7 2031") and moves
 * impossible dates on ("2030-02-30" becomes March 2nd), so a stored time could differ from
 * the one sent; zod's ISO check accepts only real calendar times in the strict form.
 */
const ISO_DATE_TIME = z.iso.datetime({ offset: true });

export function isIsoTime(value: string): boolean {
  return ISO_DATE_TIME.safeParse(value).success;
}
