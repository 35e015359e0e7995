/**
 * OwnerCaps across processes: two instances sharing one store stand for two service
 * processes (each has its own in-memory queue); only the store lock keeps them under the cap.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { MemoryStore } from '../support/memory-store.adapter.js';
import { CAP_LOCKS_COLLECTION, OwnerCaps, countUpTo } from '../../src/accounts/owner-caps.js';
import { isAppError } from '../../kernel/errors/app-error.js';
import { httpStatusOf } from '../../src/surface-common/http-status.js';

const THINGS = { name: 'things', indexes: ['owner'] };

async function setup() {
  const clock = new ManualClock(1_700_000_000_000);
  const store = new MemoryStore(clock);
  await store.init([CAP_LOCKS_COLLECTION, THINGS]);
  const count = (cap: number) =>
    countUpTo(
      cap,
      (cursor) => store.find(THINGS.name, { index: 'owner', eq: 'u1' }, { limit: 2, ...(cursor ? { cursor } : {}) }),
      () => true,
    );
  let next = 0;
  // A create that yields between its read and its write, as a real one does.
  const create = async () => {
    const id = `t${next++}`;
    await new Promise((resolve) => setTimeout(resolve, 1));
    await store.put(THINGS.name, id, { data: {}, expectedVersion: 0, indexes: { owner: 'u1' } });
    return id;
  };
  return { clock, store, count, create };
}

describe('OwnerCaps', () => {
  it('two processes creating at once stay exactly at the cap', async () => {
    const { store, clock, count, create } = await setup();
    const processes = [new OwnerCaps(store, clock), new OwnerCaps(store, clock)];
    const results = await Promise.allSettled(
      Array.from({ length: 140 }, (_, i) => processes[i % 2]!.create('things:u1', 5, 'Thing limit reached', count, create)),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
    for (const r of results.filter((r) => r.status === 'rejected')) {
      const reason = (r as PromiseRejectedResult).reason;
      expect(isAppError(reason) && httpStatusOf(reason) === 409 && reason.message === 'Thing limit reached').toBe(true);
    }
    expect(await count(1000)).toBe(5);
    expect(await store.get(CAP_LOCKS_COLLECTION.name, 'things:u1')).toBeNull(); // released
  });

  it('takes over a lock whose holder stopped once its lease ran out, not before', async () => {
    const { store, clock, count, create } = await setup();
    await store.put(CAP_LOCKS_COLLECTION.name, 'things:u1', { data: { holder: 'dead', until: clock.now() + 10_000 }, expectedVersion: 0 });
    const caps = new OwnerCaps(store, clock);
    let done = false;
    const pending = caps.create('things:u1', 5, 'Thing limit reached', count, create).then((id) => {
      done = true;
      return id;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(done).toBe(false);
    clock.advance(10_001);
    expect(await pending).toBe('t0');
  });
});
