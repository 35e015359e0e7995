import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../support/manual-clock.adapter.js';
import { LmdbStore } from '../../../adapters/lmdb/lmdb-store.adapter.js';
import { MemoryStore } from '../../support/memory-store.adapter.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import type { StorePort } from '../../../kernel/ports/store.port.js';
import { conflictBackoffMs, isConcurrentUpdatesGaveUp, MAX_CONFLICT_BACKOFF_MS } from '../../../kernel/shared/conflict-backoff.js';
import { retryOnConflict, updateRecord, updateRecords, type RecordRef } from '../../../kernel/shared/record-update.js';

const SPECS = [
  { name: 'counters', indexes: ['owner'] },
  { name: 'balances', indexes: [] },
];
const counter: RecordRef = { collection: 'counters', id: 'c' };
const entry = (n: number) => ({ event: { type: 'counter.incremented', n }, state: 'counting', at: n });
type Count = { n: number };
const increment = (current: { data: Count } | null) => ({ data: { n: (current?.data.n ?? 0) + 1 }, indexes: { owner: 'u1' } });
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function memory(): Promise<StorePort> {
  const store = new MemoryStore(new ManualClock());
  await store.init(SPECS);
  return store;
}

async function lmdb(): Promise<StorePort> {
  const path = await mkdtemp(join(tmpdir(), 'record-update-'));
  const store = new LmdbStore({ path, clock: new ManualClock(), sweepIntervalMs: 3_600_000 });
  await store.init(SPECS);
  cleanups.push(async () => {
    await store.close();
    await rm(path, { recursive: true, force: true });
  });
  return store;
}

/** A store whose every write to `id` first loses to another writer (that writer's put lands). */
function alwaysOvertaken(store: StorePort, id: string): StorePort {
  const overtake = async (collection: string, version: number) => {
    const doc = await store.get(collection, id);
    if ((doc?.version ?? 0) === version) await store.put(collection, id, { data: doc?.data ?? { usd: 0 }, expectedVersion: version });
  };
  return Object.assign(Object.create(store) as StorePort, {
    put: async (...args: Parameters<StorePort['put']>) => {
      if (args[1] === id) await overtake(args[0], args[2].expectedVersion);
      return store.put(...args);
    },
    commit: async (writes: Parameters<StorePort['commit']>[0]) => {
      for (const w of writes) if (w.id === id && w.op === 'put') await overtake(w.collection, w.input.expectedVersion);
      return store.commit(writes);
    },
  });
}

describe('conflict backoff', () => {
  it('waits a random share of 1, 2, 4 ... ms, capped, from one function', () => {
    expect([0, 1, 3, 5, 6, 20].map((attempt) => conflictBackoffMs(attempt, () => 1))).toEqual([
      1,
      2,
      8,
      32,
      MAX_CONFLICT_BACKOFF_MS,
      MAX_CONFLICT_BACKOFF_MS,
    ]);
    expect(conflictBackoffMs(10, () => 0)).toBe(0);
    expect(conflictBackoffMs(4, () => 0.5)).toBe(8);
  });
});

describe('retryOnConflict', () => {
  it('retries only VERSION_CONFLICT, then gives up with the 409 naming the key', async () => {
    let calls = 0;
    const conflict = new AppError('VERSION_CONFLICT', 'Version conflict on wallets/w1: expected 1, found 2');
    const result = await retryOnConflict(
      () => 'wallets/w1',
      async () => (++calls < 3 ? Promise.reject(conflict) : 'done'),
      { backoff: async () => undefined },
    );
    expect({ result, calls }).toEqual({ result: 'done', calls: 3 });
    await expect(
      retryOnConflict(
        () => 'wallets/w1',
        () => Promise.reject(conflict),
        { maxAttempts: 4, backoff: async () => undefined },
      ),
    ).rejects.toMatchObject({
      code: 'RESOURCE_CONFLICT',
      message: 'Concurrent updates to wallets/w1: gave up after 4 attempts',
    });
    // Callers whose contract words a lost race otherwise catch exactly this give-up.
    const gaveUp = await retryOnConflict(
      () => 'wallets/w1',
      () => Promise.reject(conflict),
      { maxAttempts: 1 },
    ).catch((error: unknown) => error);
    expect(isConcurrentUpdatesGaveUp(gaveUp)).toBe(true);
    expect(isConcurrentUpdatesGaveUp(AppError.conflict('Wallet already connected'))).toBe(false);
    const other = new AppError('RESOURCE_NOT_FOUND', 'Wallet not found');
    calls = 0;
    await expect(
      retryOnConflict(
        () => 'wallets/w1',
        async () => {
          calls++;
          throw other;
        },
      ),
    ).rejects.toBe(other);
    expect(calls).toBe(1);
  });
});

for (const [name, open] of [
  ['MemoryStore', memory],
  ['LmdbStore', lmdb],
] as const) {
  describe(`updateRecord (${name})`, () => {
    it('creates an absent record, updates it with compare-and-set, leaves it, and deletes it', async () => {
      const store = await open();
      expect(await updateRecord<Count>(store, counter, (current) => ({ ...increment(current), journal: entry(1) }))).toMatchObject({
        doc: { version: 1, data: { n: 1 }, indexes: { owner: 'u1' } },
        changed: true,
      });
      expect(await updateRecord<Count>(store, counter, (current) => ({ ...increment(current), journal: entry(2) }))).toMatchObject({
        doc: { version: 2, data: { n: 2 } },
      });
      expect(await updateRecord<Count>(store, counter, () => null)).toMatchObject({ doc: { version: 2 }, changed: false });
      expect(await store.readJournal('counters', 'c', { limit: 5 })).toEqual([
        { seq: 1, ...entry(1) },
        { seq: 2, ...entry(2) },
      ]);
      expect(await updateRecord(store, counter, () => ({ delete: true }))).toEqual({ doc: null, changed: true });
      expect(await store.get('counters', 'c')).toBeNull();
      expect(await updateRecord(store, counter, () => ({ delete: true }))).toEqual({ doc: null, changed: false });
    });

    it('lands every one of many concurrent increments exactly once', async () => {
      const store = await open();
      const writers = 40;
      const results = await Promise.all(
        Array.from({ length: writers }, (_, w) =>
          updateRecord<Count>(store, counter, (current) => ({ ...increment(current), journal: entry(w) })),
        ),
      );
      expect(await store.get('counters', 'c')).toMatchObject({ version: writers, data: { n: writers } });
      // Each call reports the version its own write produced: all different, 1..writers.
      expect(results.map((r) => r.doc!.version).sort((a, b) => a - b)).toEqual(Array.from({ length: writers }, (_, i) => i + 1));
      const journal = await store.readJournal('counters', 'c', { limit: 100 });
      expect(new Set(journal.map((e) => (e.event as { n: number }).n)).size).toBe(writers);
    });

    it('throws what apply throws at once, writing nothing and not retrying', async () => {
      const store = await open();
      let calls = 0;
      const refusal = new AppError('INSUFFICIENT_BALANCE', 'Insufficient balance');
      await expect(
        updateRecord(store, counter, () => {
          calls++;
          throw refusal;
        }),
      ).rejects.toBe(refusal);
      expect(calls).toBe(1);
      expect(await store.get('counters', 'c')).toBeNull();
    });

    it('gives up after maxAttempts with the runtime 409, having backed off between attempts', async () => {
      const store = await open();
      await store.put('counters', 'c', { data: { n: 0 }, expectedVersion: 0 });
      const waits: number[] = [];
      const error = await updateRecord<Count>(alwaysOvertaken(store, 'c'), counter, increment, {
        maxAttempts: 3,
        backoff: async (attempt) => void waits.push(attempt),
      }).then(
        () => expect.fail('expected a 409'),
        (reason: unknown) => reason as AppError,
      );
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({
        code: 'RESOURCE_CONFLICT',
        kind: 'conflict',
        retryable: true,
        message: 'Concurrent updates to counters/c: gave up after 3 attempts',
      });
      expect(waits).toEqual([0, 1]);
      // Only the other writer's puts landed, never this update's.
      expect(await store.get('counters', 'c')).toMatchObject({ version: 4, data: { n: 0 } });
    });
  });

  describe(`updateRecords (${name})`, () => {
    const from: RecordRef = { collection: 'balances', id: 'from' };
    const to: RecordRef = { collection: 'balances', id: 'to' };
    const total: RecordRef = { collection: 'counters', id: 'transfers' };
    type Amount = { usd: number };
    const usd = (doc: { data: unknown } | null | undefined) => (doc?.data as Amount | undefined)?.usd ?? 0;
    const transfer =
      (amount: number) =>
      ([a, b, t]: Array<{ data: unknown } | null | undefined>) => {
        if (usd(a) < amount) throw new AppError('INSUFFICIENT_BALANCE', 'Insufficient balance');
        return [
          { data: { usd: usd(a) - amount } },
          { data: { usd: usd(b) + amount } },
          { data: { n: ((t?.data as Count | undefined)?.n ?? 0) + 1 } },
        ];
      };

    it('moves value between records in one commit, even under contention: nothing lost, nothing doubled', async () => {
      const store = await open();
      await store.put('balances', 'from', { data: { usd: 100 }, expectedVersion: 0 });
      const moves = 30;
      await Promise.all(Array.from({ length: moves }, () => updateRecords(store, [from, to, total], transfer(2))));
      expect(await store.get('balances', 'from')).toMatchObject({ version: moves + 1, data: { usd: 100 - 2 * moves } });
      expect(await store.get('balances', 'to')).toMatchObject({ version: moves, data: { usd: 2 * moves } });
      expect(await store.get('counters', 'transfers')).toMatchObject({ version: moves, data: { n: moves } });
    });

    it('returns every record as it now is, writes only what changed, and deletes', async () => {
      const store = await open();
      await store.put('balances', 'from', { data: { usd: 5 }, expectedVersion: 0 });
      await store.put('balances', 'to', { data: { usd: 1 }, expectedVersion: 0 });
      const result = await updateRecords(store, [from, to, total], ([a]) => [
        { data: { usd: usd(a) + 1 }, journal: entry(7) },
        null,
        undefined,
      ]);
      expect(result).toMatchObject({ changed: true, docs: [{ version: 2, data: { usd: 6 } }, { version: 1, data: { usd: 1 } }, null] });
      expect(await store.readJournal('balances', 'from', { limit: 5 })).toEqual([{ seq: 2, ...entry(7) }]);
      expect(await updateRecords(store, [from, to], () => [null, null])).toMatchObject({
        changed: false,
        docs: [{ version: 2 }, { version: 1 }],
      });
      expect(await updateRecords(store, [from, total], () => [{ delete: true }, { delete: true }])).toMatchObject({
        changed: true,
        docs: [null, null],
      });
      expect(await store.get('balances', 'from')).toBeNull();
    });

    it('writes none of the changes when apply refuses, and names the contended record when it gives up', async () => {
      const store = await open();
      await store.put('balances', 'from', { data: { usd: 1 }, expectedVersion: 0 });
      await expect(updateRecords(store, [from, to, total], transfer(2))).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
      expect(await store.get('balances', 'to')).toBeNull();
      await store.put('balances', 'from', { data: { usd: 10 }, expectedVersion: 1 });
      const error = await updateRecords(alwaysOvertaken(store, 'to'), [from, to, total], transfer(2), {
        maxAttempts: 2,
        backoff: async () => undefined,
      }).then(
        () => expect.fail('expected a 409'),
        (reason: unknown) => reason as AppError,
      );
      expect(error).toMatchObject({ code: 'RESOURCE_CONFLICT', message: 'Concurrent updates to balances/to: gave up after 2 attempts' });
      // All or nothing: `from` and the counter were not written either.
      expect(await store.get('balances', 'from')).toMatchObject({ version: 2, data: { usd: 10 } });
      expect(await store.get('counters', 'transfers')).toBeNull();
    });

    it('refuses a change list that does not match the records', async () => {
      const store = await open();
      await expect(updateRecords(store, [from, to], () => [null])).rejects.toMatchObject({ code: 'INTERNAL_SERVICE_ERROR' });
    });
  });
}
