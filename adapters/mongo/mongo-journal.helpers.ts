import type { CollectionLike, MongoDoc, PendingJournal } from './mongo-db.types.js';
import { isDuplicateKey } from './mongo-errors.helpers.js';
import { journalDoc } from './mongo-mapping.helpers.js';

/**
 * Why the journal needs no multi-document transaction:
 *
 * A journaled `put` writes the entry into the document itself (`lastJournal`, with
 * `journalPending: true`) in the same single-document CAS update as the snapshot, so
 * the snapshot and its entry become durable together or not at all. Only then is the
 * entry copied ("flushed") into the journal collection, under a deterministic `_id`
 * (`<collection>/<id>/<seq>`) with an upsert, which makes the copy idempotent: anyone
 * may repeat it. A last write clears `journalPending`.
 *
 * If the process dies between those writes, the entry is still in the document and
 * marked pending, and every path that could lose it flushes it first: `readJournal`
 * repairs before reading; a journaled `put` and `delete` only match documents with
 * nothing pending (a miss flushes, then retries); `sweepExpired` flushes before it
 * deletes; and the TTL index is partial on `journalPending: false`, so the server's
 * TTL monitor never removes a document whose entry is not yet in the journal.
 */

/** Fields the CAS diagnosis and the repair read; never the (possibly large) data. */
export const PENDING_PROJECTION: MongoDoc = { version: 1, expiresAt: 1, lastJournal: 1, journalPending: 1 };

/**
 * Copies a document's pending entry into the journal, then clears the pending flag if
 * the document still holds that very entry (the token tells it from an entry of a
 * later write, or of a re-created document, with the same seq).
 */
export async function flushPending(
  journal: CollectionLike,
  docs: CollectionLike,
  collection: string,
  id: string,
  entry: PendingJournal,
): Promise<void> {
  const { _id, ...fields } = journalDoc(collection, id, entry);
  try {
    // `$set` rather than `$setOnInsert`: repeating it rewrites identical values, and an
    // id deleted and created again replaces the entries of its earlier life seq by seq.
    await journal.updateOne({ _id }, { $set: fields }, { upsert: true });
  } catch (error) {
    // Two concurrent upserts of one new _id: the loser's entry is already there.
    if (!isDuplicateKey(error)) throw error;
  }
  await docs.updateOne({ _id: id, journalPending: true, 'lastJournal.token': entry.token }, { $set: { journalPending: false } });
}

/** The pending entry of a document read with `PENDING_PROJECTION`, if any. */
export function pendingEntry(raw: MongoDoc | null): PendingJournal | undefined {
  if (raw?.journalPending !== true) return undefined;
  return raw.lastJournal as PendingJournal | undefined;
}
