/**
 * A bounded ring of ids, oldest first, kept in one string with a newline between ids: what a
 * balance or a position remembers so that the same order or deposit is never booked twice.
 *
 * One string, not an array: a ring holds up to 256 ids and every fill reads and writes three
 * documents that carry one (the wallet's balances, both positions). As an array, v8 serialised
 * 256 strings, decoded and froze 256 more, and each write copied the array; as one string each
 * of those is a single value. Documents stored before hold the array (under the field's former
 * name): `idRingOf` reads either form, and the next write stores the string.
 */
export type IdRing = string;

const SEPARATOR = '\n';
const SEPARATOR_CODE = 10;

/** The ring a stored document holds, in either form; an absent ring is empty. */
export function idRingOf(stored: IdRing | readonly string[] | undefined): IdRing {
  if (stored === undefined) return '';
  return typeof stored === 'string' ? stored : stored.join(SEPARATOR);
}

/** Whether `id` is one of the ring's ids (a whole id, not a part of one). */
export function ringHas(ring: IdRing, id: string): boolean {
  if (id === '') return false;
  for (let at = ring.indexOf(id); at >= 0; at = ring.indexOf(id, at + 1)) {
    const end = at + id.length;
    const startsAnId = at === 0 || ring.charCodeAt(at - 1) === SEPARATOR_CODE;
    const endsAnId = end === ring.length || ring.charCodeAt(end) === SEPARATOR_CODE;
    if (startsAnId && endsAnId) return true;
  }
  return false;
}

/** The ring's ids, oldest first. */
export function ringIds(ring: IdRing): string[] {
  return ring === '' ? [] : ring.split(SEPARATOR);
}

/**
 * `id` appended, and the oldest ids dropped so that at most `size` remain: the new ring and
 * the ids that left it (oldest first), which a caller may have to finish first.
 */
export function ringPush(ring: IdRing, id: string, size: number): { ring: IdRing; evicted: string[] } {
  // Ids are the service's own (order, deposit and withdrawal ids): a separator in one is a bug.
  if (id === '' || id.includes(SEPARATOR)) throw new RangeError(`not an id a ring can hold: ${JSON.stringify(id)}`);
  const next = ring === '' ? id : `${ring}${SEPARATOR}${id}`;
  let count = 1;
  for (let at = next.indexOf(SEPARATOR); at >= 0; at = next.indexOf(SEPARATOR, at + 1)) count++;
  const excess = count - Math.max(1, size);
  if (excess <= 0) return { ring: next, evicted: [] };
  let cut = -1;
  for (let n = 0; n < excess; n++) cut = next.indexOf(SEPARATOR, cut + 1);
  return { ring: next.slice(cut + 1), evicted: next.slice(0, cut).split(SEPARATOR) };
}
