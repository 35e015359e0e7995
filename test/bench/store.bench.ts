/**
 * Store write throughput: put + journal entry, one key written sequentially (every write
 * waits for the previous one: one commit per write) versus 1,000 distinct keys written
 * concurrently (lmdb-js folds the writes of one event turn into one transaction: group
 * commit). LmdbStore commits durably (fdatasync before the put resolves); MemoryStore is
 * the in-heap ceiling. A third case writes units of work of COMMIT_SIZE documents, one
 * `commit` each, one after the other (what a swap's step does), to set against the first.
 * Run: `npm run bench:store`. Prints figures only.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SystemClock } from '../../adapters/clock/system-clock.adapter.js';
import { LmdbStore } from '../../adapters/lmdb/lmdb-store.adapter.js';
import { MemoryStore } from '../support/memory-store.adapter.js';
import type { StorePort } from '../../kernel/ports/store.port.js';

const COLLECTION = 'agents';
const SEQUENTIAL_WRITES = 2_000;
const CONCURRENT_KEYS = 1_000;
const CONCURRENT_ROUNDS = 10;
const COMMIT_SIZE = 5;
const SEQUENTIAL_COMMITS = 400;

/** A snapshot-sized document: a few nested fields, roughly what an actor persists. */
function snapshot(n: number) {
  return {
    status: 'active',
    value: { trading: n % 2 === 0 ? 'idle' : 'placing' },
    context: { pair: 'SOL/USDC', budget: 1_000, filled: n, orders: [{ id: `o${n}`, qty: 1.5, price: 101.25 }] },
  };
}

const journal = (n: number) => ({ event: { type: 'order.updated', n }, state: { trading: 'idle' }, at: Date.now() });

async function sequential(store: StorePort, count: number): Promise<number> {
  const start = performance.now();
  for (let version = 0; version < count; version++) {
    await store.put(COLLECTION, 'one-key', { data: snapshot(version), expectedVersion: version }, journal(version));
  }
  return count / ((performance.now() - start) / 1000);
}

async function concurrent(store: StorePort, keys: number, rounds: number): Promise<number> {
  const ids = Array.from({ length: keys }, (_, i) => `key-${i}`);
  const start = performance.now();
  for (let round = 0; round < rounds; round++) {
    await Promise.all(
      ids.map((id, i) =>
        store.put(COLLECTION, id, { data: snapshot(i), expectedVersion: round, indexes: { owner: `u${i % 50}` } }, journal(i)),
      ),
    );
  }
  return (keys * rounds) / ((performance.now() - start) / 1000);
}

async function commits(store: StorePort, count: number): Promise<number> {
  const ids = Array.from({ length: COMMIT_SIZE }, (_, i) => `unit-${i}`);
  const start = performance.now();
  for (let version = 0; version < count; version++) {
    await store.commit(
      ids.map((id, i) => ({
        op: 'put',
        collection: COLLECTION,
        id,
        input: { data: snapshot(version + i), expectedVersion: version },
        journal: journal(version),
      })),
    );
  }
  return (count * COMMIT_SIZE) / ((performance.now() - start) / 1000);
}

interface Row {
  store: string;
  case: string;
  'writes/s': number;
  'µs/write': number;
}

async function measure(name: string, open: () => Promise<{ store: StorePort; close: () => Promise<void> }>): Promise<Row[]> {
  const rows: Row[] = [];
  const runs: Array<[string, (store: StorePort) => Promise<number>]> = [
    ['1 key, sequential', (store) => sequential(store, SEQUENTIAL_WRITES)],
    [`${CONCURRENT_KEYS} keys, concurrent`, (store) => concurrent(store, CONCURRENT_KEYS, CONCURRENT_ROUNDS)],
    [`${COMMIT_SIZE} keys per commit, sequential`, (store) => commits(store, SEQUENTIAL_COMMITS)],
  ];
  for (const [label, run] of runs) {
    // A fresh store per case; a short warm-up run on it first (JIT, page cache).
    const { store, close } = await open();
    await store.init([{ name: COLLECTION, indexes: ['owner'] }]);
    await concurrent(store, 100, 1);
    await store.put(COLLECTION, 'one-key', { data: snapshot(0), expectedVersion: 0 });
    await store.delete(COLLECTION, 'one-key', 1);
    for (let i = 0; i < 100; i++) await store.delete(COLLECTION, `key-${i}`, 1);
    const perSecond = await run(store);
    rows.push({ store: name, case: label, 'writes/s': Math.round(perSecond), 'µs/write': Math.round(1e6 / perSecond) });
    await close();
  }
  return rows;
}

const dirs: string[] = [];
const lmdb = async () => {
  const path = await mkdtemp(join(tmpdir(), 'store-bench-'));
  dirs.push(path);
  const store = new LmdbStore({ path, clock: new SystemClock() });
  return { store, close: () => store.close() };
};
const memory = async () => {
  const store = new MemoryStore(new SystemClock());
  return { store, close: () => store.close() };
};

try {
  const rows = [...(await measure('LmdbStore (durable)', lmdb)), ...(await measure('MemoryStore', memory))];
  console.log(`put + journal entry; Node ${process.version}; ${new Date().toISOString()}`);
  console.table(rows);
  const rate = (store: string, label: string) => rows.find((r) => r.store === store && r.case.startsWith(label))!['writes/s'];
  const lmdbSeq = rate('LmdbStore (durable)', '1 key');
  const lmdbConc = rate('LmdbStore (durable)', `${CONCURRENT_KEYS} keys`);
  console.log(`LMDB group-commit gain (concurrent / sequential): ${(lmdbConc / lmdbSeq).toFixed(1)}x`);
  console.log(
    `LMDB ${COMMIT_SIZE}-key commits / sequential puts (documents per second): ${(rate('LmdbStore (durable)', `${COMMIT_SIZE} keys`) / lmdbSeq).toFixed(1)}x`,
  );
  console.log(`Memory / LMDB, sequential: ${(rate('MemoryStore', '1 key') / lmdbSeq).toFixed(1)}x`);
  console.log(`Memory / LMDB, concurrent: ${(rate('MemoryStore', `${CONCURRENT_KEYS} keys`) / lmdbConc).toFixed(1)}x`);
} finally {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
}
