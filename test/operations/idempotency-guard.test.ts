import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../adapters/clock/manual-clock.adapter.js';
import { MemoryStore } from '../../adapters/memory/memory-store.adapter.js';
import { AppError } from '../../src/errors/app-error.js';
import { IDEMPOTENCY_COLLECTION, IdempotencyGuard } from '../../src/operations/idempotency-guard.js';

async function setUp() {
  const clock = new ManualClock(1_700_000_000_000);
  const store = new MemoryStore(clock);
  await store.init([IDEMPOTENCY_COLLECTION]);
  return { clock, store, guard: new IdempotencyGuard(store, clock, { ttlMs: 86_400_000, leaseMs: 10_000 }) };
}

describe('IdempotencyGuard', () => {
  it('replays the first outcome; another request with the key is 422', async () => {
    const { guard } = await setUp();
    let runs = 0;
    const task = async () => ({ n: ++runs });
    expect(await guard.run('acct', 'k', 'fp', task)).toEqual({ n: 1 });
    let replayed = false;
    expect(await guard.run('acct', 'k', 'fp', task, { onReplay: () => (replayed = true) })).toEqual({ n: 1 });
    expect(replayed).toBe(true);
    await expect(guard.run('acct', 'k', 'other', task)).rejects.toMatchObject({ status: 422, code: 'IDEMPOTENCY_MISMATCH' });
    expect(runs).toBe(1);
  });

  it('keeps the lease of a slow call: a retry 25 s into it is 409, not a second run', async () => {
    const { guard, clock } = await setUp();
    let release!: () => void;
    const slow = guard.run('acct', 'k', 'fp', () => new Promise<string>((resolve) => (release = () => resolve('done'))));
    for (let i = 0; i < 5; i++) await clock.advance(5_000);
    await expect(guard.run('acct', 'k', 'fp', async () => 'second')).rejects.toMatchObject({ status: 409, code: 'IDEMPOTENCY_IN_PROGRESS' });
    release();
    expect(await slow).toBe('done');
    expect(await guard.run('acct', 'k', 'fp', async () => 'third')).toBe('done');
  });

  it('a call that died holding the key is taken over once its lease ran out', async () => {
    const { guard, clock, store } = await setUp();
    // A claim whose owner never finishes or renews (its process is gone): the running record alone.
    const id = createHash('sha256').update('acct\nk').digest('base64url');
    await store.put(IDEMPOTENCY_COLLECTION.name, id, { data: { state: 'running', fingerprint: 'fp', leaseUntil: clock.now() + 10_000 }, expectedVersion: 0 });
    await expect(guard.run('acct', 'k', 'fp', async () => 'x')).rejects.toMatchObject({ status: 409 });
    clock.jumpTo(clock.now() + 10_001);
    expect(await guard.run('acct', 'k', 'fp', async () => 'taken over')).toBe('taken over');
  });

  it('replays a definite failure, and releases the key after a temporary one', async () => {
    const { guard } = await setUp();
    await expect(guard.run('acct', 'a', 'fp', async () => Promise.reject(new AppError('INSUFFICIENT_BALANCE', 'Insufficient balance for requested swap amount')))).rejects.toMatchObject({ status: 400 });
    await expect(guard.run('acct', 'a', 'fp', async () => 'never')).rejects.toMatchObject({ status: 400, message: 'Insufficient balance for requested swap amount' });
    await expect(guard.run('acct', 'b', 'fp', async () => Promise.reject(new AppError('PROVIDER_UNAVAILABLE', 'down')))).rejects.toMatchObject({ status: 503 });
    expect(await guard.run('acct', 'b', 'fp', async () => 'retried')).toBe('retried');
  });

  it('a record written before fingerprints covered every field still replays the same request (its legacy form)', async () => {
    const { guard } = await setUp();
    expect(await guard.run('acct', 'k', 'op:old', async () => 'first')).toBe('first');
    expect(await guard.run('acct', 'k', 'op:k1:new', async () => 'again', { legacyFingerprint: 'op:old' })).toBe('first');
    await expect(guard.run('acct', 'k', 'op:k1:new', async () => 'again')).rejects.toMatchObject({ status: 422 });
  });
});
