import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { LmdbStore } from '../../adapters/lmdb/lmdb-store.adapter.js';
import { MemoryStore } from '../support/memory-store.adapter.js';
import { USER_COLLECTIONS, UsersService } from '../../src/accounts/users.service.js';
import { AppError } from '../../kernel/errors/app-error.js';
import type { StorePort } from '../../kernel/ports/store.port.js';

const WALLET = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';

describe('UsersService.setDefaultAgent', () => {
  it('sets the default agent; an unknown user is 404', async () => {
    const clock = new ManualClock(Date.UTC(2026, 2, 1, 12));
    const store = new MemoryStore(clock);
    await store.init(USER_COLLECTIONS);
    const users = new UsersService(store, clock);
    const user = await users.ensureByWallet('solana', WALLET);
    expect(await users.setDefaultAgent(user.id, 'agt_1')).toEqual({ ...user, defaultAgentId: 'agt_1' });
    expect(await users.get(user.id)).toMatchObject({ defaultAgentId: 'agt_1' });
    await expect(users.setDefaultAgent('usr_nobody', 'agt_1')).rejects.toMatchObject({ kind: 'not_found', message: 'User not found' });
  });

  it('gives up with the retryable 409 after the bound when every write loses, instead of looping forever', async () => {
    const clock = new ManualClock(Date.UTC(2026, 2, 1, 12));
    const memory = new MemoryStore(clock);
    await memory.init(USER_COLLECTIONS);
    const user = await new UsersService(memory, clock).ensureByWallet('solana', WALLET);
    let puts = 0;
    const alwaysConflicts = Object.assign(Object.create(memory) as StorePort, {
      put: async () => {
        puts++;
        // A real store's round trip: lets the test's timeout fire if the loop never ends.
        await new Promise((resolve) => setImmediate(resolve));
        throw new AppError('VERSION_CONFLICT', `Version conflict on users/${user.id}: expected 1, found 2`);
      },
    });
    await expect(new UsersService(alwaysConflicts, clock).setDefaultAgent(user.id, 'agt_1')).rejects.toMatchObject({
      kind: 'conflict',
      code: 'RESOURCE_CONFLICT',
      retryable: true,
      message: `Concurrent updates to users/${user.id}: gave up after 20 attempts`,
    });
    expect(puts).toBe(20);
  });

  it('30 concurrent changes from two processes on one LMDB directory each land once', async () => {
    const clock = new ManualClock(Date.UTC(2026, 2, 1, 12));
    const dir = await mkdtemp(join(tmpdir(), 'users-'));
    const handles = [
      new LmdbStore({ path: dir, clock, sweepIntervalMs: 3_600_000 }),
      new LmdbStore({ path: dir, clock, sweepIntervalMs: 3_600_000 }),
    ];
    try {
      for (const store of handles) await store.init(USER_COLLECTIONS);
      const services = handles.map((store) => new UsersService(store, clock));
      const user = await services[0]!.ensureByWallet('solana', WALLET);
      const results = await Promise.all(Array.from({ length: 30 }, (_, i) => services[i % 2]!.setDefaultAgent(user.id, `agt_${i}`)));
      expect(new Set(results.map((result) => result.defaultAgentId)).size).toBe(30);
      const stored = await handles[1]!.get<{ defaultAgentId: string }>('users', user.id);
      expect(stored?.version).toBe(31);
      expect(results.map((result) => result.defaultAgentId)).toContain(stored?.data.defaultAgentId);
    } finally {
      await Promise.all(handles.map((store) => store.close()));
      await rm(dir, { recursive: true, force: true });
    }
  });
});
