/**
 * The search index writes of a change of a card's published copy: its term entries and the
 * term counts (how many cards hold each term), both in the commit of the card, so a reader
 * never sees a count that disagrees with the entries. A search picks its rarest word by the
 * counts (directory.service.ts); results never depend on them, only the work does.
 */
import type { CommitWrite, StorePort } from '../../kernel/ports/store.port.js';
import { termKey } from './card-search.js';
import {
  CARD_TERMS,
  TERM_COUNTS,
  TERM_INDEX,
  newestFirstKey,
  termEntryId,
  type CardRecord,
  type CardTermRecord,
  type TermCountRecord,
} from './card.records.js';

type Published = CardRecord['published'];

/** Whether the copy's term entries are in the store (written before counts existed: yes). */
const entriesPresent = (published: Published) => published !== undefined && published.index !== 'withdrawn';
const counted = (published: Published) => published?.index === 'counted';

/** Per term, how many cards it gains (or loses) when the published copy goes from `before` to `after`. */
function countDeltas(before: Published, after: Published): Map<string, number> {
  const deltas = new Map<string, number>();
  if (counted(before)) for (const term of before!.terms) deltas.set(term, -1);
  if (counted(after)) for (const term of after!.terms) deltas.set(term, (deltas.get(term) ?? 0) + 1);
  // A re-publish of the same words moves no count: idempotent.
  for (const [term, delta] of deltas) if (delta === 0) deltas.delete(term);
  return deltas;
}

/**
 * The writes taking the index from `before` to `after`: the old generation's entries
 * deleted (each written once, so at version 1) unless they stay, the new ones created, and
 * every count that moves (read now: the commit's compare-and-set holds them to this read;
 * a count falling to 0 is deleted).
 */
export async function indexWrites(store: StorePort, cardId: string, before: Published, after: Published): Promise<CommitWrite[]> {
  const had = entriesPresent(before);
  const has = entriesPresent(after);
  const same = had && has && before!.gen === after!.gen;
  const writes: CommitWrite[] = [];
  if (had && !same) {
    for (const term of before!.terms)
      writes.push({ op: 'delete', collection: CARD_TERMS, id: termEntryId(cardId, before!.gen, term), expectedVersion: 1 });
  }
  if (has && !same) {
    const sortKey = newestFirstKey(after!.at);
    const data: CardTermRecord = { card: cardId, gen: after!.gen };
    for (const term of after!.terms)
      writes.push({
        op: 'put',
        collection: CARD_TERMS,
        id: termEntryId(cardId, after!.gen, term),
        input: { data, expectedVersion: 0, indexes: { [TERM_INDEX]: termKey(term, sortKey) } },
      });
  }
  const deltas = [...countDeltas(before, after)];
  const docs = await Promise.all(deltas.map(([term]) => store.get<TermCountRecord>(TERM_COUNTS, term)));
  deltas.forEach(([term, delta], i) => {
    const doc = docs[i];
    // Never below 0: counts only steer the work of a search, a miscount must not break a write.
    const cards = Math.max(0, (doc?.data.cards ?? 0) + delta);
    if (cards > 0)
      writes.push({ op: 'put', collection: TERM_COUNTS, id: term, input: { data: { cards }, expectedVersion: doc?.version ?? 0 } });
    else if (doc) writes.push({ op: 'delete', collection: TERM_COUNTS, id: term, expectedVersion: doc.version });
  });
  return writes;
}

/** The published copy as it should be indexed: counted while its agent or bot is active, withdrawn otherwise. */
export function indexedAs(published: Published, live: boolean): Published {
  return published ? { ...published, index: live ? 'counted' : 'withdrawn' } : undefined;
}
