import { randomUUID } from 'node:crypto';
import { MongoClient, type MongoClientOptions } from 'mongodb';
import { AppError } from '../../kernel/errors/app-error.js';
import { deepFreeze } from '../../kernel/shared/deep-freeze.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type {
  CollectionSpec,
  CommitWrite,
  IndexQuery,
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
  pageLimit,
  requireCollection,
  requireIndex,
  versionConflict,
  type IndexCursor,
} from '../shared/store-helpers.js';
import { commitInTransaction } from './mongo-commit.helpers.js';
import type { CollectionLike, MongoDbLike, PendingJournal } from './mongo-db.types.js';
import { guarded, isDuplicateKey, translateMongoError } from './mongo-errors.helpers.js';
import { PENDING_PROJECTION, flushPending, pendingEntry } from './mongo-journal.helpers.js';
import {
  checkFilterValues,
  checkId,
  checkIndexValues,
  docsCollectionName,
  escapeName,
  expiredFilter,
  indexField,
  indexQueryClauses,
  journalCollectionName,
  journalKey,
  liveFilter,
  toJournalEntry,
  toPage,
  toStoredDocument,
  writeUpdate,
} from './mongo-mapping.helpers.js';

export interface MongoStoreOptions {
  db: MongoDbLike;
  clock: ClockPort;
  /** Prefix of every collection this store owns (default `store`). */
  prefix?: string;
  /** Told when a flush after a durable write failed; the entry stays pending and is repaired later. */
  onJournalFlushError?: (error: AppError) => void;
  /** Releases what the store owns (the client `connect` created). */
  release?: () => Promise<void>;
}

export interface MongoConnectOptions extends Omit<MongoStoreOptions, 'db' | 'release'> {
  url: string;
  dbName: string;
  /** Extra driver options (timeouts, TLS); durability settings below are applied last. */
  clientOptions?: MongoClientOptions;
}

/** Bounds the flush-then-retry loop of a CAS write that keeps missing. */
const MAX_CAS_ATTEMPTS = 4;

/**
 * The production store on MongoDB: one collection per store collection, CAS on a
 * `version` field, the journal in one shared collection, TTL by index plus read-time
 * filtering. A single `put` needs no transaction: its journal entry rides in the document
 * write and is copied after (see `mongo-journal.helpers.ts`). A `commit` of several
 * documents is one multi-document transaction (`mongo-commit.helpers.ts`).
 */
export class MongoStore implements StorePort {
  private readonly specs = new Map<string, CollectionSpec>();
  private readonly db: MongoDbLike;
  private readonly clock: ClockPort;
  private readonly prefix: string;
  private readonly journal: CollectionLike;

  constructor(private readonly options: MongoStoreOptions) {
    this.db = options.db;
    this.clock = options.clock;
    this.prefix = options.prefix ?? 'store';
    this.journal = this.db.collection(journalCollectionName(this.prefix));
  }

  /** Connects with majority reads and majority, journaled writes: a resolved put survives failover. */
  static async connect(options: MongoConnectOptions): Promise<MongoStore> {
    const client = new MongoClient(options.url, {
      ...options.clientOptions,
      writeConcern: { w: 'majority', journal: true },
      readConcern: { level: 'majority' },
      // Drop undefined properties as JSON and structuredClone-then-compare would, not store null.
      ignoreUndefined: true,
    });
    try {
      await client.connect();
    } catch (error) {
      await client.close().catch(() => undefined);
      throw translateMongoError(error, 'connect');
    }
    return new MongoStore({
      db: client.db(options.dbName),
      clock: options.clock,
      prefix: options.prefix,
      onJournalFlushError: options.onJournalFlushError,
      release: () => client.close(),
    });
  }

  async init(collections: CollectionSpec[]): Promise<void> {
    for (const spec of collections) this.specs.set(spec.name, spec);
    await guarded('init', async () => {
      for (const spec of collections) {
        const docs = this.docs(spec.name);
        for (const index of spec.indexes) {
          // `_id` second: pages are ordered by (value, id) and resume from that pair.
          await docs.createIndex({ [indexField(index)]: 1, _id: 1 }, { name: `idx_${escapeName(index)}` });
        }
        await docs.createIndex(
          { expiresAt: 1 },
          { name: 'ttl_expiresAt', expireAfterSeconds: 0, partialFilterExpression: { journalPending: false } },
        );
      }
      await this.journal.createIndex({ key: 1, seq: 1 }, { name: 'key_seq', unique: true });
    });
  }

  async get<T>(collection: string, id: string): Promise<StoredDocument<T> | null> {
    checkId(id);
    const docs = this.docs(collection);
    const raw = await guarded('get', () => docs.findOne({ _id: id, ...liveFilter(this.clock.now()) }));
    return raw ? toStoredDocument<T>(raw) : null;
  }

  async put<T>(collection: string, id: string, input: PutInput<T>, journal?: JournalEntryInput): Promise<StoredDocument<T>> {
    checkPut(this.specs, collection, input);
    checkId(id);
    checkIndexValues(input.indexes ?? {});
    const docs = this.docs(collection);
    const now = this.clock.now();
    const version = input.expectedVersion + 1;
    // Copied now: the caller may change its objects before the driver serializes them.
    const data = structuredClone(input.data);
    const entry: PendingJournal | undefined = journal && {
      seq: version,
      event: structuredClone(journal.event),
      state: structuredClone(journal.state),
      at: journal.at,
      token: randomUUID(),
    };
    const update = writeUpdate({ ...input, data }, version, now, entry);

    await this.compareAndSet(collection, id, input.expectedVersion, now, async () => {
      if (input.expectedVersion === 0) {
        // One atomic upsert covers all three cases: no document → inserted; an expired
        // one → matched and overwritten; a live one → the upsert's insert hits the _id
        // index (E11000), which is the version conflict.
        try {
          await docs.updateOne({ _id: id, journalPending: { $ne: true }, ...expiredFilter(now) }, update, {
            upsert: true,
          });
          return true;
        } catch (error) {
          if (isDuplicateKey(error)) return false;
          throw error;
        }
      }
      const filter = { _id: id, version: input.expectedVersion, ...liveFilter(now) };
      // A journaled write overwrites `lastJournal`, so it must not overwrite an unflushed one.
      const result = await docs.updateOne(entry ? { ...filter, journalPending: { $ne: true } } : filter, update);
      return result.matchedCount === 1;
    });

    if (entry) {
      // The write is durable with its entry; failing to copy the entry only delays it
      // (it stays pending and is repaired), so it must not fail a write that happened.
      await flushPending(this.journal, docs, collection, id, entry).catch((error: unknown) =>
        this.options.onJournalFlushError?.(translateMongoError(error, 'journal flush')),
      );
    }
    return deepFreeze({
      id,
      version,
      data,
      indexes: { ...(input.indexes ?? {}) },
      updatedAt: now,
      ...(input.expiresAt === undefined ? {} : { expiresAt: input.expiresAt }),
    });
  }

  async delete(collection: string, id: string, expectedVersion: number): Promise<void> {
    checkId(id);
    const docs = this.docs(collection);
    const now = this.clock.now();
    await this.compareAndSet(collection, id, expectedVersion, now, async () => {
      if (expectedVersion > 0) {
        const filter = { _id: id, version: expectedVersion, journalPending: { $ne: true }, ...liveFilter(now) };
        return (await docs.deleteOne(filter)).deletedCount === 1;
      }
      // Deleting "nothing" succeeds as in every adapter; an expired document goes on the
      // way unless its entry is pending (the sweep or a repair takes care of it then).
      await docs.deleteOne({ _id: id, journalPending: { $ne: true }, ...expiredFilter(now) });
      return (await docs.findOne({ _id: id, ...liveFilter(now) }, { projection: { _id: 1 } })) === null;
    });
  }

  /** One multi-document transaction (needs a replica set); see mongo-commit.helpers.ts. */
  async commit(writes: readonly CommitWrite[]): Promise<Array<StoredDocument | null>> {
    checkCommit(this.specs, writes);
    if (writes.length === 0) return [];
    const context = { db: this.db, journal: this.journal, docs: (name: string) => this.docs(name), now: this.clock.now() };
    return guarded('commit', () => commitInTransaction(context, writes));
  }

  async find<T>(collection: string, query: IndexQuery, page: PageRequest): Promise<Page<StoredDocument<T>>> {
    requireIndex(this.specs, collection, query.index);
    const docs = this.docs(collection);
    const cursor = page.cursor ? decodeCursor<IndexCursor>(page.cursor) : undefined;
    checkFilterValues(query, cursor);
    const limit = pageLimit(page.limit);
    const field = indexField(query.index);
    const raws = await guarded('find', () =>
      docs
        .find({ $and: [liveFilter(this.clock.now()), ...indexQueryClauses(query, cursor)] })
        // BSON orders numbers before strings, as compareIndexValues does.
        .sort({ [field]: 1, _id: 1 })
        .limit(limit + 1)
        .toArray(),
    );
    return toPage<T>(raws, limit, (last) => ({ value: last.indexes[query.index]!, id: last.id }));
  }

  async list<T>(collection: string, page: PageRequest): Promise<Page<StoredDocument<T>>> {
    const docs = this.docs(collection);
    const after = page.cursor ? decodeCursor<{ id: string }>(page.cursor).id : undefined;
    const limit = pageLimit(page.limit);
    const filter = liveFilter(this.clock.now());
    const raws = await guarded('list', () =>
      docs
        .find(after === undefined ? filter : { $and: [filter, { _id: { $gt: after } }] })
        .sort({ _id: 1 })
        .limit(limit + 1)
        .toArray(),
    );
    return toPage<T>(raws, limit, (last) => ({ id: last.id }));
  }

  async readJournal(collection: string, id: string, page: JournalPageRequest): Promise<JournalEntry[]> {
    checkId(id);
    const afterSeq = page.afterSeq ?? 0;
    if (typeof afterSeq !== 'number') throw AppError.validation(['afterSeq must be a number']);
    const docs = this.db.collection(docsCollectionName(this.prefix, collection));
    return guarded('readJournal', async () => {
      // Repair first: an entry whose flush never happened is still pending in the document.
      const pending = pendingEntry(await docs.findOne({ _id: id, journalPending: true }, { projection: PENDING_PROJECTION }));
      if (pending) await flushPending(this.journal, docs, collection, id, pending);
      const raws = await this.journal
        .find({ key: journalKey(collection, id), seq: { $gt: afterSeq } })
        .sort({ seq: 1 })
        .limit(pageLimit(page.limit))
        .toArray();
      return raws.map(toJournalEntry);
    });
  }

  async sweepExpired(): Promise<number> {
    const now = this.clock.now();
    let removed = 0;
    await guarded('sweepExpired', async () => {
      for (const name of this.specs.keys()) {
        const docs = this.docs(name);
        // Flush before deleting, or the sweep would drop entries a crash left pending.
        const pending = await docs.find({ ...expiredFilter(now), journalPending: true }).toArray();
        for (const raw of pending) {
          const entry = pendingEntry(raw);
          if (entry) await flushPending(this.journal, docs, name, String(raw._id), entry);
        }
        removed += (await docs.deleteMany({ ...expiredFilter(now), journalPending: { $ne: true } })).deletedCount;
      }
    });
    return removed;
  }

  /** Writes are acknowledged with `w: majority, journal: true`: durable when they resolve. */
  async durable(): Promise<void> {}

  async ping(): Promise<void> {
    await guarded('ping', async () => {
      if (this.db.command) await this.db.command({ ping: 1 });
      else await this.journal.findOne({ _id: '' });
    });
  }

  async close(): Promise<void> {
    await guarded('close', async () => this.options.release?.());
  }

  private docs(collection: string): CollectionLike {
    requireCollection(this.specs, collection);
    return this.db.collection(docsCollectionName(this.prefix, collection));
  }

  /**
   * Runs a conditional write; on a miss, reads the document to tell a real version
   * conflict from a pending journal entry that must be flushed before the retry.
   */
  private async compareAndSet(
    collection: string,
    id: string,
    expected: number,
    now: number,
    attempt: () => Promise<boolean>,
  ): Promise<void> {
    const docs = this.docs(collection);
    for (let attempts = 1; ; attempts++) {
      if (await guarded('write', attempt)) return;
      const current = await guarded('write', () => docs.findOne({ _id: id }, { projection: PENDING_PROJECTION }));
      const expiresAt = current?.expiresAt;
      const live = current !== null && !(expiresAt instanceof Date && expiresAt.getTime() <= now);
      const actual = live ? Number(current.version) : 0;
      if (actual !== expected || attempts >= MAX_CAS_ATTEMPTS) {
        throw versionConflict(collection, id, expected, actual);
      }
      const entry = pendingEntry(current);
      if (entry) await guarded('journal flush', () => flushPending(this.journal, docs, collection, id, entry));
    }
  }
}
