import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { MongoClient, MongoNetworkError, MongoServerError } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { MemoryStore } from '../support/memory-store.adapter.js';
import { MongoStore } from '../../adapters/mongo/mongo-store.adapter.js';
import type { AppError } from '../../kernel/errors/app-error.js';
import type { IndexQuery, IndexValue, StorePort } from '../../kernel/ports/store.port.js';
import { storeContract } from '../contracts/store.contract.js';
import { MingoDb } from '../support/mingo-collection.js';

const JOURNAL = 'store.journal';
const SPECS = [{ name: 'agents.v1', indexes: ['owner', 'rank'] }];
const DOCS = 'store_agents~2ev1';
const entry = (n: number) => ({ event: { type: `e${n}` }, state: `s${n}`, at: n });

/** The AppError a call rejects with (fails the test if it resolves). */
function rejection(promise: Promise<unknown>): Promise<AppError> {
  return promise.then(
    () => expect.fail('expected a rejection'),
    (error: unknown) => error as AppError,
  );
}

/** A store over a fresh stand-in, plus what a test needs to look underneath it. */
async function standIn(clock = new ManualClock()) {
  const db = new MingoDb();
  const flushErrors: AppError[] = [];
  const store = new MongoStore({ db, clock, onJournalFlushError: (error) => flushErrors.push(error) });
  await store.init(SPECS);
  /** Another process starting on the same database (after this one died). */
  const restart = async () => {
    const next = new MongoStore({ db, clock });
    await next.init(SPECS);
    return next;
  };
  return { db, clock, store, flushErrors, restart };
}

storeContract('MongoStore (mingo stand-in)', async () => {
  const clock = new ManualClock();
  const store = new MongoStore({ db: new MingoDb(), clock });
  return { store, clock, cleanup: () => store.close() };
});

const MONGODB_URL = process.env.MONGODB_URL;
if (MONGODB_URL) {
  storeContract('MongoStore (real server)', async () => {
    const dbName = `store_test_${randomUUID().replaceAll('-', '')}`;
    // The server's TTL monitor uses its own wall clock: start the test clock after
    // it, so nothing the contract keeps "not yet expired" is removed underneath it.
    const clock = new ManualClock(Math.max(Date.now(), new ManualClock().now()) + 365 * 86_400_000);
    const store = await MongoStore.connect({ url: MONGODB_URL, dbName, clock });
    const cleanup = async () => {
      await store.close();
      const admin = new MongoClient(MONGODB_URL);
      try {
        await admin.db(dbName).dropDatabase();
      } finally {
        await admin.close();
      }
    };
    return { store, clock, cleanup };
  });
} else {
  describe.skip('Store contract: MongoStore (real server) — skipped: MONGODB_URL is not set', () => {
    // No server can run on the development machines; CI (or anyone with a server) sets
    // e.g. MONGODB_URL=mongodb://localhost:27017 to run the whole contract against it.
    it('runs the store contract against a real MongoDB', () => undefined);
  });
}

describe('MongoStore layout (stand-in)', () => {
  it('creates the (value, _id) index per declared index, a partial TTL index and the unique journal index', async () => {
    const { db } = await standIn();
    const keys = db.collection(DOCS).indexDefinitions();
    expect(keys).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ key: { 'idx.owner': 1, _id: 1 } }),
        expect.objectContaining({ key: { 'idx.rank': 1, _id: 1 } }),
        expect.objectContaining({
          key: { expiresAt: 1 },
          expireAfterSeconds: 0,
          partialFilterExpression: { journalPending: false },
        }),
      ]),
    );
    expect(db.collection(JOURNAL).indexDefinitions()).toContainEqual(expect.objectContaining({ key: { key: 1, seq: 1 }, unique: true }));
  });

  it('stores _id, version, data, idx and expiresAt as a BSON Date', async () => {
    const { db, store, clock } = await standIn();
    const expiresAt = clock.now() + 60_000;
    await store.put('agents.v1', 'a1', { data: { n: 1 }, expectedVersion: 0, indexes: { owner: 'o' }, expiresAt });
    const [raw] = db.collection(DOCS).snapshot();
    expect(raw).toMatchObject({ _id: 'a1', version: 1, data: { n: 1 }, idx: { owner: 'o' }, updatedAt: clock.now() });
    expect(raw?.expiresAt).toEqual(new Date(expiresAt));
  });
});

describe('MongoStore journal repair (stand-in)', () => {
  it('keeps an entry whose journal write never happened and repairs it on readJournal', async () => {
    const { db, store, flushErrors, restart } = await standIn();
    await store.put('agents.v1', 'a1', { data: { n: 1 }, expectedVersion: 0 }, entry(1));
    // The process "dies" between the CAS update and the journal upsert.
    db.failNext({ op: 'updateOne', collection: JOURNAL });
    const written = await store.put('agents.v1', 'a1', { data: { n: 2 }, expectedVersion: 1 }, entry(2));

    expect(written.version).toBe(2);
    expect(flushErrors.map((error) => error.code)).toEqual(['DEPENDENCY_UNAVAILABLE']);
    expect(
      db
        .collection(JOURNAL)
        .snapshot()
        .map((doc) => doc.seq),
    ).toEqual([1]);
    expect(db.collection(DOCS).snapshot()[0]).toMatchObject({ journalPending: true, lastJournal: { seq: 2 } });

    const restarted = await restart();
    expect(await restarted.readJournal('agents.v1', 'a1', { limit: 10 })).toEqual([
      { seq: 1, ...entry(1) },
      { seq: 2, ...entry(2) },
    ]);
    expect(db.collection(DOCS).snapshot()[0]).toMatchObject({ journalPending: false });
  });

  it('flushes a pending entry before the next journaled write replaces it', async () => {
    const { db, store } = await standIn();
    db.failNext({ op: 'updateOne', collection: JOURNAL });
    await store.put('agents.v1', 'a1', { data: {}, expectedVersion: 0 }, entry(1));
    await store.put('agents.v1', 'a1', { data: {}, expectedVersion: 1 }); // no journal: leaves it pending
    await store.put('agents.v1', 'a1', { data: {}, expectedVersion: 2 }, entry(3));
    // Without any readJournal repair, both entries are already in the journal.
    expect(
      db
        .collection(JOURNAL)
        .snapshot()
        .map((doc) => doc.seq),
    ).toEqual([1, 3]);
  });

  it('still reports a real conflict when the document also has a pending entry', async () => {
    const { db, store } = await standIn();
    db.failNext({ op: 'updateOne', collection: JOURNAL });
    await store.put('agents.v1', 'a1', { data: {}, expectedVersion: 0 }, entry(1));
    await expect(store.put('agents.v1', 'a1', { data: {}, expectedVersion: 7 }, entry(8))).rejects.toMatchObject({
      code: 'VERSION_CONFLICT',
      details: { expected: 7, actual: 1 },
    });
  });

  it('flushes a pending entry before a delete and keeps it', async () => {
    const { db, store } = await standIn();
    db.failNext({ op: 'updateOne', collection: JOURNAL });
    await store.put('agents.v1', 'a1', { data: {}, expectedVersion: 0 }, entry(1));
    await store.delete('agents.v1', 'a1', 1);
    expect(await store.get('agents.v1', 'a1')).toBeNull();
    expect(await store.readJournal('agents.v1', 'a1', { limit: 10 })).toEqual([{ seq: 1, ...entry(1) }]);
  });

  it('never lets the TTL monitor or the sweep drop a pending entry', async () => {
    const { db, store, clock } = await standIn();
    db.failNext({ op: 'updateOne', collection: JOURNAL });
    await store.put('agents.v1', 'a1', { data: {}, expectedVersion: 0, expiresAt: clock.now() + 1_000 }, entry(1));
    await clock.advance(5_000);
    expect(db.runTtlMonitor(clock.now())).toBe(0); // partial TTL index: pending documents stay
    expect(await store.sweepExpired()).toBe(1); // the sweep flushes, then deletes
    expect(db.collection(DOCS).snapshot()).toEqual([]);
    expect(await store.readJournal('agents.v1', 'a1', { limit: 10 })).toEqual([{ seq: 1, ...entry(1) }]);
  });

  it('lets the TTL monitor remove flushed expired documents', async () => {
    const { db, store, clock } = await standIn();
    await store.put('agents.v1', 'a1', { data: {}, expectedVersion: 0, expiresAt: clock.now() + 1_000 }, entry(1));
    await clock.advance(5_000);
    expect(db.runTtlMonitor(clock.now())).toBe(1);
  });
});

describe('MongoStore commit (stand-in transactions)', () => {
  const put = (id: string, expectedVersion: number, n: number, journal = true) =>
    ({
      op: 'put',
      collection: 'agents.v1',
      id,
      input: { data: { n }, expectedVersion },
      ...(journal ? { journal: entry(n) } : {}),
    }) as const;

  it('is one transaction that writes the documents and their journal entries, leaving nothing pending', async () => {
    const { db, store } = await standIn();
    await store.put('agents.v1', 'a1', { data: { n: 1 }, expectedVersion: 0 }, entry(1));
    await store.commit([put('a1', 1, 2), put('a2', 0, 3)]);
    expect(db.transactions).toEqual({ committed: 1, aborted: 0 });
    expect(
      db
        .collection(JOURNAL)
        .snapshot()
        .map((doc) => doc._id),
    ).toEqual(['agents.v1/a1/1', 'agents.v1/a1/2', 'agents.v1/a2/1']);
    expect(
      db
        .collection(DOCS)
        .snapshot()
        .map((doc) => doc.journalPending),
    ).toEqual([false, false]);
  });

  it('writes nothing when the driver fails in the middle of the commit', async () => {
    const { db, store } = await standIn();
    await store.put('agents.v1', 'a1', { data: { n: 1 }, expectedVersion: 0 }, entry(1));
    const before = { docs: db.collection(DOCS).snapshot(), journal: db.collection(JOURNAL).snapshot() };
    // The second write's journal entry fails: the first document and entry are already in the transaction.
    db.failNext({ op: 'updateOne', collection: JOURNAL });
    const error = await rejection(store.commit([put('a1', 1, 2, false), put('a2', 0, 3), put('a3', 0, 4)]));
    expect(error).toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE', retryable: true });
    expect(db.transactions).toEqual({ committed: 0, aborted: 1 });
    expect({ docs: db.collection(DOCS).snapshot(), journal: db.collection(JOURNAL).snapshot() }).toEqual(before);
  });

  it('copies an entry a single put left pending before the commit replaces the document', async () => {
    const { db, store } = await standIn();
    db.failNext({ op: 'updateOne', collection: JOURNAL });
    await store.put('agents.v1', 'a1', { data: { n: 1 }, expectedVersion: 0 }, entry(1));
    expect(db.collection(DOCS).snapshot()[0]).toMatchObject({ journalPending: true });
    await store.commit([put('a1', 1, 2)]);
    expect(
      db
        .collection(JOURNAL)
        .snapshot()
        .map((doc) => doc.seq),
    ).toEqual([1, 2]);
    expect(db.collection(DOCS).snapshot()[0]).toMatchObject({ journalPending: false, version: 2 });
    expect(await store.readJournal('agents.v1', 'a1', { limit: 5 })).toEqual([
      { seq: 1, ...entry(1) },
      { seq: 2, ...entry(2) },
    ]);
  });

  it('keeps single puts working beside commits: a put waits for a running transaction and loses its CAS to it', async () => {
    const { store } = await standIn();
    await store.put('agents.v1', 'a1', { data: { n: 1 }, expectedVersion: 0 });
    const [committed, single] = await Promise.allSettled([
      store.commit([put('a1', 1, 2)]),
      store.put('agents.v1', 'a1', { data: { n: 9 }, expectedVersion: 1 }, entry(9)),
    ]);
    expect(committed.status).toBe('fulfilled');
    expect(single).toMatchObject({ status: 'rejected', reason: { code: 'VERSION_CONFLICT' } });
    expect(await store.get('agents.v1', 'a1')).toMatchObject({ version: 2, data: { n: 2 } });
  });
});

describe('MongoStore driver errors (stand-in)', () => {
  it('turns network and not-primary errors into a retryable DEPENDENCY_UNAVAILABLE without leaking them', async () => {
    const { db, store } = await standIn();
    db.failNext({ op: 'findOne', error: new MongoNetworkError('connect ECONNREFUSED 10.0.0.7:27017') });
    const failure = await rejection(store.get('agents.v1', 'a1'));
    expect(failure).toMatchObject({ name: 'AppError', code: 'DEPENDENCY_UNAVAILABLE', kind: 'unavailable', retryable: true });
    expect(failure.message).not.toContain('10.0.0.7');
    expect(failure.cause).toBeInstanceOf(MongoNetworkError);

    db.failNext({ op: 'updateOne', error: new MongoServerError({ code: 10107, errmsg: 'not primary' }) });
    await expect(store.put('agents.v1', 'a1', { data: {}, expectedVersion: 0 })).rejects.toMatchObject({
      code: 'DEPENDENCY_UNAVAILABLE',
      retryable: true,
    });

    db.failNext({ op: 'command' });
    await expect(store.ping()).rejects.toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
  });

  it('turns other driver errors into a non-retryable internal error', async () => {
    const { db, store } = await standIn();
    db.failNext({ op: 'find', error: new MongoServerError({ code: 2, errmsg: 'BadValue: secret detail' }) });
    const failure = await rejection(store.list('agents.v1', { limit: 10 }));
    expect(failure).toMatchObject({ code: 'INTERNAL_SERVICE_ERROR', retryable: false });
    expect(failure.message).not.toContain('secret detail');
  });

  it('translates the real driver failing to reach a server', async () => {
    const failure = await rejection(
      MongoStore.connect({
        url: 'mongodb://127.0.0.1:9/',
        dbName: 'unreachable',
        clock: new ManualClock(),
        clientOptions: { serverSelectionTimeoutMS: 300 },
      }),
    );
    expect(failure).toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE', retryable: true });
    expect(failure.message).not.toContain('127.0.0.1');
  });

  it('answers ping when the stand-in does', async () => {
    const { store } = await standIn();
    await expect(store.ping()).resolves.toBeUndefined();
  });
});

describe('MongoStore index paging matches MemoryStore (stand-in)', () => {
  const value = fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constantFrom('', 'a', 'b', 'B', 'aa', '5'));
  const bound = fc.option(value, { nil: undefined });

  async function pages(store: StorePort, query: IndexQuery, limit: number): Promise<string[][]> {
    const out: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await store.find('agents.v1', query, { limit, cursor });
      out.push(page.items.map((item) => `${item.id}:${item.version}`));
      cursor = page.nextCursor;
    } while (cursor && out.length < 50);
    return out;
  }

  it('returns the same pages for mixed number/string values, eq and range bounds', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.option(value, { nil: undefined }), { minLength: 0, maxLength: 12 }),
        fc.record({ eq: bound, gte: bound, lte: bound }),
        fc.integer({ min: 1, max: 4 }),
        async (values, bounds, limit) => {
          const clock = new ManualClock();
          const memory = new MemoryStore(clock);
          await memory.init(SPECS);
          const { store } = await standIn(clock);
          for (const [i, rank] of values.entries()) {
            const indexes: Record<string, IndexValue> = rank === undefined ? {} : { rank };
            for (const target of [memory, store] as StorePort[]) {
              await target.put('agents.v1', `id${i % 7}`, { data: {}, expectedVersion: Math.floor(i / 7), indexes });
            }
          }
          const query: IndexQuery = { index: 'rank', ...bounds };
          expect(await pages(store, query, limit)).toEqual(await pages(memory, query, limit));
        },
      ),
      { numRuns: 150 },
    );
  });
});
