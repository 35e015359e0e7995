import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../support/manual-clock.adapter.js';
import { LmdbStore } from '../../../adapters/lmdb/lmdb-store.adapter.js';
import { MemoryStore } from '../../support/memory-store.adapter.js';
import { TotpAttemptLimiter } from '../../../src/auth/totp/totp-attempt.limiter.js';
import { TOTP_ATTEMPTS_COLLECTION, TOTP_COLLECTIONS } from '../../../src/auth/totp/totp.model.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import type { StorePort } from '../../../kernel/ports/store.port.js';

const WINDOW_MS = 15 * 60_000;
const limiterOn = (store: StorePort, clock: ManualClock) =>
  new TotpAttemptLimiter({ store, clock, collection: TOTP_ATTEMPTS_COLLECTION, maxFailures: 5, windowMs: WINDOW_MS });

describe('TotpAttemptLimiter', () => {
  it('30 concurrent reservations from two processes on one LMDB directory: exactly 5 counted, the rest 429; refunds all land', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 12));
    const dir = await mkdtemp(join(tmpdir(), 'totp-limiter-'));
    const handles = [
      new LmdbStore({ path: dir, clock, sweepIntervalMs: 3_600_000 }),
      new LmdbStore({ path: dir, clock, sweepIntervalMs: 3_600_000 }),
    ];
    try {
      for (const store of handles) await store.init(TOTP_COLLECTIONS);
      const limiters = handles.map((store) => limiterOn(store, clock));
      const results = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => limiters[i % 2]!.reserve('user-1')));
      const reserved = results.filter((r) => r.status === 'fulfilled');
      expect(reserved).toHaveLength(5);
      for (const r of results.filter((x) => x.status === 'rejected')) {
        expect((r as PromiseRejectedResult).reason).toMatchObject({
          kind: 'rate_limited',
          code: 'RATE_LIMITED',
          message: 'Too many verification attempts',
        });
      }
      expect((await handles[0]!.get<{ attempts: number[] }>(TOTP_ATTEMPTS_COLLECTION, 'user-1'))?.data.attempts).toHaveLength(5);

      // Every reservation was made at the same instant: each refund gives back one of them.
      await Promise.all(reserved.map((r, i) => limiters[i % 2]!.refund('user-1', (r as PromiseFulfilledResult<number>).value)));
      expect(await handles[1]!.get(TOTP_ATTEMPTS_COLLECTION, 'user-1')).toBeNull();
    } finally {
      await Promise.all(handles.map((store) => store.close()));
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a reservation that keeps losing its compare-and-set is the 429, not a 409; a refund that does gives up quietly', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 12));
    const memory = new MemoryStore(clock);
    await memory.init(TOTP_COLLECTIONS);
    const reservedAt = await limiterOn(memory, clock).reserve('user-1');
    const writes = { count: 0 };
    const conflict = () => {
      writes.count++;
      return Promise.reject(new AppError('VERSION_CONFLICT', 'Version conflict on totp_attempts/user-1: expected 1, found 2'));
    };
    const overtaken = Object.assign(Object.create(memory) as StorePort, { put: conflict, delete: conflict });
    const error = await limiterOn(overtaken, clock)
      .reserve('user-1')
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      kind: 'rate_limited',
      code: 'RATE_LIMITED',
      message: 'Too many verification attempts',
      retryAfterSeconds: 1,
    });
    expect(writes.count).toBe(10);
    writes.count = 0;
    await expect(limiterOn(overtaken, clock).refund('user-1', reservedAt)).resolves.toBeUndefined();
    expect(writes.count).toBe(10);
    expect((await memory.get<{ attempts: number[] }>(TOTP_ATTEMPTS_COLLECTION, 'user-1'))?.data.attempts).toEqual([reservedAt]);
  });
});
