import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { LmdbStore } from '../../adapters/lmdb/lmdb-store.adapter.js';
import { MemoryStore } from '../support/memory-store.adapter.js';
import { AppError } from '../../kernel/errors/app-error.js';
import { IDEMPOTENCY_MESSAGES } from '../../kernel/errors/idempotency-messages.js';
import { IDEMPOTENCY_COLLECTION, IdempotencyGuard } from '../../src/operations/idempotency-guard.js';
import type { StorePort } from '../../kernel/ports/store.port.js';
import { httpStatusOf } from '../../src/surface-common/http-status.js';

async function setUpGuard(soleWriter = false) {
  const clock = new ManualClock(1_700_000_000_000);
  const store = new MemoryStore(clock);
  await store.init([IDEMPOTENCY_COLLECTION]);
  return { clock, store, guard: new IdempotencyGuard(store, clock, { ttlMs: 86_400_000, leaseMs: 10_000, soleWriter }) };
}

/** A task that answers 'first' once `release` is called, and how many times it ran. */
function gatedTask() {
  let count = 0;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const task = async () => {
    count++;
    await gate;
    return 'first';
  };
  return { task, release, runs: () => count };
}

const KEY_ID = createHash('sha256').update('acct\nk').digest('base64url');

describe.each([
  ['claims stored', false],
  ['claims held in this process (sole writer)', true],
])('IdempotencyGuard, %s', (_mode, soleWriter) => {
  const setUp = () => setUpGuard(soleWriter);

  it('replays the first outcome; another request with the key is 422', async () => {
    const { guard } = await setUp();
    let runs = 0;
    const task = async () => ({ n: ++runs });
    expect(await guard.run('acct', 'k', 'fp', task)).toEqual({ n: 1 });
    let replayed = false;
    expect(await guard.run('acct', 'k', 'fp', task, { onReplay: () => (replayed = true) })).toEqual({ n: 1 });
    expect(replayed).toBe(true);
    await expect(guard.run('acct', 'k', 'other', task)).rejects.toMatchObject({ kind: 'unprocessable', code: 'IDEMPOTENCY_MISMATCH' });
    expect(runs).toBe(1);
  });

  it('keeps the lease of a slow call: a retry 25 s into it is 409, not a second run', async () => {
    const { guard, clock } = await setUp();
    let release!: () => void;
    const slow = guard.run('acct', 'k', 'fp', () => new Promise<string>((resolve) => (release = () => resolve('done'))));
    // The slow call has claimed the key and runs (its task is waiting) before time moves on.
    await new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < 5; i++) await clock.advance(5_000);
    await expect(guard.run('acct', 'k', 'fp', async () => 'second')).rejects.toMatchObject({
      kind: 'conflict',
      code: 'IDEMPOTENCY_IN_PROGRESS',
    });
    release();
    expect(await slow).toBe('done');
    expect(await guard.run('acct', 'k', 'fp', async () => 'third')).toBe('done');
  });

  it('replays a definite failure, and releases the key after a temporary one', async () => {
    const { guard } = await setUp();
    await expect(
      guard.run('acct', 'a', 'fp', async () =>
        Promise.reject(new AppError('INSUFFICIENT_BALANCE', 'Insufficient balance for requested swap amount')),
      ),
    ).rejects.toMatchObject({ kind: 'invalid' });
    await expect(guard.run('acct', 'a', 'fp', async () => 'never')).rejects.toMatchObject({
      kind: 'invalid',
      message: 'Insufficient balance for requested swap amount',
    });
    await expect(
      guard.run('acct', 'b', 'fp', async () => Promise.reject(new AppError('PROVIDER_UNAVAILABLE', 'down'))),
    ).rejects.toMatchObject({ kind: 'unavailable' });
    expect(await guard.run('acct', 'b', 'fp', async () => 'retried')).toBe('retried');
  });

  it('a record written before fingerprints covered every field still replays the same request (its legacy form)', async () => {
    const { guard } = await setUp();
    expect(await guard.run('acct', 'k', 'op:old', async () => 'first')).toBe('first');
    expect(await guard.run('acct', 'k', 'op:k1:new', async () => 'again', { legacyFingerprint: 'op:old' })).toBe('first');
    await expect(guard.run('acct', 'k', 'op:k1:new', async () => 'again')).rejects.toMatchObject({ kind: 'unprocessable' });
  });
});

describe('IdempotencyGuard: claims stored', () => {
  const setUp = () => setUpGuard(false);
  it('a call that died holding the key is taken over once its lease ran out', async () => {
    const { guard, clock, store } = await setUp();
    // A claim whose owner never finishes or renews (its process is gone): the running record alone.
    await store.put(IDEMPOTENCY_COLLECTION.name, KEY_ID, {
      data: { state: 'running', fingerprint: 'fp', leaseUntil: clock.now() + 10_000 },
      expectedVersion: 0,
    });
    await expect(guard.run('acct', 'k', 'fp', async () => 'x')).rejects.toMatchObject({ kind: 'conflict' });
    clock.jumpTo(clock.now() + 10_001);
    expect(await guard.run('acct', 'k', 'fp', async () => 'taken over')).toBe('taken over');
  });
});

describe('IdempotencyGuard: claims held in this process (sole writer)', () => {
  const setUp = () => setUpGuard(true);

  it('stores one record a call, its outcome: no running claim is written', async () => {
    const { guard, store } = await setUp();
    const written: unknown[] = [];
    const put = store.put.bind(store);
    store.put = (async (collection, id, input, journal) => {
      written.push(input.data);
      return put(collection, id, input, journal);
    }) as StorePort['put'];
    let seenDuringTask: unknown = 'unread';
    expect(
      await guard.run('acct', 'k', 'fp', async () => {
        seenDuringTask = await store.get(IDEMPOTENCY_COLLECTION.name, KEY_ID);
        return 'first';
      }),
    ).toBe('first');
    expect(seenDuringTask).toBeNull();
    expect(written).toEqual([{ state: 'done', fingerprint: 'fp', leaseUntil: 0, outcome: { ok: true, value: 'first' } }]);
    expect(await guard.run('acct', 'k', 'fp', async () => 'again')).toBe('first');
    expect(written).toHaveLength(1);
  });

  it('30 concurrent calls with one key: one runs, the others are 409 in progress (422 with another request), then all replay', async () => {
    const { guard } = await setUp();
    const { task, release, runs } = gatedTask();
    const calls = Array.from({ length: 30 }, () => guard.run('acct', 'k', 'fp', task));
    const refused = await Promise.all(calls.slice(1).map((call) => call.catch((error: unknown) => error)));
    for (const error of refused)
      expect(error).toMatchObject({ kind: 'conflict', code: 'IDEMPOTENCY_IN_PROGRESS', message: IDEMPOTENCY_MESSAGES.inProgress });
    await expect(guard.run('acct', 'k', 'other', task)).rejects.toMatchObject({ kind: 'unprocessable', code: 'IDEMPOTENCY_MISMATCH' });
    release();
    expect(await calls[0]).toBe('first');
    expect(await guard.run('acct', 'k', 'fp', task)).toBe('first');
    expect(runs()).toBe(1);
  });

  it('20 concurrent retries of a finished call all replay it', async () => {
    const { guard } = await setUp();
    expect(await guard.run('acct', 'k', 'fp', async () => 'first')).toBe('first');
    const retries = await Promise.allSettled(Array.from({ length: 20 }, () => guard.run('acct', 'k', 'fp', async () => 'again')));
    expect(retries.map((r) => (r.status === 'fulfilled' ? r.value : r.reason))).toEqual(Array(20).fill('first'));
  });

  it('a call that read the key as free while another ran and finished it reads again and replays', async () => {
    const { guard, store } = await setUp();
    const get = store.get.bind(store);
    let reads = 0;
    // The first read answers "nothing stored" only after another call with the key has run and stored its outcome.
    store.get = (async (collection, id) => {
      const before = await get(collection, id);
      if (++reads === 1) expect(await guard.run('acct', 'k', 'fp', async () => 'first')).toBe('first');
      return before;
    }) as StorePort['get'];
    expect(await guard.run('acct', 'k', 'fp', async () => 'second')).toBe('first');
    // Its read, the other call's, its second read.
    expect(reads).toBe(3);
  });

  it("a running record left by the store's previous process is taken over at once, and goes after a temporary failure", async () => {
    const { guard, clock, store } = await setUp();
    const running = { state: 'running', fingerprint: 'fp', leaseUntil: clock.now() + 10_000 };
    await store.put(IDEMPOTENCY_COLLECTION.name, KEY_ID, { data: running, expectedVersion: 0, expiresAt: clock.now() + 60_000 });
    await expect(guard.run('acct', 'k', 'other', async () => 'never')).rejects.toMatchObject({ code: 'IDEMPOTENCY_MISMATCH' });
    await expect(
      guard.run('acct', 'k', 'fp', async () => Promise.reject(new AppError('PROVIDER_UNAVAILABLE', 'down'))),
    ).rejects.toMatchObject({ kind: 'unavailable' });
    expect(await store.get(IDEMPOTENCY_COLLECTION.name, KEY_ID)).toBeNull();

    await store.put(IDEMPOTENCY_COLLECTION.name, KEY_ID, { data: running, expectedVersion: 0, expiresAt: clock.now() + 60_000 });
    expect(await guard.run('acct', 'k', 'fp', async () => 'taken over')).toBe('taken over');
    const stored = await store.get(IDEMPOTENCY_COLLECTION.name, KEY_ID);
    // The record keeps the expiry it had: a key's window runs from its first call.
    expect(stored).toMatchObject({ version: 2, expiresAt: clock.now() + 60_000, data: { state: 'done' } });
    expect(await guard.run('acct', 'k', 'fp', async () => 'again')).toBe('taken over');
  });
});

describe('IdempotencyGuard: failures stored before errors carried a kind', () => {
  const setUp = () => setUpGuard(false);
  it.each([
    [422, 'VALIDATION_ERROR', 'unprocessable', 422],
    [200, 'TRADING_DISABLED', 'declined', 200],
    [400, 'INSUFFICIENT_BALANCE', 'invalid', 400],
    [404, 'TOKEN_NOT_FOUND', 'not_found', 404],
  ] as const)('a failure stored with status %i replays as %s with the same status', async (status, code, kind, replayed) => {
    const { store, clock, guard } = await setUp();
    const error = { code, message: 'first answer', status, envelope: 'domain', retryable: false };
    await store.put(IDEMPOTENCY_COLLECTION.name, KEY_ID, {
      data: { state: 'done', fingerprint: 'fp', leaseUntil: 0, outcome: { ok: false, error } },
      expectedVersion: 0,
      expiresAt: clock.now() + 60_000,
    });
    const failure = await guard.run('acct', 'k', 'fp', async () => 'ran again').catch((reason: unknown) => reason);
    expect(failure).toMatchObject({ code, kind, message: 'first answer' });
    expect(httpStatusOf(failure as AppError)).toBe(replayed);
  });
});

describe('IdempotencyGuard: racing claims', () => {
  const setUp = () => setUpGuard(false);
  it('30 concurrent calls with one key from two processes: one runs, the others are 409 in progress, then all replay', async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const dir = await mkdtemp(join(tmpdir(), 'idempotency-'));
    const handles = [
      new LmdbStore({ path: dir, clock, sweepIntervalMs: 3_600_000 }),
      new LmdbStore({ path: dir, clock, sweepIntervalMs: 3_600_000 }),
    ];
    try {
      for (const store of handles) await store.init([IDEMPOTENCY_COLLECTION]);
      const guards = handles.map((store) => new IdempotencyGuard(store, clock, { ttlMs: 86_400_000, leaseMs: 10_000 }));
      const { task, release, runs } = gatedTask();
      const refused: unknown[] = [];
      const calls = Array.from({ length: 30 }, (_, i) => guards[i % 2]!.run('acct', 'k', 'fp', task));
      for (const call of calls) call.catch((error: unknown) => void refused.push(error));
      // Every call but the one that claimed the key answers while that one still runs.
      await vi.waitFor(() => expect(refused).toHaveLength(29), { timeout: 5_000, interval: 10 });
      for (const error of refused)
        expect(error).toMatchObject({ kind: 'conflict', code: 'IDEMPOTENCY_IN_PROGRESS', message: IDEMPOTENCY_MESSAGES.inProgress });
      expect(runs()).toBe(1);
      release();
      expect(
        (await Promise.allSettled(calls)).filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<string>).value),
      ).toEqual(['first']);
      expect(runs()).toBe(1);
      expect(await guards[1]!.run('acct', 'k', 'fp', async () => 'again')).toBe('first');
    } finally {
      await Promise.all(handles.map((store) => store.close()));
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("a claim that keeps losing its compare-and-set answers the API's 409 in progress after its create and 3 attempts", async () => {
    const { store, clock } = await setUp();
    let puts = 0;
    // Every write loses to another claim of the key, which then vanishes (its lease lapsed, its record expired).
    const overtaken = Object.assign(Object.create(store) as StorePort, {
      put: async () => {
        puts++;
        throw new AppError('VERSION_CONFLICT', 'Version conflict on idempotency/x: expected 0, found 1');
      },
    });
    const guard = new IdempotencyGuard(overtaken, clock, { ttlMs: 86_400_000, leaseMs: 10_000 });
    await expect(guard.run('acct', 'k', 'fp', async () => 'never')).rejects.toMatchObject({
      kind: 'conflict',
      code: 'IDEMPOTENCY_IN_PROGRESS',
      message: IDEMPOTENCY_MESSAGES.inProgress,
      retryAfterSeconds: 1,
    });
    // The create of a first claim, then three read-and-write attempts.
    expect(puts).toBe(4);
  });
});
