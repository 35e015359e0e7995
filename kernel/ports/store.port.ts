/**
 * Store port: versioned documents by collection, secondary indexes, cursor paging,
 * TTL expiry and an append-only journal per document. Every adapter passes
 * `test/contracts/store.contract.ts`.
 *
 * Committed and durable: a write resolves once it is committed, that is visible to every
 * reader (in this process and others) and kept if the process dies. Surviving the loss of
 * the machine (power, kernel) may take a disk flush more: `durable()` waits for it. Writes
 * become durable in the order they were committed, so one wait covers everything before it.
 * The service waits where something leaves it: before a mutating request is answered,
 * before a live venue broadcasts a transaction, before an event is published.
 *
 * Atomic units of work: `commit` applies compare-and-set puts and deletes over any documents
 * of any collections all or nothing, in one transaction of the store (LMDB: one write
 * transaction; MongoDB: one multi-document transaction).
 *
 * Documents returned by `get`, `put`, `commit`, `find` and `list` are deeply frozen: an adapter may
 * share one decoded document between readers (the embedded store decodes a version once),
 * so a caller copies what it wants to change.
 */

/** A value a document can be indexed under. Strings and numbers sort as in JavaScript. */
export type IndexValue = string | number;

export interface StoredDocument<T = unknown> {
  id: string;
  /** Starts at 1 on creation and grows by exactly 1 per write. */
  version: number;
  data: T;
  indexes: Record<string, IndexValue>;
  /** Epoch ms of the last write. */
  updatedAt: number;
  /** Epoch ms after which the document is gone (TTL); absent means never. */
  expiresAt?: number;
}

export interface PutInput<T = unknown> {
  data: T;
  /** 0 to create (fails if the id exists), otherwise the version the caller read. */
  expectedVersion: number;
  /** Values of the collection's declared indexes; undeclared names are refused. */
  indexes?: Record<string, IndexValue>;
  expiresAt?: number;
}

export interface JournalEntryInput {
  /** The event that was accepted. */
  event: unknown;
  /** The resulting state value (or any summary of it). */
  state: unknown;
  /** Epoch ms. */
  at: number;
}

export interface JournalEntry extends JournalEntryInput {
  /** Equals the document version the write produced, so an entry exists once per version. */
  seq: number;
}

/** One compare-and-set put of a `commit`: what `put` takes, addressed. */
export interface CommitPut<T = unknown> {
  op: 'put';
  collection: string;
  id: string;
  input: PutInput<T>;
  /** Written with the document (seq = its new version), only if the whole commit is. */
  journal?: JournalEntryInput;
}

/** One compare-and-set delete of a `commit`: what `delete` takes, addressed. */
export interface CommitDelete {
  op: 'delete';
  collection: string;
  id: string;
  /** The version read; 0 deletes nothing and only checks the id is absent (or expired). */
  expectedVersion: number;
}

export type CommitWrite<T = unknown> = CommitPut<T> | CommitDelete;

export interface IndexQuery {
  index: string;
  /** Exactly this value; or a range with `gte`/`lte` (inclusive). */
  eq?: IndexValue;
  gte?: IndexValue;
  lte?: IndexValue;
}

export interface PageRequest {
  limit: number;
  /** Opaque cursor from the previous page's `nextCursor`. */
  cursor?: string;
}

export interface Page<T> {
  items: T[];
  /** Present when more items may follow. */
  nextCursor?: string;
}

export interface JournalPageRequest {
  /** Return entries with `seq` greater than this (default 0). */
  afterSeq?: number;
  limit: number;
}

export interface CollectionSpec {
  name: string;
  /** Secondary index names; production adapters create them at start. */
  indexes: string[];
}

export interface StorePort {
  /** Declares collections and their indexes; called once before any other call. */
  init(collections: CollectionSpec[]): Promise<void>;

  /** The document, or null when it is absent or expired. */
  get<T>(collection: string, id: string): Promise<StoredDocument<T> | null>;

  /**
   * Compare-and-set write. With `journal`, the journal entry (seq = new version) is
   * written atomically with the document. Resolves once the write is committed.
   * Throws `AppError('VERSION_CONFLICT')` when the stored version is not `expectedVersion`.
   */
  put<T>(collection: string, id: string, input: PutInput<T>, journal?: JournalEntryInput): Promise<StoredDocument<T>>;

  /** CAS delete; the journal of the id is kept. Throws VERSION_CONFLICT on mismatch. */
  delete(collection: string, id: string, expectedVersion: number): Promise<void>;

  /**
   * Applies every write or none, atomically: readers (in this process and others) see all
   * of them or none of them, and so does a store reopened after the process died at any
   * point. Each write is a compare-and-set as `put` and `delete` are; when one does not
   * hold, nothing is written and it throws the `AppError('VERSION_CONFLICT')` `put` would
   * have thrown for that document (its `details` name the collection and id). A document
   * may appear once per commit. Resolves, once committed, with one entry per write in
   * order: the stored document of a put, null for a delete. An empty commit writes nothing.
   * Durability as for `put`: `durable()` waits for the flush.
   */
  commit(writes: readonly CommitWrite[]): Promise<Array<StoredDocument | null>>;

  /** Documents whose index matches, ordered by (index value, id), skipping expired ones. */
  find<T>(collection: string, query: IndexQuery, page: PageRequest): Promise<Page<StoredDocument<T>>>;

  /** All documents of a collection ordered by id. */
  list<T>(collection: string, page: PageRequest): Promise<Page<StoredDocument<T>>>;

  /** Journal entries of one document in seq order. */
  readJournal(collection: string, id: string, page: JournalPageRequest): Promise<JournalEntry[]>;

  /** Removes expired documents now; returns how many. Adapters also sweep on their own. */
  sweepExpired(): Promise<number>;

  /**
   * Resolves once every write this process committed before the call is durable: it
   * survives power loss as far as the disk honours a flush (with them, every commit of other
   * processes that came before them). Rejects when the store cannot say so in time. Adapters
   * whose writes resolve durable resolve at once.
   */
  durable(): Promise<void>;

  /** Resolves when the store answers; throws otherwise (used by /readyz). */
  ping(): Promise<void>;

  close(): Promise<void>;
}
