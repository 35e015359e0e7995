/**
 * A stand-in for the few MongoDB `Collection` methods the Mongo store calls, built on
 * `mingo` (MongoDB's query and update language for plain objects), so the store's
 * filters, updates, sorts and duplicate-key handling run in every test even though no
 * server can run here. It is a supplement to a real server, never a replacement: it has
 * no concurrency, no write or read concerns and no query planner.
 *
 * Server behaviour it does copy, because the store depends on it: documents go through
 * BSON on the way in (undefined dropped, as `ignoreUndefined` does), unique indexes
 * (including `_id`) refuse writes with an E11000 `MongoServerError`, an upsert seeds the
 * new document from the filter's equality fields, `$setOnInsert` applies only on insert,
 * two operators on one path conflict, and a TTL index (with its partial filter) removes
 * documents when `runTtlMonitor` is called. Tests can make the next call fail.
 *
 * Transactions (`db.client.startSession().withTransaction(fn)`, calls given `{session}`) are
 * all or nothing: when `fn` throws, every collection is put back as it was when the
 * transaction started. They are stricter than a server's: one runs at a time, and every call
 * outside it waits until it has committed or aborted, so nobody sees its writes early (a
 * server isolates by snapshot and makes conflicting transactions retry instead).
 */
import { find, Query, update } from 'mingo';
import { BSON, MongoNetworkError, MongoServerError, ObjectId } from 'mongodb';
import type {
  CollectionLike,
  CreateIndexOptionsLike,
  DeleteResultLike,
  FindCursorLike,
  InSession,
  MongoDbLike,
  MongoDoc,
  SessionLike,
  UpdateResultLike,
} from '../../adapters/mongo/mongo-db.types.js';

export type MingoOperation = 'findOne' | 'find' | 'updateOne' | 'deleteOne' | 'deleteMany' | 'createIndex' | 'command';

export interface MingoFault {
  op: MingoOperation;
  /** Only calls on this collection; any collection when absent. */
  collection?: string;
  /** What the call throws; a network error when absent. */
  error?: unknown;
  /** How many matching calls fail (default 1). */
  times?: number;
}

interface IndexDef {
  name: string;
  key: Record<string, 1 | -1>;
  unique: boolean;
  expireAfterSeconds?: number;
  partialFilterExpression?: MongoDoc;
}

/** The database: named collections created on first use, plus fault injection. */
export class MingoDb implements MongoDbLike {
  private readonly collections = new Map<string, MingoCollection>();
  private faults: Array<Required<Pick<MingoFault, 'op' | 'times'>> & MingoFault> = [];
  private transaction: { session: MingoSession; done: Promise<void> } | undefined;
  /** How many transactions committed and aborted (for assertions). */
  readonly transactions = { committed: 0, aborted: 0 };

  /** The client of this database, as `Db.client`: where sessions come from. */
  get client(): { startSession(): MingoSession } {
    return { startSession: () => new MingoSession(this) };
  }

  collection(name: string): MingoCollection {
    let collection = this.collections.get(name);
    if (!collection) {
      collection = new MingoCollection(this, name);
      this.collections.set(name, collection);
    }
    return collection;
  }

  async command(command: MongoDoc): Promise<MongoDoc> {
    this.checkFault('command', undefined);
    if ('ping' in command) return { ok: 1 };
    throw new MongoServerError({ code: 59, errmsg: `no such command: '${Object.keys(command)[0]}'` });
  }

  /** Makes the next matching call(s) throw before they do anything. */
  failNext(fault: MingoFault): void {
    this.faults.push({ ...fault, times: fault.times ?? 1 });
  }

  collectionNames(): string[] {
    return [...this.collections.keys()];
  }

  /** One pass of the server's TTL monitor at `now` (the real one runs every 60 s). */
  runTtlMonitor(now: number): number {
    let removed = 0;
    for (const collection of this.collections.values()) removed += collection.expire(now);
    return removed;
  }

  /**
   * @internal Whether a call of `session` (or of none) must wait for the running transaction
   * (`waitForTransaction`). Callers loop on it with nothing awaited between its last false
   * and their work, so no transaction can start in between.
   */
  mustWait(session: SessionLike | undefined): boolean {
    return this.transaction !== undefined && this.transaction.session !== session;
  }

  /** @internal Resolves when the running transaction has committed or aborted. */
  waitForTransaction(): Promise<void> {
    return this.transaction?.done ?? Promise.resolve();
  }

  /** @internal Runs `fn` as the only transaction; puts every collection back if it throws. */
  async runTransaction<T>(session: MingoSession, fn: () => Promise<T>): Promise<T> {
    // Checked and taken with no await in between, or two could start at once.
    while (this.transaction) await this.transaction.done;
    let release!: () => void;
    this.transaction = { session, done: new Promise<void>((resolve) => (release = resolve)) };
    const before = new Map([...this.collections].map(([name, collection]) => [name, collection.state()]));
    try {
      const result = await fn();
      this.transactions.committed++;
      return result;
    } catch (error) {
      for (const [name, collection] of this.collections) collection.restore(before.get(name) ?? []);
      this.transactions.aborted++;
      throw error;
    } finally {
      this.transaction = undefined;
      release();
    }
  }

  /** @internal Throws if a fault was armed for this call. */
  checkFault(op: MingoOperation, collection: string | undefined): void {
    const fault = this.faults.find((f) => f.op === op && (f.collection === undefined || f.collection === collection));
    if (!fault) return;
    fault.times -= 1;
    if (fault.times <= 0) this.faults = this.faults.filter((f) => f !== fault);
    throw fault.error ?? new MongoNetworkError(`stand-in: connection reset during ${op}`);
  }
}

/** A client session: transactions only (no causal consistency to speak of in one process). */
export class MingoSession implements SessionLike {
  constructor(private readonly db: MingoDb) {}

  withTransaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.db.runTransaction(this, fn);
  }

  async endSession(): Promise<void> {}
}

export class MingoCollection implements CollectionLike {
  private docs: MongoDoc[] = [];
  private readonly indexes: IndexDef[] = [{ name: '_id_', key: { _id: 1 }, unique: true }];

  constructor(
    private readonly db: MingoDb,
    readonly name: string,
  ) {}

  async findOne(filter: MongoDoc, options: { projection?: MongoDoc } & InSession = {}): Promise<MongoDoc | null> {
    this.db.checkFault('findOne', this.name);
    while (this.db.mustWait(options.session)) await this.db.waitForTransaction();
    const [doc] = find(this.docs, filter, options.projection).limit(1).all() as MongoDoc[];
    return doc ? structuredClone(doc) : null;
  }

  find(filter: MongoDoc): FindCursorLike {
    let sort: Record<string, 1 | -1> | undefined;
    let limit: number | undefined;
    const cursor: FindCursorLike = {
      sort: (spec) => {
        sort = spec;
        return cursor;
      },
      limit: (n) => {
        limit = n;
        return cursor;
      },
      toArray: async () => {
        this.db.checkFault('find', this.name);
        while (this.db.mustWait(undefined)) await this.db.waitForTransaction();
        let result = find(this.docs, filter);
        if (sort) result = result.sort(sort);
        if (limit !== undefined && limit > 0) result = result.limit(limit);
        return (result.all() as MongoDoc[]).map((doc) => structuredClone(doc));
      },
    };
    return cursor;
  }

  async updateOne(filter: MongoDoc, modifier: MongoDoc, options: { upsert?: boolean } & InSession = {}): Promise<UpdateResultLike> {
    this.db.checkFault('updateOne', this.name);
    while (this.db.mustWait(options.session)) await this.db.waitForTransaction();
    checkOperators(modifier);
    const query = new Query(filter, {});
    const position = this.docs.findIndex((doc) => query.test(doc));
    const current = this.docs[position];
    if (current) {
      const next = structuredClone(current);
      applyUpdate(next, modifier, false);
      if (bsonKey([next._id]) !== bsonKey([current._id])) {
        throw new MongoServerError({ code: 66, errmsg: "Performing an update on the path '_id' would modify the immutable field '_id'" });
      }
      this.docs[position] = this.checked(next, current);
      return { matchedCount: 1, upsertedCount: 0 };
    }
    if (!options.upsert) return { matchedCount: 0, upsertedCount: 0 };
    const inserted = equalityFields(filter);
    applyUpdate(inserted, modifier, true);
    if (inserted._id === undefined) inserted._id = new ObjectId();
    this.docs.push(this.checked(inserted, undefined));
    return { matchedCount: 0, upsertedCount: 1 };
  }

  async deleteOne(filter: MongoDoc, options: InSession = {}): Promise<DeleteResultLike> {
    this.db.checkFault('deleteOne', this.name);
    while (this.db.mustWait(options.session)) await this.db.waitForTransaction();
    const query = new Query(filter, {});
    const position = this.docs.findIndex((doc) => query.test(doc));
    if (position < 0) return { deletedCount: 0 };
    this.docs.splice(position, 1);
    return { deletedCount: 1 };
  }

  async deleteMany(filter: MongoDoc): Promise<DeleteResultLike> {
    this.db.checkFault('deleteMany', this.name);
    while (this.db.mustWait(undefined)) await this.db.waitForTransaction();
    const query = new Query(filter, {});
    const before = this.docs.length;
    this.docs = this.docs.filter((doc) => !query.test(doc));
    return { deletedCount: before - this.docs.length };
  }

  async createIndex(key: Record<string, 1 | -1>, options: CreateIndexOptionsLike = {}): Promise<string> {
    this.db.checkFault('createIndex', this.name);
    const def: IndexDef = {
      name:
        options.name ??
        Object.entries(key)
          .map(([field, dir]) => `${field}_${dir}`)
          .join('_'),
      key,
      unique: options.unique ?? false,
      ...(options.expireAfterSeconds === undefined ? {} : { expireAfterSeconds: options.expireAfterSeconds }),
      ...(options.partialFilterExpression ? { partialFilterExpression: options.partialFilterExpression } : {}),
    };
    const existing = this.indexes.find((index) => index.name === def.name);
    if (existing) {
      // Re-creating an identical index is a no-op on a server; a different one is refused.
      if (JSON.stringify(existing) === JSON.stringify(def)) return def.name;
      throw new MongoServerError({ code: 85, errmsg: `An existing index has the same name as the requested index: ${def.name}` });
    }
    if (def.unique) {
      const seen = new Set<string>();
      for (const doc of this.docs) {
        const value = indexKeyOf(def, doc);
        if (seen.has(value)) throw duplicateKey(this.name, def);
        seen.add(value);
      }
    }
    this.indexes.push(def);
    return def.name;
  }

  /** Stored documents as they are now (for assertions on the raw layout). */
  snapshot(): MongoDoc[] {
    return this.docs.map((doc) => structuredClone(doc));
  }

  /** @internal The stored documents, to put back when a transaction aborts (documents are replaced, never changed in place). */
  state(): MongoDoc[] {
    return [...this.docs];
  }

  /** @internal */
  restore(docs: MongoDoc[]): void {
    this.docs = docs;
  }

  indexDefinitions(): IndexDef[] {
    return structuredClone(this.indexes);
  }

  /** @internal One TTL pass over this collection. */
  expire(now: number): number {
    const before = this.docs.length;
    for (const index of this.indexes) {
      if (index.expireAfterSeconds === undefined) continue;
      const field = Object.keys(index.key)[0]!;
      const partial = index.partialFilterExpression ? new Query(index.partialFilterExpression, {}) : undefined;
      this.docs = this.docs.filter((doc) => {
        const value = valueAt(doc, field);
        const due = value instanceof Date && value.getTime() + index.expireAfterSeconds! * 1000 < now;
        return !(due && (!partial || partial.test(doc)));
      });
    }
    return before - this.docs.length;
  }

  /** BSON round trip (what the server would store) and unique-index enforcement. */
  private checked(doc: MongoDoc, replacing: MongoDoc | undefined): MongoDoc {
    const stored = BSON.deserialize(BSON.serialize(doc, { ignoreUndefined: true })) as MongoDoc;
    for (const index of this.indexes.filter((i) => i.unique)) {
      const key = indexKeyOf(index, stored);
      if (this.docs.some((other) => other !== replacing && indexKeyOf(index, other) === key)) {
        throw duplicateKey(this.name, index);
      }
    }
    return stored;
  }
}

function duplicateKey(collection: string, index: IndexDef): MongoServerError {
  return new MongoServerError({
    code: 11000,
    errmsg: `E11000 duplicate key error collection: ${collection} index: ${index.name}`,
    keyPattern: index.key,
  });
}

/** Keys of stored documents, which are never mutated in place (a write replaces the object). */
const keyCache = new WeakMap<MongoDoc, Map<string, string>>();

/** The index key of a document; a missing field is indexed as null, as on a server. */
function indexKeyOf(index: IndexDef, doc: MongoDoc): string {
  let keys = keyCache.get(doc);
  if (!keys) {
    keys = new Map();
    keyCache.set(doc, keys);
  }
  let key = keys.get(index.name);
  if (key === undefined) {
    key = bsonKey(Object.keys(index.key).map((field) => valueAt(doc, field) ?? null));
    keys.set(index.name, key);
  }
  return key;
}

/** Equal BSON values give equal keys (1 and 1.0 included, as both are one JS number). */
function bsonKey(values: unknown[]): string {
  return Buffer.from(BSON.serialize({ v: values })).toString('base64');
}

function valueAt(doc: MongoDoc, path: string): unknown {
  let value: unknown = doc;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as MongoDoc)[part];
  }
  return value;
}

const SUPPORTED_OPERATORS = new Set(['$set', '$unset', '$setOnInsert', '$inc']);

/** Refuses what a server refuses: unknown operators and two operators touching one path. */
function checkOperators(modifier: MongoDoc): void {
  const paths: string[] = [];
  for (const [operator, fields] of Object.entries(modifier)) {
    if (!SUPPORTED_OPERATORS.has(operator)) {
      throw new MongoServerError({ code: 9, errmsg: `stand-in does not support update operator ${operator}` });
    }
    paths.push(...Object.keys(fields as MongoDoc));
  }
  for (const a of paths) {
    for (const b of paths) {
      if (a !== b && (a.startsWith(`${b}.`) || b.startsWith(`${a}.`))) {
        throw new MongoServerError({ code: 40, errmsg: `Updating the path '${a}' would create a conflict at '${b}'` });
      }
    }
  }
  if (new Set(paths).size !== paths.length) {
    throw new MongoServerError({ code: 40, errmsg: 'Updating the same path twice would create a conflict' });
  }
}

function applyUpdate(doc: MongoDoc, modifier: MongoDoc, inserting: boolean): void {
  const { $setOnInsert, ...rest } = modifier as { $setOnInsert?: MongoDoc } & MongoDoc;
  // mingo has no $setOnInsert: on insert it is a $set, otherwise nothing.
  if (inserting && $setOnInsert) update(doc, { $set: $setOnInsert }, undefined, undefined, { cloneMode: 'deep' });
  if (Object.keys(rest).length > 0) update(doc, rest, undefined, undefined, { cloneMode: 'deep' });
}

/** The document an upsert starts from: the filter's top-level equality conditions. */
function equalityFields(filter: MongoDoc): MongoDoc {
  const seed: MongoDoc = {};
  for (const [field, condition] of Object.entries(filter)) {
    if (field.startsWith('$')) continue;
    const isOperator =
      condition !== null &&
      typeof condition === 'object' &&
      !(condition instanceof Date) &&
      Object.keys(condition).some((key) => key.startsWith('$'));
    if (isOperator) continue;
    // By hand: mingo's $set refuses `_id`, which an upsert must seed.
    const parts = field.split('.');
    let target = seed;
    for (const part of parts.slice(0, -1)) {
      target[part] ??= {};
      target = target[part] as MongoDoc;
    }
    target[parts[parts.length - 1]!] = structuredClone(condition);
  }
  return seed;
}
