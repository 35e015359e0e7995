/**
 * The slice of the MongoDB driver the Mongo store calls. The real `Db` satisfies it
 * structurally, and so does the `mingo`-based stand-in the tests use when no server is
 * reachable; nothing outside `adapters/mongo` sees a driver type.
 */

/** A BSON document as the store reads and writes it. */
export type MongoDoc = Record<string, unknown>;

export interface UpdateResultLike {
  matchedCount: number;
  upsertedCount: number;
}

export interface DeleteResultLike {
  deletedCount: number;
}

export interface FindCursorLike {
  sort(spec: Record<string, 1 | -1>): FindCursorLike;
  limit(n: number): FindCursorLike;
  toArray(): Promise<MongoDoc[]>;
}

export interface CreateIndexOptionsLike {
  name?: string;
  unique?: boolean;
  expireAfterSeconds?: number;
  partialFilterExpression?: MongoDoc;
}

/** Runs inside the session's transaction when passed to a collection call. */
export interface InSession {
  session?: SessionLike;
}

export interface CollectionLike {
  findOne(filter: MongoDoc, options?: { projection?: MongoDoc } & InSession): Promise<MongoDoc | null>;
  find(filter: MongoDoc): FindCursorLike;
  updateOne(filter: MongoDoc, update: MongoDoc, options?: { upsert?: boolean } & InSession): Promise<UpdateResultLike>;
  deleteOne(filter: MongoDoc, options?: InSession): Promise<DeleteResultLike>;
  deleteMany(filter: MongoDoc): Promise<DeleteResultLike>;
  createIndex(spec: Record<string, 1 | -1>, options?: CreateIndexOptionsLike): Promise<string>;
}

export interface TransactionOptionsLike {
  readConcern?: { level: 'snapshot' | 'majority' };
  writeConcern?: { w?: 'majority' | number; journal?: boolean };
}

/** A client session (`ClientSession`): multi-document transactions. */
export interface SessionLike {
  /**
   * Runs `fn` in a transaction and commits it; aborts it when `fn` throws (and rethrows).
   * The driver runs `fn` again on a transient error (a write conflict with another transaction).
   */
  withTransaction<T>(fn: () => Promise<T>, options?: TransactionOptionsLike): Promise<T>;
  endSession(): Promise<void>;
}

export interface MongoDbLike {
  collection(name: string): CollectionLike;
  /** The client (`Db.client`): where sessions, hence transactions, come from. */
  readonly client?: { startSession(): SessionLike };
  /** Admin commands (`{ping: 1}`); a stand-in may leave it out. */
  command?(command: MongoDoc): Promise<MongoDoc>;
}

/** A journal entry as it is pending in its document and as it is stored in the journal. */
export interface JournalRecord {
  seq: number;
  event: unknown;
  state: unknown;
  at: number;
}

/** `lastJournal` as stored: the entry plus the token of the write that produced it. */
export interface PendingJournal extends JournalRecord {
  token: string;
}

/** One store document in its Mongo collection. */
export interface StoreDocRecord {
  _id: string;
  version: number;
  data: unknown;
  /** Index values under escaped index names (see `escapeName`). */
  idx: Record<string, string | number>;
  updatedAt: number;
  /** A BSON Date so the TTL index can act on it. */
  expiresAt?: Date;
  /** The entry of the last journaled write; kept after it is flushed. */
  lastJournal?: PendingJournal;
  /** True from the CAS write that set `lastJournal` until it is in the journal collection. */
  journalPending: boolean;
}

/** One journal entry in the shared journal collection. */
export interface JournalDocRecord extends JournalRecord {
  /** `<collection>/<id>/<seq>`, each part escaped: deterministic, so a flush is idempotent. */
  _id: string;
  /** `<collection>/<id>`, escaped. */
  key: string;
}
