import { join } from 'node:path';
import { deserialize } from 'node:v8';
import { getLastVersion, open, type Database, type RootDatabase } from 'lmdb';
import { AppError } from '../../kernel/errors/app-error.js';
import { ensurePrivateDir, makeFilePrivate } from '../../kernel/shared/private-files.js';
import { settlesWithin } from '../../kernel/shared/settles-within.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type {
  CollectionSpec,
  CommitWrite,
  IndexQuery,
  IndexValue,
  JournalEntry,
  JournalEntryInput,
  JournalPageRequest,
  Page,
  PageRequest,
  PutInput,
  StoredDocument,
  StorePort,
} from '../../kernel/ports/store.port.js';
import {
  checkCommit,
  checkPut,
  decodeCursor,
  encodeCursor,
  pageLimit,
  requireCollection,
  requireIndex,
  versionConflict,
  type IndexCursor,
} from '../shared/store-helpers.js';
import { decodeKey, keyAfter, prefixEnd } from './lmdb-key.codec.js';
import { environmentDictionary, LmdbValueCompression, type CompressionSample } from './lmdb-compression.js';
import { DEFAULT_READ_CACHE_ENTRIES, LmdbReadCache } from './lmdb-read-cache.js';
import { packed, preparePut, type PlannedPut, type PreparedPut } from './lmdb-put.prepare.js';
import {
  checkIndexValue,
  decodeDocument,
  docKey,
  encodeRecord,
  expired,
  fittingKey,
  lazyDocument,
  tupleKey,
  type DocRecord,
} from './lmdb-record.codec.js';
import { SweepScheduler } from './lmdb-sweep.scheduler.js';
import { LMDB_MAP_SIZE } from './lmdb-map-size.js';

/** The files LMDB keeps in its directory: the data and the reader lock table. */
const LMDB_FILES = ['data.mdb', 'lock.mdb'];

export interface LmdbStoreOptions {
  /** Directory of the LMDB environment; several processes may open it at once. */
  path: string;
  clock: ClockPort;
  /** How often expired documents are swept (default one minute). */
  sweepIntervalMs?: number;
  /** Decoded documents kept for reuse while their bytes are unchanged (0: none). */
  readCacheEntries?: number;
  /** `durable()` fails after this long (default 10 s): lmdb-js never settles a flush that failed. */
  flushTimeoutMs?: number;
  /**
   * Documents like those the service stores, of which a new environment's compression
   * dictionary is made (see lmdb-compression.ts); none: values are compressed without one.
   * An environment keeps the dictionary it was first opened with.
   */
  compressionSamples?: readonly CompressionSample[];
  /**
   * Collections whose values are stored uncompressed: documents a hot path rewrites on every
   * call (a swap's balances, positions, idempotency record...), whose compression costs more
   * CPU there than the bytes it saves are worth. Any value, compressed or not, reads back in
   * any collection, so the list may change between runs.
   */
  storedAsIs?: readonly string[];
  /** Bytes of address space the environment maps from the start (default `LMDB_MAP_SIZE`, 64 GiB). */
  mapSize?: number;
}

type Binary = Database<Buffer, Buffer>;

const MARK = Buffer.from([1]);
const SWEEP_BATCH = 500;
const DEFAULT_FLUSH_TIMEOUT_MS = 10_000;

/**
 * The embedded store: one LMDB environment with four sub-databases, all keyed by
 * order-preserving tuples (see lmdb-key.codec.ts):
 * - documents [collection, id]                -> DocRecord (lmdb-record.codec.ts), with a write stamp as LMDB entry version
 * - indexes [collection, index, value, id]    -> mark (range scans serve `find`)
 * - journal [collection, id, seq]             -> v8-serialized JournalEntryInput (on disk only)
 * - expiry  [expiresAt, collection, id]       -> mark (the sweeper scans up to now)
 * - settings                                  -> the compression dictionary
 *
 * Records and journal entries are stored LZ4-compressed with the environment's dictionary
 * when that makes them smaller (lmdb-compression.ts); values stored before read as they were.
 *
 * Writes are conditional writes, the pattern lmdb-js recommends: a put reads the stored
 * document, decides, and queues its writes under `ifVersion(key, stamp)` (or `ifNoExists`).
 * lmdb-js's write thread checks the condition and applies the block inside its write
 * transaction, atomically, without calling back into this thread; a block whose condition
 * no longer holds writes nothing, and the put reads again and decides again. The stamp is
 * random per write, not the document's version: a document deleted and created again has
 * version 1 again, and a put decided on the earlier one (its index entries, its journal)
 * must not land on it. LMDB's writer lock is cross-process, so this holds across processes.
 *
 * Durability: the environment is opened with lmdb-js's overlapping sync (its default on
 * Linux, set here explicitly). A write's promise resolves when its transaction is committed:
 * visible to every reader and kept if the process dies (SIGKILL included: the pages are in
 * the OS's cache, and on reopening lmdb-js takes the latest committed transaction while the
 * machine's boot id is unchanged). The disk flush runs after the commit, outside LMDB's
 * writer lock and alongside the next transactions; `durable()` waits for it (lmdb-js's
 * `flushed`). After a reboot, lmdb-js takes the latest flushed transaction, so what power
 * loss can undo is exactly what no `durable()` has waited for yet (README, "Overlapping Sync
 * Options"). Before, each write waited for its own synced commit: a swap, a chain of ten
 * writes, waited for ten fsyncs in turn, and any stall of the disk showed tenfold in its
 * latency (DECISIONS "Store").
 *
 * Group commit: lmdb-js writes everything queued in one event turn, and whatever queues
 * while a commit is flushing, in one transaction, so concurrent puts share one fsync.
 *
 * Reads: a document is decoded once per stored version and shared, deeply frozen, with
 * every reader until its bytes change (see lmdb-read-cache.ts).
 */
export class LmdbStore implements StorePort {
  private readonly root: RootDatabase;
  private readonly docs: Binary;
  private readonly indexes: Binary;
  private readonly journal: Binary;
  private readonly expiry: Binary;
  private readonly clock: ClockPort;
  private readonly sweeper: SweepScheduler;
  private readonly cache: LmdbReadCache;
  private readonly compression: LmdbValueCompression;
  private readonly storedAsIs: ReadonlySet<string>;
  private readonly flushTimeoutMs: number;
  /** Write batches queued so far, and the wait for the flush of those (shared by every `durable()` until the next). */
  private queuedWrites = 0;
  private flush: { afterWrites: number; done: Promise<void> } | undefined;
  private specs = new Map<string, CollectionSpec>();
  private closed = false;

  constructor(options: LmdbStoreOptions) {
    this.clock = options.clock;
    this.cache = new LmdbReadCache(options.readCacheEntries ?? DEFAULT_READ_CACHE_ENTRIES);
    this.flushTimeoutMs = options.flushTimeoutMs ?? DEFAULT_FLUSH_TIMEOUT_MS;
    this.sweeper = new SweepScheduler(this.clock, options.sweepIntervalMs ?? 60_000, () => this.sweepExpired());
    // lmdb-js creates its directory 0755 and its files 0664: the store is for this user only.
    ensurePrivateDir(options.path);
    this.root = open({ path: options.path, overlappingSync: true, mapSize: options.mapSize ?? LMDB_MAP_SIZE });
    for (const file of LMDB_FILES) makeFilePrivate(join(options.path, file));
    const binary = { keyEncoding: 'binary', encoding: 'binary' } as const;
    this.docs = this.root.openDB<Buffer, Buffer>({ name: 'documents', useVersions: true, ...binary });
    migrateUnversionedDocs(this.root, this.docs);
    this.indexes = this.root.openDB<Buffer, Buffer>({ name: 'indexes', ...binary });
    this.journal = this.root.openDB<Buffer, Buffer>({ name: 'journal', ...binary });
    this.expiry = this.root.openDB<Buffer, Buffer>({ name: 'expiry', ...binary });
    this.compression = new LmdbValueCompression(environmentDictionary(this.root, options.compressionSamples ?? []));
    this.storedAsIs = new Set(options.storedAsIs ?? []);
  }

  async init(collections: CollectionSpec[]): Promise<void> {
    this.assertOpen();
    for (const spec of collections) this.specs.set(spec.name, spec);
    this.sweeper.start();
  }

  async get<T>(collection: string, id: string): Promise<StoredDocument<T> | null> {
    this.assertOpen();
    requireCollection(this.specs, collection);
    // An id too long for an LMDB key was never stored (put refuses it): it is simply absent.
    const key = fittingKey([collection, id]);
    const doc = key && this.readDoc(key);
    return doc && !expired(doc, this.clock.now()) ? (doc as StoredDocument<T>) : null;
  }

  async put<T>(collection: string, id: string, input: PutInput<T>, journal?: JournalEntryInput): Promise<StoredDocument<T>> {
    checkPut(this.specs, collection, input);
    this.assertOpen();
    const put = preparePut(collection, id, input, journal, this.compressionOf(collection));
    // Decide on what is stored now; if the stored entry changes before the commit, decide again.
    for (;;) {
      const now = this.clock.now();
      const stored = this.readEntry(put.key);
      const planned = this.plan(put, stored?.doc, now);
      if (await this.ifUnchanged(put.key, stored?.stamp, planned.write)) return this.written(put, planned) as StoredDocument<T>;
    }
  }

  /**
   * All or nothing, decided here and applied by lmdb-js's write thread: each document is
   * read with its write stamp, the writes are planned on what was read, and the whole block
   * is queued under one nested condition per document (`ifVersion`, or `ifNoExists` for one
   * absent). The write thread checks every condition inside its write transaction, under
   * LMDB's cross-process writer lock, and applies the block only if all hold; if one does
   * not (another writer came first), nothing is written and the commit reads and decides
   * again. A document whose version is not the one expected throws VERSION_CONFLICT and
   * nothing is queued.
   *
   * Not a child transaction (lmdb-js's `childTransaction`): that runs its callback on this
   * thread in the middle of the write thread's transaction, a round trip between the two
   * threads per commit, with the writer lock held meanwhile (under load a fifth of a swap's
   * CPU; when alone, two more thread switches per commit).
   */
  async commit(writes: readonly CommitWrite[]): Promise<Array<StoredDocument | null>> {
    checkCommit(this.specs, writes);
    this.assertOpen();
    if (writes.length === 0) return [];
    // Everything that can throw before the transaction (bad keys, index values) throws here.
    const prepared = writes.map((w) =>
      w.op === 'put'
        ? preparePut(w.collection, w.id, w.input, w.journal, this.compressionOf(w.collection))
        : { ...w, key: docKey(w.collection, w.id) },
    );
    for (;;) {
      const now = this.clock.now();
      const stored = prepared.map((w) => this.readEntry(w.key));
      const planned = prepared.map((w, i): PlannedPut | { write: () => void } => {
        const current = stored[i]?.doc;
        if ('data' in w) return this.plan(w, current, now);
        const version = current && !expired(current, now) ? current.version : 0;
        if (version !== w.expectedVersion) throw versionConflict(w.collection, w.id, w.expectedVersion, version);
        return { write: () => current && this.remove(w.collection, current) };
      });
      const held = await this.allUnchanged(
        prepared.map((w, i) => ({ key: w.key, stamp: stored[i]?.stamp })),
        () => {
          for (const plan of planned) plan.write();
        },
      );
      if (held) return prepared.map((w, i) => ('data' in w ? this.written(w, planned[i] as PlannedPut) : null));
    }
  }

  /** How `collection`'s values are written: compressed, or as they are (`storedAsIs`). */
  private compressionOf(collection: string): LmdbValueCompression | undefined {
    return this.storedAsIs.has(collection) ? undefined : this.compression;
  }

  /**
   * What a put writes over `current` (the stored document, if any): the record and a block
   * of writes to run in a write transaction (conditional block or transaction callback).
   * Throws VERSION_CONFLICT when `current` is not the version the put expects.
   */
  private plan(put: PreparedPut, current: StoredDocument | undefined, now: number): PlannedPut {
    const { collection, id, indexes, indexKeys, expiresAt, expiryKey, key, entry } = put;
    const live = current && !expired(current, now) ? current : undefined;
    const version = live?.version ?? 0;
    if (version !== put.expectedVersion) throw versionConflict(collection, id, put.expectedVersion, version);
    // Index entries whose value did not change stay as they are (most updates change one or none).
    const kept = live ? (name: string) => live.indexes[name] === indexes[name] : () => false;
    // A new incarnation of the id starts its journal afresh so that seq == version holds.
    // Only a create that journals, or replaces an expired document, can find an old journal
    // to clear (a deleted document keeps its journal until then); skipping the range scan
    // otherwise keeps unjournaled creates (audit, idempotency records) cheap. Any write to
    // that journal also writes the document, so the condition on it covers the scan.
    const staleJournal = !live && (current || entry) ? this.journalKeys(collection, id) : [];
    const record: DocRecord = {
      id,
      version: version + 1,
      indexes,
      updatedAt: now,
      ...(expiresAt === undefined ? {} : { expiresAt }),
      data: put.data,
    };
    const encoded = encodeRecord(record);
    const raw = packed(encoded, this.compressionOf(collection));
    // The same expiry is the same entry: an idempotency record's completion keeps its claim's.
    const keptExpiry = expiresAt !== undefined && current?.expiresAt === expiresAt;
    const write = () => {
      if (current) this.unlink(collection, current, kept, keptExpiry);
      for (const stale of staleJournal) this.journal.remove(stale);
      this.docs.put(key, raw, newStamp());
      for (const { name, key: indexKey } of indexKeys) if (!kept(name)) this.indexes.put(indexKey, MARK);
      if (expiryKey && !keptExpiry) this.expiry.put(expiryKey, MARK);
      if (entry) this.journal.put(tupleKey([collection, id, record.version]), entry);
    };
    return { record, raw, size: encoded.length, write };
  }

  /** The document a committed put stored; a cached decoding of its key now shows it. */
  private written(put: PreparedPut, planned: PlannedPut): StoredDocument {
    const doc = lazyDocument(planned.record);
    this.cache.refresh(cacheKeyOf(put.key), planned.raw, doc, planned.size);
    return doc;
  }

  async delete(collection: string, id: string, expectedVersion: number): Promise<void> {
    requireCollection(this.specs, collection);
    this.assertOpen();
    const key = docKey(collection, id);
    for (;;) {
      const stored = this.readEntry(key);
      const version = stored && !expired(stored.doc, this.clock.now()) ? stored.doc.version : 0;
      if (version !== expectedVersion) throw versionConflict(collection, id, expectedVersion, version);
      if (!stored) return;
      if (await this.ifUnchanged(key, stored.stamp, () => this.remove(collection, stored.doc))) return;
    }
  }

  async find<T>(collection: string, query: IndexQuery, page: PageRequest): Promise<Page<StoredDocument<T>>> {
    requireIndex(this.specs, collection, query.index);
    this.assertOpen();
    const invalidQuery = () => AppError.validation([`query on ${query.index} must use strings or numbers`]);
    const bound = (value: IndexValue | undefined) => {
      if (value === undefined) return undefined;
      checkIndexValue(value, invalidQuery);
      return tupleKey([collection, query.index, value]);
    };
    const all = tupleKey([collection, query.index]);
    if (query.eq !== undefined) checkIndexValue(query.eq, invalidQuery);
    const eq = query.eq === undefined ? undefined : fittingKey([collection, query.index, query.eq]);
    // No stored entry has an index value too long for a key: nothing can match it.
    if (query.eq !== undefined && !eq) return pageOf<T>([]);
    let start = eq ?? bound(query.gte) ?? all;
    const end = prefixEnd(eq ?? bound(query.lte) ?? all);
    if (page.cursor) {
      const after = decodeCursor<IndexCursor>(page.cursor);
      checkIndexValue(after.value, () => AppError.validation(['cursor is invalid']));
      const resume = keyAfter(tupleKey([collection, query.index, after.value, after.id]));
      if (Buffer.compare(resume, start) > 0) start = resume;
    }
    const limit = pageLimit(page.limit);
    const now = this.clock.now();
    const items: StoredDocument[] = [];
    let last: IndexCursor | undefined;
    if (Buffer.compare(start, end) < 0) {
      for (const { key } of this.indexes.getRange({ start, end })) {
        // Only the value and the id are needed: the [collection, index] prefix is `all`.
        const [value, id] = decodeKey(key.subarray(all.length)) as [IndexValue, string];
        const doc = this.readDoc(docKey(collection, id));
        if (!doc || expired(doc, now)) continue;
        if (items.length === limit) return pageOf<T>(items, encodeCursor(last!));
        items.push(doc);
        last = { value, id };
      }
    }
    return pageOf<T>(items);
  }

  async list<T>(collection: string, page: PageRequest): Promise<Page<StoredDocument<T>>> {
    requireCollection(this.specs, collection);
    this.assertOpen();
    const prefix = tupleKey([collection]);
    const after = page.cursor ? decodeCursor<{ id: string }>(page.cursor).id : undefined;
    const start = after === undefined ? prefix : keyAfter(docKey(collection, after));
    const limit = pageLimit(page.limit);
    const now = this.clock.now();
    const items: StoredDocument[] = [];
    for (const { key, value } of this.docs.getRange({ start, end: prefixEnd(prefix) })) {
      const doc = this.decoded(key, Buffer.from(value)); // a copy: range values may share a buffer
      if (expired(doc, now)) continue;
      if (items.length === limit) return pageOf<T>(items, encodeCursor({ id: items[limit - 1]!.id }));
      items.push(doc);
    }
    return pageOf<T>(items);
  }

  async readJournal(collection: string, id: string, page: JournalPageRequest): Promise<JournalEntry[]> {
    this.assertOpen();
    const afterSeq = page.afterSeq ?? 0;
    if (!Number.isFinite(afterSeq)) throw AppError.validation(['afterSeq must be a number']);
    const start = keyAfter(tupleKey([collection, id, afterSeq]));
    const end = prefixEnd(tupleKey([collection, id]));
    return Array.from(this.journal.getRange({ start, end, limit: pageLimit(page.limit) }), ({ key, value }) => ({
      ...(deserialize(this.compression.unpack(value)) as JournalEntryInput),
      seq: decodeKey(key)[2] as number,
    }));
  }

  async sweepExpired(): Promise<number> {
    this.assertOpen();
    let removed = 0;
    for (;;) {
      this.queuedWrites++;
      const batch = await this.root.transaction(() => this.sweepBatch(this.clock.now()));
      removed += batch.removed;
      if (!batch.more) return removed;
    }
  }

  async durable(): Promise<void> {
    this.assertOpen();
    // Every call until the next write waits for the same flush: one timer, one race (a swap
    // asks about five times, for its answer and its events).
    if (this.flush?.afterWrites !== this.queuedWrites) this.flush = { afterWrites: this.queuedWrites, done: this.waitForFlush() };
    return this.flush.done;
  }

  private async waitForFlush(): Promise<void> {
    // lmdb-js only logs a failed fsync and leaves `flushed` pending for ever: bound the wait,
    // so that a disk error fails the calls waiting on it (a 503) instead of hanging them all.
    const ms = this.flushTimeoutMs;
    if (!(await settlesWithin(this.root.flushed, ms)))
      throw new AppError('DEPENDENCY_UNAVAILABLE', `The LMDB store did not flush within ${ms} ms`);
  }

  async ping(): Promise<void> {
    this.assertOpen();
    this.docs.get(tupleKey(['ping']));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.sweeper.stop();
    await this.root.close();
  }

  /**
   * Queues `write` to be applied atomically only if the entry under `key` still has the
   * write stamp `stamp` (undefined: there is still none) when the write transaction
   * commits. Resolves false, having written nothing, when it has not.
   */
  private ifUnchanged(key: Buffer, stamp: number | undefined, write: () => void): Promise<boolean> {
    this.queuedWrites++;
    return stamp === undefined ? this.docs.ifNoExists(key, write) : this.docs.ifVersion(key, stamp, write);
  }

  /**
   * `ifUnchanged` over several entries: `write` is applied only if every entry still has its
   * stamp, one block nested in the condition of each. Resolves true when it was.
   */
  private async allUnchanged(entries: ReadonlyArray<{ key: Buffer; stamp: number | undefined }>, write: () => void): Promise<boolean> {
    this.queuedWrites++;
    const conditions: Array<Promise<boolean>> = [];
    const nest = (i: number): void => {
      const entry = entries[i];
      if (!entry) {
        write();
        return;
      }
      const inner = () => nest(i + 1);
      conditions.push(
        entry.stamp === undefined ? this.docs.ifNoExists(entry.key, inner) : this.docs.ifVersion(entry.key, entry.stamp, inner),
      );
    };
    nest(0);
    // Each block says whether its own condition held, except that lmdb-js's write thread
    // counts an `ifNoExists` inside a failed block as held (the writes are still skipped):
    // all of them must say so.
    return (await Promise.all(conditions)).every(Boolean);
  }

  /** Removes up to SWEEP_BATCH expired documents inside the current write transaction. */
  private sweepBatch(now: number): { removed: number; more: boolean } {
    const range = this.expiry.getKeys({ end: prefixEnd(tupleKey([now])), limit: SWEEP_BATCH + 1 });
    const due = Array.from(range, (key) => Buffer.from(key));
    let removed = 0;
    for (const key of due.slice(0, SWEEP_BATCH)) {
      const [expiresAt, collection, id] = decodeKey(key) as [number, string, string];
      const doc = this.readDoc(docKey(collection, id));
      // The entry may be stale if another process rewrote the document meanwhile.
      if (doc && doc.expiresAt === expiresAt && expired(doc, now)) {
        this.remove(collection, doc);
        removed++;
      }
      this.expiry.remove(key);
    }
    return { removed, more: due.length > SWEEP_BATCH };
  }

  /** Removes a document with its index and expiry entries; its journal stays (inside a write transaction or block). */
  private remove(collection: string, doc: StoredDocument): void {
    this.unlink(collection, doc);
    const key = docKey(collection, doc.id);
    this.docs.remove(key);
    this.cache.forget(cacheKeyOf(key));
  }

  /** Removes the index (but the `kept` ones) and expiry entries (unless `keptExpiry`) of a stored record (inside a write transaction or block). */
  private unlink(collection: string, record: StoredDocument, kept: (index: string) => boolean = () => false, keptExpiry = false): void {
    for (const [name, value] of Object.entries(record.indexes)) {
      if (!kept(name)) this.indexes.remove(tupleKey([collection, name, value, record.id]));
    }
    if (record.expiresAt !== undefined && !keptExpiry) this.expiry.remove(tupleKey([record.expiresAt, collection, record.id]));
  }

  /** The keys of an id's journal entries. */
  private journalKeys(collection: string, id: string): Buffer[] {
    const prefix = tupleKey([collection, id]);
    return Array.from(this.journal.getKeys({ start: prefix, end: prefixEnd(prefix) }), (k) => Buffer.from(k));
  }

  /** The stored document under `key` with the write stamp its next write is conditional on. */
  private readEntry(key: Buffer): { doc: StoredDocument; stamp: number } | undefined {
    // lmdb-js's reusable read buffer, valid until the next read: most reads find their
    // document in the cache, so the bytes are compared where they are and copied only to
    // be decoded (a copy per read was a tenth of a portfolio read, records being KBs).
    const bytes = this.docs.getBinaryFast(key);
    if (bytes === undefined) return undefined;
    const stamp = getLastVersion(); // lmdb-js: the entry version of the read just made
    return { doc: this.decoded(key, bytes), stamp };
  }

  /** The stored document under `key` (decoded once per version, see LmdbReadCache). */
  private readDoc(key: Buffer): StoredDocument | undefined {
    return this.readEntry(key)?.doc;
  }

  /** `bytes`: as read from LMDB, valid until the next read (getBinaryFast). */
  private decoded(key: Uint8Array, bytes: Buffer): StoredDocument {
    const cacheKey = cacheKeyOf(key);
    const cached = this.cache.lookup(cacheKey, bytes);
    if (cached) return cached;
    const raw = Buffer.copyBytesFrom(bytes, 0, bytes.length);
    const record = this.compression.unpack(raw);
    const doc = decodeDocument(record);
    this.cache.remember(cacheKey, raw, doc, record.length);
    return doc;
  }

  private assertOpen(): void {
    if (this.closed) throw new AppError('SHUTTING_DOWN', 'The LMDB store is closed');
  }
}

function pageOf<T>(docs: StoredDocument[], nextCursor?: string): Page<StoredDocument<T>> {
  return { items: docs as StoredDocument<T>[], ...(nextCursor ? { nextCursor } : {}) };
}

/** A write stamp: random, so that a stamp read before a delete and re-create never matches after. */
function newStamp(): number {
  return 1 + Math.floor(Math.random() * 2 ** 52);
}

/**
 * Data directories written before documents carried LMDB entry versions keep them in an
 * unversioned `docs` database. Moves them (each with a write stamp) in one synced transaction
 * (a second process doing the same at once finds nothing left to move).
 */
function migrateUnversionedDocs(root: RootDatabase, docs: Binary): void {
  // `create: false` (lmdb-js, not in its typings): undefined when the database does not exist.
  const options = { name: 'docs', create: false, keyEncoding: 'binary', encoding: 'binary' } as const;
  const legacy = root.openDB<Buffer, Buffer>(options) as Binary | undefined;
  // Emptied by an earlier start: nothing to move, so no write transaction (it takes the
  // cross-process writer lock). The database is not dropped: another process may have it open.
  if (!legacy || legacy.getKeysCount({ limit: 1 }) === 0) return;
  root.transactionSync(() => {
    for (const { key, value } of legacy.getRange()) {
      docs.put(key, value, newStamp());
      legacy.remove(key);
    }
  });
}

function cacheKeyOf(key: Uint8Array): string {
  return Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1');
}
