import { AppError } from '../../kernel/errors/app-error.js';
import { deepFreeze } from '../../kernel/shared/deep-freeze.js';
import type { CommitWrite, StoredDocument } from '../../kernel/ports/store.port.js';
import { versionConflict } from '../shared/store-helpers.js';
import type { CollectionLike, MongoDbLike, MongoDoc, SessionLike, TransactionOptionsLike } from './mongo-db.types.js';
import { isDuplicateKey } from './mongo-errors.helpers.js';
import { PENDING_PROJECTION, pendingEntry } from './mongo-journal.helpers.js';
import { checkId, checkIndexValues, journalDoc, writeUpdate } from './mongo-mapping.helpers.js';

/**
 * A commit is one multi-document transaction (a replica set is required, which the compose
 * file runs): majority, journaled writes, reading from one snapshot. Unlike a single put,
 * a journal entry is written to the journal collection in the same transaction, so it is
 * never pending; an entry a single put left pending on a document of the commit is copied
 * first, in the transaction too, so the commit cannot overwrite it (mongo-journal.helpers.ts).
 */
const COMMIT_TRANSACTION: TransactionOptionsLike = {
  readConcern: { level: 'snapshot' },
  writeConcern: { w: 'majority', journal: true },
};

export interface CommitContext {
  db: MongoDbLike;
  journal: CollectionLike;
  /** The collection of a store collection's documents. */
  docs(collection: string): CollectionLike;
  now: number;
}

/** Values copied at call time (the caller may change its objects before the driver serializes them). */
type Copied = CommitWrite & { copy?: { data: unknown; event: unknown; state: unknown } };

/**
 * Applies `writes` in one transaction: each compare-and-set is checked on the transaction's
 * snapshot and written with the version in its filter, so a concurrent writer either makes
 * the transaction conflict (the driver retries `fn` on a fresh snapshot) or is refused
 * itself. A compare-and-set that does not hold throws VERSION_CONFLICT, which aborts the
 * transaction: nothing of it is written.
 */
export async function commitInTransaction(context: CommitContext, writes: readonly CommitWrite[]): Promise<Array<StoredDocument | null>> {
  const client = context.db.client;
  if (!client) throw AppError.internal('The MongoDB connection cannot run transactions');
  const copied: Copied[] = writes.map((w) => {
    checkId(w.id);
    if (w.op === 'delete') return w;
    checkIndexValues(w.input.indexes ?? {});
    const copy = structuredClone({ data: w.input.data, event: w.journal?.event, state: w.journal?.state });
    return { ...w, copy };
  });
  const session = client.startSession();
  try {
    return await session.withTransaction(() => applyAll(context, session, copied), COMMIT_TRANSACTION);
  } finally {
    await session.endSession();
  }
}

async function applyAll(context: CommitContext, session: SessionLike, writes: Copied[]): Promise<Array<StoredDocument | null>> {
  const results: Array<StoredDocument | null> = [];
  // One after the other: a transaction's operations must not run concurrently on its session.
  for (const write of writes) results.push(await applyOne(context, session, write));
  return results;
}

async function applyOne(context: CommitContext, session: SessionLike, write: Copied): Promise<StoredDocument | null> {
  const { now, journal } = context;
  const docs = context.docs(write.collection);
  const { collection, id } = write;
  const stored = await docs.findOne({ _id: id }, { projection: PENDING_PROJECTION, session });
  const expiresAt = stored?.expiresAt;
  const live = stored !== null && !(expiresAt instanceof Date && expiresAt.getTime() <= now);
  const actual = live ? Number(stored.version) : 0;
  const expected = write.op === 'put' ? write.input.expectedVersion : write.expectedVersion;
  if (actual !== expected) throw versionConflict(collection, id, expected, actual);

  // An entry a single put left pending goes to the journal before anything replaces it.
  const pending = pendingEntry(stored);
  if (pending) {
    const { _id, ...fields } = journalDoc(collection, id, pending);
    await journal.updateOne({ _id }, { $set: fields }, { upsert: true, session });
  }
  // The stored version (live or expired) in the filter: a write that slipped in since the
  // snapshot makes this a write conflict, never a blind overwrite.
  const filter: MongoDoc = stored === null ? { _id: id } : { _id: id, version: stored.version };

  if (write.op === 'delete') {
    if (stored !== null) await docs.deleteOne(filter, { session });
    return null;
  }
  const version = expected + 1;
  const { input, copy } = write as Copied & { op: 'put' };
  const update = writeUpdate({ ...input, data: copy!.data }, version, now, undefined);
  // Nothing stays pending: the entry (if any) is in the journal collection by the commit.
  (update.$set as MongoDoc).journalPending = false;
  if (stored === null) {
    try {
      await docs.updateOne(filter, update, { upsert: true, session });
    } catch (error) {
      // Another writer created the id since this transaction's snapshot.
      if (isDuplicateKey(error)) throw versionConflict(collection, id, expected, expected + 1);
      throw error;
    }
  } else if ((await docs.updateOne(filter, update, { session })).matchedCount !== 1) {
    throw versionConflict(collection, id, expected, actual + 1);
  }
  if (write.journal) {
    const entry = { seq: version, event: copy!.event, state: copy!.state, at: write.journal.at };
    const { _id, ...fields } = journalDoc(collection, id, entry);
    await journal.updateOne({ _id }, { $set: fields }, { upsert: true, session });
  }
  return deepFreeze({
    id,
    version,
    data: copy!.data,
    indexes: { ...(input.indexes ?? {}) },
    updatedAt: now,
    ...(input.expiresAt === undefined ? {} : { expiresAt: input.expiresAt }),
  });
}
