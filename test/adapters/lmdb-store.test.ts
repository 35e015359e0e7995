import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { serialize } from 'node:v8';
import fc from 'fast-check';
import { open } from 'lmdb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { decodeKey, encodeKey, type KeyPart } from '../../adapters/lmdb/lmdb-key.codec.js';
import { docKey, tupleKey } from '../../adapters/lmdb/lmdb-record.codec.js';
import { LmdbStore } from '../../adapters/lmdb/lmdb-store.adapter.js';
import { compareIndexValues } from '../../adapters/shared/store-helpers.js';
import { AppError } from '../../kernel/errors/app-error.js';
import { STORE_COMPRESSION_SAMPLES } from '../../src/composition/store-compression.samples.js';
import { storeContract } from '../contracts/store.contract.js';

const ADAPTER_URL = new URL('../../adapters/lmdb/lmdb-store.adapter.ts', import.meta.url).href;
const CLOCK_URL = new URL('../../adapters/clock/system-clock.adapter.ts', import.meta.url).href;
const SPECS = [{ name: 'agents', indexes: ['owner'] }];
const dirs: string[] = [];

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'lmdb-store-'));
  dirs.push(dir);
  return dir;
}

async function openStore(path: string, clock = new ManualClock(), sweepIntervalMs = 3_600_000) {
  const store = new LmdbStore({ path, clock, sweepIntervalMs });
  await store.init(SPECS);
  return store;
}

afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

storeContract('LmdbStore', async () => {
  const path = await mkdtemp(join(tmpdir(), 'lmdb-contract-'));
  const clock = new ManualClock();
  // The service's own dictionary samples (the other tests here open stores without: LZ4 alone).
  const store = new LmdbStore({ path, clock, sweepIntervalMs: 3_600_000, compressionSamples: STORE_COMPRESSION_SAMPLES });
  const cleanup = async () => {
    await store.close();
    await rm(path, { recursive: true, force: true });
  };
  return { store, clock, cleanup };
});

describe('LMDB key codec', () => {
  const unit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));
  const part: fc.Arbitrary<KeyPart> = fc.oneof(
    fc.string({ unit, maxLength: 6 }),
    fc.constantFrom('', 'a', 'ab', '\u0000', '\u007e', '\u007f', '\uffff', '😀'),
    fc.double({ noNaN: true }),
    fc.integer({ min: -3, max: 3 }),
  );
  const tuple = fc.array(part, { maxLength: 4 });
  const compareTuples = (a: KeyPart[], b: KeyPart[]): number => {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const order = compareIndexValues(a[i]!, b[i]!);
      if (order !== 0) return order;
    }
    return a.length - b.length;
  };

  it('orders encoded tuples as compareIndexValues orders them, element by element', () => {
    fc.assert(
      fc.property(tuple, tuple, (a, b) => {
        expect(Math.sign(Buffer.compare(encodeKey(a), encodeKey(b)))).toBe(Math.sign(compareTuples(a, b)));
      }),
      { numRuns: 3000 },
    );
  });

  it('decodes what it encodes (with -0 stored as 0)', () => {
    fc.assert(
      fc.property(tuple, (parts) => {
        expect(decodeKey(encodeKey(parts))).toEqual(parts.map((p) => (p === 0 ? 0 : p)));
      }),
    );
  });
});

describe('LmdbStore on disk', () => {
  it('keeps documents, indexes, journal and TTL across close and reopen', async () => {
    const path = await tempDir();
    const clock = new ManualClock();
    const first = await openStore(path, clock);
    const expiresAt = clock.now() + 10_000;
    await first.put('agents', 'a1', { data: { n: 1 }, expectedVersion: 0, indexes: { owner: 'o' } }, { event: 'e1', state: 's1', at: 1 });
    await first.put('agents', 'a1', { data: { n: 2 }, expectedVersion: 1, indexes: { owner: 'o' } }, { event: 'e2', state: 's2', at: 2 });
    await first.put('agents', 'a2', { data: {}, expectedVersion: 0, expiresAt });
    await first.close();

    const second = await openStore(path, clock);
    expect(await second.get('agents', 'a1')).toMatchObject({ version: 2, data: { n: 2 } });
    expect((await second.find('agents', { index: 'owner', eq: 'o' }, { limit: 5 })).items.map((d) => d.id)).toEqual(['a1']);
    expect((await second.readJournal('agents', 'a1', { limit: 5 })).map((e) => [e.seq, e.event])).toEqual([
      [1, 'e1'],
      [2, 'e2'],
    ]);
    await clock.advance(10_000);
    expect(await second.sweepExpired()).toBe(1);
    await second.close();
  });

  it('durable() fails after its bound when lmdb-js never settles a flush (it only logs a failed fsync), and once closed', async () => {
    const store = new LmdbStore({ path: await tempDir(), clock: new ManualClock(), flushTimeoutMs: 50 });
    await store.init(SPECS);
    await store.put('agents', 'd1', { data: { n: 1 }, expectedVersion: 0 });
    await expect(store.durable()).resolves.toBeUndefined();
    // A flush that failed: lmdb-js leaves its promise pending for ever.
    const root = (store as unknown as { root: object }).root;
    Object.defineProperty(root, 'flushed', { configurable: true, get: () => new Promise(() => undefined) });
    await expect(store.durable()).resolves.toBeUndefined(); // nothing written since the last flush
    await store.put('agents', 'd2', { data: { n: 2 }, expectedVersion: 0 });
    const started = Date.now();
    await expect(store.durable()).rejects.toMatchObject({ kind: 'unavailable', message: 'The LMDB store did not flush within 50 ms' });
    expect(Date.now() - started).toBeLessThan(2_000);
    delete (root as { flushed?: unknown }).flushed;
    await store.close();
    await expect(store.durable()).rejects.toThrow('The LMDB store is closed');
  });

  it('sweeps on its own timer, reschedules itself, and stops on close', async () => {
    const path = await tempDir();
    const clock = new ManualClock();
    const start = clock.now();
    const setTimer = vi.spyOn(clock, 'setTimer');
    const store = await openStore(path, clock, 1_000);
    await store.put('agents', 'soon', { data: {}, expectedVersion: 0, expiresAt: start + 500 });
    await store.put('agents', 'later', { data: {}, expectedVersion: 0, expiresAt: start + 1_500 });
    await store.put('agents', 'never', { data: {}, expectedVersion: 0 });
    await clock.advance(1_000);
    await vi.waitFor(() => expect(setTimer).toHaveBeenCalledTimes(2)); // the first sweep finished
    await clock.advance(1_000);
    await vi.waitFor(() => expect(setTimer).toHaveBeenCalledTimes(3));
    await store.close();
    const warn = vi.spyOn(process, 'emitWarning');
    await clock.advance(10_000);
    expect(warn).not.toHaveBeenCalled();
    expect(setTimer).toHaveBeenCalledTimes(3);
    warn.mockRestore();

    // Back at the start nothing has expired, so only a real removal hides a document.
    const reopened = await openStore(path, new ManualClock(start));
    expect(await reopened.get('agents', 'soon')).toBeNull();
    expect(await reopened.get('agents', 'later')).toBeNull();
    expect(await reopened.get('agents', 'never')).not.toBeNull();
    await reopened.close();
  });

  it('starts a fresh journal when an id is created again, so seq always equals version', async () => {
    const store = await openStore(await tempDir());
    const entry = (event: string) => ({ event, state: null, at: 0 });
    await store.put('agents', 'a', { data: {}, expectedVersion: 0 }, entry('old-1'));
    await store.put('agents', 'a', { data: {}, expectedVersion: 1 }, entry('old-2'));
    await store.delete('agents', 'a', 2);
    expect(await store.readJournal('agents', 'a', { limit: 5 })).toHaveLength(2);
    await store.put('agents', 'a', { data: {}, expectedVersion: 0 }, entry('new-1'));
    expect(await store.readJournal('agents', 'a', { limit: 5 })).toEqual([{ seq: 1, ...entry('new-1') }]);
    await store.close();
  });

  it('moves documents of a data directory from before entry versions, keeping their versions', async () => {
    const path = await tempDir();
    const legacy = open({ path });
    const binary = { keyEncoding: 'binary', encoding: 'binary' } as const;
    const docs = legacy.openDB<Buffer, Buffer>({ name: 'docs', ...binary });
    const indexes = legacy.openDB<Buffer, Buffer>({ name: 'indexes', ...binary });
    const record = { id: 'a1', version: 3, indexes: { owner: 'o' }, updatedAt: 1, data: serialize({ n: 3 }) };
    // Records of that time were v8-serialized whole (today's layout is a JSON header and the data's bytes).
    await docs.put(docKey('agents', 'a1'), serialize(record));
    await indexes.put(tupleKey(['agents', 'owner', 'o', 'a1']), Buffer.from([1]));
    await legacy.close();

    const store = await openStore(path);
    expect(await store.get('agents', 'a1')).toMatchObject({ version: 3, data: { n: 3 } });
    expect((await store.find('agents', { index: 'owner', eq: 'o' }, { limit: 5 })).items.map((d) => d.id)).toEqual(['a1']);
    await expect(store.put('agents', 'a1', { data: { n: 4 }, expectedVersion: 2 })).rejects.toMatchObject({ code: 'VERSION_CONFLICT' });
    expect(await store.put('agents', 'a1', { data: { n: 4 }, expectedVersion: 3 })).toMatchObject({ version: 4 });
    await store.close();

    const reopened = await openStore(path); // nothing left to move: the newer version stays
    expect(await reopened.get('agents', 'a1')).toMatchObject({ version: 4, data: { n: 4 } });
    await reopened.close();
  });

  it('decides again when the stored entry changed before its write committed', async () => {
    const clock = new ManualClock();
    const store = await openStore(await tempDir(), clock);
    await store.put('agents', 'a', { data: { n: 1 }, expectedVersion: 0, expiresAt: clock.now() + 1_000 });
    await clock.advance(1_000);
    // Both read the expired entry and write on condition of it; the delete, queued first,
    // removes it in the same commit, so the put must read again, and then creates.
    const deleting = store.delete('agents', 'a', 0);
    const created = await store.put('agents', 'a', { data: { n: 2 }, expectedVersion: 0 });
    await deleting;
    expect(created).toMatchObject({ version: 1, data: { n: 2 } });
    expect(await store.get('agents', 'a')).toMatchObject({ version: 1, data: { n: 2 } });
    // Same expected version, same turn: one wins, the other reads again and sees the winner.
    const racing = await Promise.allSettled([1, 2].map((n) => store.put('agents', 'a', { data: { n }, expectedVersion: 1 })));
    expect(racing.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(racing.find((r) => r.status === 'rejected')).toMatchObject({ reason: { code: 'VERSION_CONFLICT' } });
    await store.close();
  });

  it('writes nothing of a commit whose first document was created after it was decided, even when the others are still absent', async () => {
    const store = await openStore(await tempDir());
    // Decided in the same turn on "a and b absent"; the put of a, queued first, creates a.
    // lmdb-js's write thread counts the inner "b does not exist" condition as held inside the
    // failed one of a: the commit must still write nothing, read again, and conflict on a.
    const putA = store.put('agents', 'a', { data: { by: 'put' }, expectedVersion: 0 });
    const committing = store.commit([
      { op: 'put', collection: 'agents', id: 'a', input: { data: { by: 'commit' }, expectedVersion: 0 } },
      { op: 'put', collection: 'agents', id: 'b', input: { data: { by: 'commit' }, expectedVersion: 0, indexes: { owner: 'o' } } },
    ]);
    await putA;
    await expect(committing).rejects.toMatchObject({ code: 'VERSION_CONFLICT' });
    expect(await store.get('agents', 'a')).toMatchObject({ version: 1, data: { by: 'put' } });
    expect(await store.get('agents', 'b')).toBeNull();
    expect((await store.find('agents', { index: 'owner', eq: 'o' }, { limit: 10 })).items).toEqual([]);
    // A commit whose conditions all hold writes every document in one go.
    const [a, b] = await store.commit([
      { op: 'put', collection: 'agents', id: 'a', input: { data: { by: 'commit' }, expectedVersion: 1 } },
      { op: 'put', collection: 'agents', id: 'b', input: { data: { by: 'commit' }, expectedVersion: 0 } },
    ]);
    expect([a?.version, b?.version]).toEqual([2, 1]);
    await store.close();
  });

  it("reads through lmdb-js's reusable buffer: documents of different sizes in turns, and a change made through another handle", async () => {
    const path = await tempDir();
    const [reader, writer] = [await openStore(path), await openStore(path)];
    const blob = 'x'.repeat(20_000);
    await reader.put('agents', 'big', { data: { blob }, expectedVersion: 0 });
    await reader.put('agents', 'small', { data: { n: 1 }, expectedVersion: 0 });
    for (let i = 0; i < 3; i++) {
      expect((await reader.get('agents', 'big'))?.data).toEqual({ blob });
      expect((await reader.get('agents', 'small'))?.data).toEqual({ n: 1 });
    }
    // Same length, other bytes: the cached document must not answer for them.
    await writer.put('agents', 'small', { data: { n: 2 }, expectedVersion: 1 });
    // lmdb-js may keep a handle's read snapshot until the end of the event-loop turn: another
    // handle's (or process's) commit is read at the latest a turn or so later (a few when busy).
    // Writes do not depend on it (they check the stored version inside the write transaction).
    let turns = 0;
    while ((await reader.get<{ n: number }>('agents', 'small'))?.data.n !== 2 && turns < 50) {
      turns++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect((await reader.get('agents', 'small'))?.data).toEqual({ n: 2 });
    expect((await reader.get('agents', 'big'))?.data).toEqual({ blob });
    await writer.close();
    await reader.close();
  });

  it('refuses an id too long for an LMDB key before writing anything', async () => {
    const store = await openStore(await tempDir());
    const id = 'x'.repeat(2_000);
    await expect(store.put('agents', id, { data: {}, expectedVersion: 0 })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    expect((await store.list('agents', { limit: 5 })).items).toEqual([]);
    await store.close();
  });

  it('refuses calls after close with SHUTTING_DOWN', async () => {
    const store = await openStore(await tempDir());
    await store.close();
    await expect(store.get('agents', 'a')).rejects.toMatchObject({ code: 'SHUTTING_DOWN' });
    await expect(store.ping()).rejects.toBeInstanceOf(AppError);
  });
});

/** Code run by a child process (`node --import tsx`) against the same LMDB path. */
const CHILD = `
import { createInterface } from 'node:readline';
const { LmdbStore } = await import(process.env.ADAPTER_URL);
const { SystemClock } = await import(process.env.CLOCK_URL);
const store = new LmdbStore({ path: process.env.STORE_PATH, clock: new SystemClock() });
await store.init(${JSON.stringify(SPECS)});
const lines = createInterface({ input: process.stdin });
console.log('READY');
for await (const line of lines) if (line === 'GO') break;
const task = process.env.TASK;
if (task === 'increment') {
  // The same loop as incrementLoop below, in plain JavaScript.
  let writes = 0;
  let conflicts = 0;
  while (writes < Number(process.env.COUNT)) {
    const current = await store.get('agents', 'counter');
    try {
      const input = { data: { n: current.data.n + 1 }, expectedVersion: current.version };
      await store.put('agents', 'counter', input, { event: 'child', state: current.data.n + 1, at: 0 });
      writes++;
    } catch (error) {
      if (error.code !== 'VERSION_CONFLICT') throw error;
      conflicts++;
    }
  }
  console.log(JSON.stringify({ writes, conflicts }));
} else if (task === 'batches') {
  // Large commits back to back: each creates BATCH documents and moves the counter on.
  const size = Number(process.env.BATCH);
  const payload = 'x'.repeat(2000);
  for (let batch = 0; ; batch++) {
    const writes = Array.from({ length: size }, (_, i) => ({
      op: 'put', collection: 'agents', id: 'b-' + batch + '-' + i,
      input: { data: { batch, i, payload }, expectedVersion: 0, indexes: { owner: 'batch-' + batch } },
      journal: { event: { batch, i }, state: null, at: 0 },
    }));
    writes.push({ op: 'put', collection: 'agents', id: 'counter', input: { data: { batch }, expectedVersion: batch }, journal: { event: batch, state: null, at: 0 } });
    await store.commit(writes);
    console.log('ACK ' + batch);
  }
} else {
  for (let batch = 0; ; batch++) {
    const ids = Array.from({ length: 20 }, (_, i) => 'k-' + batch + '-' + i);
    await Promise.all(ids.map((id) => store.put('agents', id, { data: { id }, expectedVersion: 0 }, { event: id, state: null, at: 0 })));
    console.log('ACK ' + ids.join(' '));
  }
}
await store.close();
`;

function startChild(path: string, env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    env: { ...process.env, ADAPTER_URL, CLOCK_URL, STORE_PATH: path, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ready = new Promise<void>((resolve) => lines.on('line', (line) => line === 'READY' && resolve()));
  return { child, lines, exited, ready, go: () => child.stdin.end('GO\n') };
}

/** CAS increments of one counter with retry on conflict; tags each journal entry with its writer. */
async function incrementLoop(
  store: Pick<LmdbStore, 'get' | 'put'>,
  writer: string,
  count: number,
): Promise<{ writes: number; conflicts: number }> {
  let writes = 0;
  let conflicts = 0;
  while (writes < count) {
    const current = await store.get<{ n: number }>('agents', 'counter');
    if (!current) throw new Error('counter missing');
    try {
      const input = { data: { n: current.data.n + 1 }, expectedVersion: current.version };
      await store.put('agents', 'counter', input, { event: writer, state: current.data.n + 1, at: 0 });
      writes++;
    } catch (error) {
      if ((error as { code?: string }).code !== 'VERSION_CONFLICT') throw error;
      conflicts++;
    }
  }
  return { writes, conflicts };
}

describe('LmdbStore memory map', () => {
  it('maps its file once as it grows, so a page read counts once in the RSS', async () => {
    const path = await tempDir();
    const store = await openStore(path);
    try {
      // ~20 MB: lmdb-js's default map (128 KB, doubled on each overflow) would be mapped a dozen times over.
      // Random hex, each document its own: values are stored compressed, and these must not shrink.
      const first = { big: randomBytes(10_000).toString('hex') };
      for (let round = 0; round < 10; round++)
        await Promise.all(
          Array.from({ length: 100 }, (_, i) => {
            const data = round === 0 && i === 0 ? first : { big: randomBytes(10_000).toString('hex') };
            return store.put('agents', `a-${round}-${i}`, { data, expectedVersion: 0 });
          }),
        );
      expect((await store.get('agents', 'a-0-0'))?.data).toEqual(first);
      const file = join(path, 'data.mdb');
      const mappings = readFileSync('/proc/self/maps', 'utf8')
        .split('\n')
        .filter((line) => line.endsWith(` ${file}`));
      expect(statSync(file).size).toBeGreaterThan(20_000_000);
      expect(mappings).toHaveLength(1);
    } finally {
      await store.close();
    }
  });
});

describe('LmdbStore with two processes', () => {
  it('serializes CAS increments from two processes: no update lost, losers see VERSION_CONFLICT', async () => {
    const path = await tempDir();
    const store = await openStore(path);
    await store.put('agents', 'counter', { data: { n: 0 }, expectedVersion: 0 });
    const count = 150;
    const other = startChild(path, { TASK: 'increment', COUNT: String(count) });
    const childResult = new Promise<{ writes: number; conflicts: number }>((resolve) =>
      other.lines.on('line', (line) => line.startsWith('{') && resolve(JSON.parse(line))),
    );
    await other.ready;
    other.go();
    const mine = await incrementLoop(store, 'parent', count);
    const theirs = await childResult;
    expect(await other.exited).toBe(0);

    const final = await store.get<{ n: number }>('agents', 'counter');
    expect(final).toMatchObject({ version: 1 + mine.writes + theirs.writes, data: { n: 2 * count } });
    const journal = await store.readJournal('agents', 'counter', { limit: 1000 });
    expect(journal.map((e) => e.seq)).toEqual(Array.from({ length: 2 * count }, (_, i) => i + 2));
    expect(journal.map((e) => e.state)).toEqual(Array.from({ length: 2 * count }, (_, i) => i + 1));
    // Both processes wrote and raced: some writes lost their CAS and were retried.
    expect(new Set(journal.map((e) => e.event))).toEqual(new Set(['parent', 'child']));
    expect(mine.conflicts + theirs.conflicts).toBeGreaterThan(0);
    console.info(`two-process CAS: parent ${JSON.stringify(mine)}, child ${JSON.stringify(theirs)}`);
    await store.close();
  });

  it('keeps every acknowledged write when the writing process is killed with SIGKILL', async () => {
    const path = await tempDir();
    const writer = startChild(path, { TASK: 'ack' });
    const acked: string[] = [];
    const enough = new Promise<void>((resolve) =>
      writer.lines.on('line', (line) => {
        if (line.startsWith('ACK ')) acked.push(...line.slice(4).split(' '));
        if (acked.length >= 400) resolve();
      }),
    );
    await writer.ready;
    writer.go();
    await enough;
    writer.child.kill('SIGKILL');
    await writer.exited;

    const store = await openStore(path);
    const lost: string[] = [];
    for (const id of acked) if (!(await store.get('agents', id))) lost.push(id);
    expect(lost).toEqual([]);
    for (const id of acked.slice(-20)) {
      expect(await store.readJournal('agents', id, { limit: 5 })).toEqual([{ seq: 1, event: id, state: null, at: 0 }]);
    }
    await store.close();
  });

  it('shows each commit wholly or not at all after the committing process is killed with SIGKILL', async () => {
    const path = await tempDir();
    const size = 300;
    const writer = startChild(path, { TASK: 'batches', BATCH: String(size) });
    let acked = -1;
    const enough = new Promise<void>((resolve) =>
      writer.lines.on('line', (line) => {
        if (line.startsWith('ACK ')) acked = Number(line.slice(4));
        if (acked >= 5) resolve();
      }),
    );
    await writer.ready;
    writer.go();
    await enough;
    // Not on an acknowledgement: the child is most likely inside its next commit's transaction.
    await new Promise((resolve) => setTimeout(resolve, 3 + Math.random() * 10));
    writer.child.kill('SIGKILL');
    await writer.exited;

    const store = await openStore(path);
    const counter = await store.get<{ batch: number }>('agents', 'counter');
    const last = counter!.data.batch;
    expect(last).toBeGreaterThanOrEqual(acked); // every acknowledged commit is there
    expect(counter!.version).toBe(last + 1);
    expect((await store.readJournal('agents', 'counter', { limit: 1000 })).map((e) => e.event)).toEqual(
      Array.from({ length: last + 1 }, (_, b) => b),
    );
    // Every batch up to the counter's wholly (documents, indexes, journal), the next one not at all.
    for (let batch = 0; batch <= last + 1; batch++) {
      const found = await store.find('agents', { index: 'owner', eq: `batch-${batch}` }, { limit: 1000 });
      const present = await Promise.all(Array.from({ length: size }, (_, i) => store.get('agents', `b-${batch}-${i}`)));
      const journals = await Promise.all(
        Array.from({ length: size }, (_, i) => store.readJournal('agents', `b-${batch}-${i}`, { limit: 5 })),
      );
      const expected = batch <= last ? size : 0;
      expect(found.items).toHaveLength(expected);
      expect(present.filter(Boolean)).toHaveLength(expected);
      expect(journals.filter((entries) => entries.length === 1)).toHaveLength(expected);
    }
    console.info(`SIGKILL mid-commit: ${acked + 1} commits acknowledged, ${last + 1} found whole`);
    await store.close();
  });
});

describe('LmdbStore file modes', () => {
  const modeOf = (path: string) => statSync(path).mode & 0o777;

  it('creates its directory 0700 and its files 0600, whatever the umask', async () => {
    const path = join(await tempDir(), 'fresh', 'store');
    const previous = process.umask(0o022);
    try {
      const store = await openStore(path);
      await store.close();
    } finally {
      process.umask(previous);
    }
    expect(modeOf(path)).toBe(0o700);
    expect(modeOf(join(path, 'data.mdb'))).toBe(0o600);
    expect(modeOf(join(path, 'lock.mdb'))).toBe(0o600);
  });

  it('tightens a store left world-readable by an earlier version when it opens it', async () => {
    const path = join(await tempDir(), 'store');
    await (await openStore(path)).close();
    chmodSync(path, 0o755);
    chmodSync(join(path, 'data.mdb'), 0o644);
    chmodSync(join(path, 'lock.mdb'), 0o644);
    await (await openStore(path)).close();
    expect([modeOf(path), modeOf(join(path, 'data.mdb')), modeOf(join(path, 'lock.mdb'))]).toEqual([0o700, 0o600, 0o600]);
  });
});
