import { AppError } from '../errors/app-error.js';
import type { CommitWrite, IndexValue, JournalEntryInput, StoredDocument, StorePort } from '../ports/store.port.js';
import { conflictBackoff, concurrentUpdatesGaveUp, isVersionConflict } from './conflict-backoff.js';

/**
 * Read-modify-write of store records: read, apply a pure function, write with compare-and-set,
 * and on VERSION_CONFLICT read again and decide again, after the runtime's full-jitter
 * backoff, a bounded number of times; then a retryable 409 `Concurrent updates to
 * <collection>/<id>: gave up after N attempts`, the runtime's message. The one loop for
 * records that are not actors (wallets, positions, daily volume, settings...).
 *
 * `apply` may run several times, each time on a fresh read, so it must not have effects:
 * whatever it throws (a domain refusal) is thrown at once, without retry or write.
 */

/** The next state of a record: its data (with indexes, expiry and journal entry, as `put` takes them). */
export interface RecordPut<T> {
  data: T;
  indexes?: Record<string, IndexValue>;
  expiresAt?: number;
  journal?: JournalEntryInput;
}

/** What `apply` decides for one record: write it, delete it, or leave it (null or undefined). */
export type RecordChange<T> = RecordPut<T> | { delete: true } | null | undefined;

export interface RecordRef {
  collection: string;
  id: string;
}

export interface RecordUpdateOptions {
  /** Attempts before the 409 (default 20). */
  maxAttempts?: number;
  /** Waits before retry `attempt` (0 first); the runtime's backoff by default. */
  backoff?: (attempt: number) => Promise<void>;
}

export interface RecordUpdate<T> {
  /** The record as it now is: as written, as read when nothing changed, null when absent or deleted. */
  doc: StoredDocument<T> | null;
  /** Whether this call wrote. */
  changed: boolean;
}

export interface RecordsUpdate {
  /** One per ref, in order, as in `RecordUpdate.doc`. */
  docs: Array<StoredDocument | null>;
  /** Whether this call wrote (all of its changes, in one commit). */
  changed: boolean;
}

const DEFAULT_UPDATE_ATTEMPTS = 20;

/**
 * Updates one record with `apply(current)` (current: null when absent); see the file comment.
 * `read`: the record as the caller read it a moment ago in the same request (null: absent then):
 * the first attempt starts from it instead of reading again. Its compare-and-set refuses it if
 * the record moved since, and the retry reads afresh, so a stale read is never written over.
 */
export async function updateRecord<T>(
  store: StorePort,
  ref: RecordRef,
  apply: (current: StoredDocument<T> | null) => RecordChange<T>,
  options: RecordUpdateOptions & { read?: StoredDocument<T> | null } = {},
): Promise<RecordUpdate<T>> {
  const { collection, id } = ref;
  let known = options.read;
  return withRetries(
    options,
    () => `${collection}/${id}`,
    async () => {
      const current = known !== undefined ? known : await store.get<T>(collection, id);
      known = undefined;
      const change = apply(current);
      if (!change) return { doc: current, changed: false };
      if (isDelete(change)) {
        if (!current) return { doc: null, changed: false };
        await store.delete(collection, id, current.version);
        return { doc: null, changed: true };
      }
      const { journal, ...put } = change;
      const doc = await store.put<T>(collection, id, { ...put, expectedVersion: current?.version ?? 0 }, journal);
      return { doc, changed: true };
    },
  );
}

/**
 * Updates several records at once: reads each ref, `apply(currents)` returns one change per
 * ref (in order), and every change is written in one atomic `StorePort.commit`, all or
 * nothing. A conflict on any of them retries the whole update on fresh reads; the 409 names
 * the record of the last conflict.
 */
export async function updateRecords(
  store: StorePort,
  refs: readonly RecordRef[],
  apply: (current: Array<StoredDocument | null>) => ReadonlyArray<RecordChange<unknown>>,
  options: RecordUpdateOptions = {},
): Promise<RecordsUpdate> {
  let lastConflict = refs[0] ? `${refs[0].collection}/${refs[0].id}` : 'records';
  return withRetries(
    options,
    () => lastConflict,
    async () => {
      const current = await Promise.all(refs.map(({ collection, id }) => store.get(collection, id)));
      const changes = apply(current);
      if (changes.length !== refs.length) throw AppError.internal(`updateRecords: ${changes.length} changes for ${refs.length} records`);
      const writes: CommitWrite[] = [];
      const written: number[] = [];
      changes.forEach((change, i) => {
        const { collection, id } = refs[i]!;
        const doc = current[i]!;
        if (!change || (isDelete(change) && !doc)) return;
        written.push(i);
        if (isDelete(change)) writes.push({ op: 'delete', collection, id, expectedVersion: doc!.version });
        else {
          const { journal, ...put } = change;
          writes.push({
            op: 'put',
            collection,
            id,
            input: { ...put, expectedVersion: doc?.version ?? 0 },
            ...(journal ? { journal } : {}),
          });
        }
      });
      if (writes.length === 0) return { docs: current, changed: false };
      try {
        const results = await store.commit(writes);
        const docs = [...current];
        written.forEach((index, k) => {
          docs[index] = results[k]!;
        });
        return { docs, changed: true };
      } catch (error) {
        const details = isVersionConflict(error) ? error.details : undefined;
        if (details) lastConflict = `${String(details.collection)}/${String(details.id)}`;
        throw error;
      }
    },
  );
}

/**
 * The loop under both: runs `attempt` (which reads, decides and writes) again after the
 * backoff whenever it throws VERSION_CONFLICT, at most `maxAttempts` times, then the 409
 * naming `key()`. For read-modify-writes whose read is more than one `get` (a `find` of a
 * user's wallets before writing their default pointer); prefer `updateRecord(s)` otherwise.
 */
export async function retryOnConflict<R>(key: () => string, attempt: () => Promise<R>, options: RecordUpdateOptions = {}): Promise<R> {
  return withRetries(options, key, attempt);
}

async function withRetries<R>(options: RecordUpdateOptions, key: () => string, attempt: () => Promise<R>): Promise<R> {
  const maxAttempts = Math.max(1, options.maxAttempts ?? DEFAULT_UPDATE_ATTEMPTS);
  const backoff = options.backoff ?? conflictBackoff;
  for (let n = 0; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (!isVersionConflict(error)) throw error;
      if (n + 1 >= maxAttempts) throw concurrentUpdatesGaveUp(key(), n + 1);
      await backoff(n);
    }
  }
}

function isDelete<T>(change: RecordPut<T> | { delete: true }): change is { delete: true } {
  return !('data' in change) && (change as { delete?: unknown }).delete === true;
}
