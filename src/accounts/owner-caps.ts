import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import { KeyedQueue } from '../../agents/trading/keyed-queue.js';
import { AppError, isAppError } from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { CollectionSpec, StoredDocument, StorePort } from '../../kernel/ports/store.port.js';

/** Locks that make a cap's count-then-create one step per owner, across processes. */
export const CAP_LOCKS_COLLECTION: CollectionSpec = { name: 'accounts.cap-locks', indexes: [] };

/** A holder that died keeps its lock this long at most; a create takes milliseconds. */
const LEASE_MS = 10_000;
/** How long a create waits for the owner's lock before a retryable 409. */
const WAIT_MS = 15_000;

interface CapLock {
  holder: string;
  /** Epoch ms after which another caller may take the lock over. */
  until: number;
}

/**
 * Per-owner caps on what a user creates (agents, bots, active keys of one agent or bot).
 * The count is the stored truth, read under a per-owner lock: a counter record would have
 * to follow every revocation, scheduled key expiry and bot deletion, and drift when one is
 * missed. This process's creates for one owner queue in memory; processes sharing the
 * store meet at a lock document written by compare-and-set, so 140 concurrent creates end
 * with exactly `cap` of them done and the rest refused.
 */
export class OwnerCaps {
  private readonly queue = new KeyedQueue();

  constructor(
    private readonly store: StorePort,
    private readonly clock: ClockPort,
  ) {}

  /**
   * Runs `create` when `count` (what `key`'s owner holds now) is below `cap`; otherwise 409
   * with `refusal`. `count` may stop counting at `cap`.
   */
  async create<T>(
    key: string,
    cap: number,
    refusal: string,
    count: (cap: number) => Promise<number>,
    create: () => Promise<T>,
  ): Promise<T> {
    return this.queue.run(key, async () => {
      // A refusal needs no lock: whatever is created or removed meanwhile, the owner was at the cap when counted.
      if ((await count(cap)) >= cap) throw AppError.conflict(refusal);
      const lock = await this.acquire(key);
      try {
        if ((await count(cap)) >= cap) throw AppError.conflict(refusal);
        return await create();
      } finally {
        await this.release(key, lock);
      }
    });
  }

  private async acquire(key: string): Promise<StoredDocument<CapLock>> {
    const holder = randomBytes(9).toString('base64url');
    // Waiting is real time (a test may drive the service's clock); leases are service time.
    const deadline = performance.now() + WAIT_MS;
    for (let attempt = 0; ; attempt++) {
      const now = this.clock.now();
      const held = await this.store.get<CapLock>(CAP_LOCKS_COLLECTION.name, key);
      // Free, or left behind by a holder that stopped (its lease ran out): take it.
      if (!held || held.data.until <= now) {
        try {
          return await this.store.put<CapLock>(CAP_LOCKS_COLLECTION.name, key, {
            data: { holder, until: now + LEASE_MS },
            expectedVersion: held?.version ?? 0,
          });
        } catch (error) {
          if (!isAppError(error) || error.code !== 'VERSION_CONFLICT') throw error;
        }
      }
      if (performance.now() > deadline) break;
      await sleep(Math.random() * Math.min(50, 2 ** attempt));
    }
    throw new AppError('RESOURCE_CONFLICT', 'Concurrent creations for this owner: retry', { retryable: true, retryAfterSeconds: 1 });
  }

  private async release(key: string, lock: StoredDocument<CapLock>): Promise<void> {
    await this.store.delete(CAP_LOCKS_COLLECTION.name, key, lock.version).catch((error: unknown) => {
      // Taken over after our lease ran out: the lock is the new holder's now.
      if (!isAppError(error) || error.code !== 'VERSION_CONFLICT') throw error;
    });
  }
}

/**
 * Counts documents page by page until `done` says enough (the cap is reached) or none are
 * left, so a count costs at most `cap` documents read.
 */
export async function countUpTo<T>(
  cap: number,
  page: (cursor?: string) => Promise<{ items: T[]; nextCursor?: string }>,
  counts: (item: T) => boolean,
): Promise<number> {
  let total = 0;
  let cursor: string | undefined;
  do {
    const docs = await page(cursor);
    total += docs.items.filter(counts).length;
    cursor = docs.nextCursor;
  } while (cursor && total < cap);
  return total;
}
