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
  compareIndexValues,
  decodeCursor,
  encodeCursor,
  matchesIndexQuery,
  pageLimit,
  requireCollection,
  requireIndex,
  versionConflict,
  type IndexCursor,
} from '../../adapters/shared/store-helpers.js';
import { deepFreeze } from '../../kernel/shared/deep-freeze.js';

/**
 * A store that keeps everything on the heap and forgets it on exit. It is the
 * baseline of the runtime benchmarks and a fast store for unit tests; it is never a
 * profile's store. Documents are copied once when written and shared, deeply frozen,
 * with every reader (StorePort).
 */
export class MemoryStore implements StorePort {
  private specs = new Map<string, CollectionSpec>();
  private docs = new Map<string, Map<string, StoredDocument>>();
  private journals = new Map<string, JournalEntry[]>();

  constructor(private readonly clock: ClockPort) {}

  async init(collections: CollectionSpec[]): Promise<void> {
    for (const spec of collections) {
      this.specs.set(spec.name, spec);
      if (!this.docs.has(spec.name)) this.docs.set(spec.name, new Map());
    }
  }

  async get<T>(collection: string, id: string): Promise<StoredDocument<T> | null> {
    const doc = this.collection(collection).get(id);
    if (!doc || this.expired(doc)) return null;
    return doc as StoredDocument<T>;
  }

  async put<T>(collection: string, id: string, input: PutInput<T>, journal?: JournalEntryInput): Promise<StoredDocument<T>> {
    checkPut(this.specs, collection, input);
    this.check(collection, id, input.expectedVersion);
    return this.write(collection, id, input, journal) as StoredDocument<T>;
  }

  async delete(collection: string, id: string, expectedVersion: number): Promise<void> {
    this.check(collection, id, expectedVersion);
    this.collection(collection).delete(id);
  }

  /** Every check before any write, all in one synchronous run: nothing can come in between. */
  async commit(writes: readonly CommitWrite[]): Promise<Array<StoredDocument | null>> {
    checkCommit(this.specs, writes);
    for (const w of writes) this.check(w.collection, w.id, w.op === 'put' ? w.input.expectedVersion : w.expectedVersion);
    // Copies taken before the first write, so a value that cannot be cloned fails the whole commit.
    const copies = writes.map((w) => (w.op === 'put' ? structuredClone({ data: w.input.data, journal: w.journal }) : undefined));
    return writes.map((w, i) => {
      if (w.op === 'delete') {
        this.collection(w.collection).delete(w.id);
        return null;
      }
      return this.write(w.collection, w.id, { ...w.input, data: copies[i]!.data }, copies[i]!.journal);
    });
  }

  /** Throws the VERSION_CONFLICT of a write whose expected version is not the stored one. */
  private check(collection: string, id: string, expectedVersion: number): void {
    const current = this.collection(collection).get(id);
    const currentVersion = current && !this.expired(current) ? current.version : 0;
    if (currentVersion !== expectedVersion) {
      throw versionConflict(collection, id, expectedVersion, currentVersion);
    }
  }

  /** Writes a checked put. */
  private write(collection: string, id: string, input: PutInput, journal: JournalEntryInput | undefined): StoredDocument {
    const docs = this.collection(collection);
    const currentVersion = input.expectedVersion;
    const doc: StoredDocument = deepFreeze({
      id,
      version: currentVersion + 1,
      data: structuredClone(input.data),
      indexes: { ...(input.indexes ?? {}) },
      updatedAt: this.clock.now(),
      ...(input.expiresAt === undefined ? {} : { expiresAt: input.expiresAt }),
    });
    docs.set(id, doc);
    const key = `${collection}/${id}`;
    // A re-created id starts a new history, so seq keeps equalling version (as in every adapter).
    if (currentVersion === 0) this.journals.delete(key);
    if (journal) {
      const entries = this.journals.get(key) ?? [];
      entries.push(structuredClone({ ...journal, seq: doc.version }));
      this.journals.set(key, entries);
    }
    return doc;
  }

  async find<T>(collection: string, query: IndexQuery, page: PageRequest): Promise<Page<StoredDocument<T>>> {
    requireIndex(this.specs, collection, query.index);
    const after = page.cursor ? decodeCursor<IndexCursor>(page.cursor) : undefined;
    const matches = [...this.collection(collection).values()]
      .filter((doc) => !this.expired(doc) && matchesIndexQuery(doc.indexes[query.index], query))
      .map((doc) => ({ doc, value: doc.indexes[query.index]! }))
      .sort((a, b) => compareIndexValues(a.value, b.value) || compareIds(a.doc.id, b.doc.id))
      .filter(
        ({ doc, value }) =>
          !after ||
          compareIndexValues(value, after.value) > 0 ||
          (compareIndexValues(value, after.value) === 0 && compareIds(doc.id, after.id) > 0),
      );
    const limit = pageLimit(page.limit);
    const items = matches.slice(0, limit);
    const last = items[items.length - 1];
    return {
      items: items.map(({ doc }) => doc as StoredDocument<T>),
      ...(matches.length > limit && last ? { nextCursor: encodeCursor({ value: last.value, id: last.doc.id }) } : {}),
    };
  }

  async list<T>(collection: string, page: PageRequest): Promise<Page<StoredDocument<T>>> {
    const after = page.cursor ? decodeCursor<{ id: string }>(page.cursor).id : undefined;
    const all = [...this.collection(collection).values()]
      .filter((doc) => !this.expired(doc) && (after === undefined || compareIds(doc.id, after) > 0))
      .sort((a, b) => compareIds(a.id, b.id));
    const limit = pageLimit(page.limit);
    const items = all.slice(0, limit);
    const last = items[items.length - 1];
    return {
      items: items as StoredDocument<T>[],
      ...(all.length > limit && last ? { nextCursor: encodeCursor({ id: last.id }) } : {}),
    };
  }

  async readJournal(collection: string, id: string, page: JournalPageRequest): Promise<JournalEntry[]> {
    const afterSeq = page.afterSeq ?? 0;
    return (this.journals.get(`${collection}/${id}`) ?? [])
      .filter((entry) => entry.seq > afterSeq)
      .slice(0, pageLimit(page.limit))
      .map((entry) => structuredClone(entry));
  }

  async sweepExpired(): Promise<number> {
    let removed = 0;
    for (const docs of this.docs.values()) {
      for (const [id, doc] of docs) {
        if (this.expired(doc)) {
          docs.delete(id);
          removed++;
        }
      }
    }
    return removed;
  }

  /** Nothing here outlives the process: a write is as durable as it gets when it resolves. */
  async durable(): Promise<void> {}

  async ping(): Promise<void> {}

  async close(): Promise<void> {}

  private collection(name: string): Map<string, StoredDocument> {
    requireCollection(this.specs, name);
    return this.docs.get(name)!;
  }

  private expired(doc: StoredDocument): boolean {
    return doc.expiresAt !== undefined && doc.expiresAt <= this.clock.now();
  }
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
