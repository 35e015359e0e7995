import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../support/manual-clock.adapter.js';
import { LmdbStore } from '../../../adapters/lmdb/lmdb-store.adapter.js';
import { MemoryStore } from '../../support/memory-store.adapter.js';
import {
  KILL_SWITCH_CACHE_MS,
  KILL_SWITCH_COLLECTIONS,
  KILL_SWITCH_DOC_ID,
  StoreKillSwitch,
  TRADING_SETTINGS_COLLECTION,
} from '../../../agents/config/kill-switch.service.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import type { StorePort } from '../../../kernel/ports/store.port.js';
import { CHAINS, type Chain } from '../../../kernel/ports/venue.port.js';

/** One store shared by "processes"; reads of the kill-switch document are counted, and can be made to fail. */
async function setup() {
  const clock = new ManualClock(Date.UTC(2026, 2, 1, 12));
  const memory = new MemoryStore(clock);
  await memory.init(KILL_SWITCH_COLLECTIONS);
  const reads = { count: 0, failNext: false };
  const store = Object.assign(Object.create(memory) as StorePort, {
    get: async <T>(collection: string, id: string) => {
      reads.count++;
      if (reads.failNext) {
        reads.failNext = false;
        throw new AppError('DEPENDENCY_UNAVAILABLE', 'store down');
      }
      return memory.get<T>(collection, id);
    },
  });
  const process = (configured: Chain[] = []) => new StoreKillSwitch({ store, clock, configured });
  return { clock, memory, reads, process };
}

describe('StoreKillSwitch', () => {
  it('starts with the chains of the configuration on, without reading the store for them', async () => {
    const { process, reads } = await setup();
    const killSwitch = process(['solana', 'base']);
    expect(await killSwitch.isActive('solana')).toBe(true);
    expect(reads.count).toBe(0);
    expect(await killSwitch.isActive('ethereum')).toBe(false);
    expect(await killSwitch.active()).toEqual(['solana', 'base']);
    expect((await killSwitch.status()).chains).toEqual([
      { chain: 'solana', active: true, source: 'configuration' },
      { chain: 'ethereum', active: false },
      { chain: 'base', active: true, source: 'configuration' },
      { chain: 'arbitrum', active: false },
      { chain: 'optimism', active: false },
    ]);
  });

  it('switches a chain on and off, stores when and journals each change', async () => {
    const { process, clock, memory } = await setup();
    const killSwitch = process();
    const on = await killSwitch.set('arbitrum', true);
    expect(on.active).toEqual(['arbitrum']);
    expect(on.chains[3]).toEqual({ chain: 'arbitrum', active: true, source: 'operator', since: new Date(clock.now()).toISOString() });
    expect(await killSwitch.isActive('arbitrum')).toBe(true);
    // Setting the state it already has writes nothing.
    await killSwitch.set('arbitrum', true);
    expect((await killSwitch.set('arbitrum', false)).active).toEqual([]);
    expect(await killSwitch.isActive('arbitrum')).toBe(false);
    const journal = await memory.readJournal(TRADING_SETTINGS_COLLECTION, KILL_SWITCH_DOC_ID, { limit: 10 });
    expect(journal.map((entry) => entry.event)).toEqual([
      { type: 'kill-switch.set', chain: 'arbitrum', active: true },
      { type: 'kill-switch.set', chain: 'arbitrum', active: false },
    ]);
  });

  it('refuses to switch off a chain the configuration keeps on (409)', async () => {
    const { process } = await setup();
    const killSwitch = process(['solana']);
    await expect(killSwitch.set('solana', false)).rejects.toMatchObject({
      kind: 'conflict',
      message: 'Kill switch for solana is set by configuration (TRADING_KILL_SWITCH); change it there and restart',
    });
    expect(await killSwitch.isActive('solana')).toBe(true);
  });

  it('reads the store at most once per cache window, one read for concurrent callers', async () => {
    const { process, reads, clock } = await setup();
    const killSwitch = process();
    await Promise.all(Array.from({ length: 50 }, () => killSwitch.isActive('base')));
    expect(reads.count).toBe(1);
    await clock.advance(KILL_SWITCH_CACHE_MS - 1);
    await killSwitch.isActive('base');
    expect(reads.count).toBe(1);
    await clock.advance(1);
    await Promise.all([killSwitch.isActive('base'), killSwitch.active()]);
    expect(reads.count).toBe(2);
  });

  it('another process sees a change once its cache window has passed; the changing one at once', async () => {
    const { process, clock } = await setup();
    const a = process();
    const b = process();
    expect(await b.isActive('solana')).toBe(false);
    await a.set('solana', true);
    expect(await a.isActive('solana')).toBe(true);
    await clock.advance(KILL_SWITCH_CACHE_MS - 1);
    expect(await b.isActive('solana')).toBe(false);
    await clock.advance(1);
    expect(await b.isActive('solana')).toBe(true);
    await b.set('solana', false);
    expect(await b.isActive('solana')).toBe(false);
    await clock.advance(KILL_SWITCH_CACHE_MS);
    expect(await a.isActive('solana')).toBe(false);
  });

  it('does not cache a failed read: the error reaches the caller, the next call reads again', async () => {
    const { process, reads } = await setup();
    const killSwitch = process();
    reads.failNext = true;
    await expect(killSwitch.isActive('base')).rejects.toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
    expect(await killSwitch.isActive('base')).toBe(false);
    expect(reads.count).toBe(2);
  });
});

describe('StoreKillSwitch under contention (two LMDB handles on one directory)', () => {
  it('30 concurrent switches from two processes: every change lands exactly once, repeats write nothing', async () => {
    const clock = new ManualClock(Date.UTC(2026, 2, 1, 12));
    const dir = await mkdtemp(join(tmpdir(), 'kill-switch-'));
    const handles = [
      new LmdbStore({ path: dir, clock, sweepIntervalMs: 3_600_000 }),
      new LmdbStore({ path: dir, clock, sweepIntervalMs: 3_600_000 }),
    ];
    try {
      for (const store of handles) await store.init(KILL_SWITCH_COLLECTIONS);
      const [a, b] = handles.map((store) => new StoreKillSwitch({ store, clock, configured: [] }));
      for (const active of [true, false]) {
        await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? a! : b!).set(CHAINS[i % CHAINS.length]!, active)));
      }
      // One write per chain switched on, one per chain switched off: no change lost, none doubled.
      const journal = await handles[0]!.readJournal(TRADING_SETTINGS_COLLECTION, KILL_SWITCH_DOC_ID, { limit: 100 });
      const changes = journal.map((entry) => entry.event as { chain: Chain; active: boolean });
      expect(
        changes
          .filter((change) => change.active)
          .map((change) => change.chain)
          .sort(),
      ).toEqual([...CHAINS].sort());
      expect(
        changes
          .filter((change) => !change.active)
          .map((change) => change.chain)
          .sort(),
      ).toEqual([...CHAINS].sort());
      expect(changes.slice(0, CHAINS.length).every((change) => change.active)).toBe(true);
      expect(await handles[1]!.get(TRADING_SETTINGS_COLLECTION, KILL_SWITCH_DOC_ID)).toMatchObject({
        version: 2 * CHAINS.length,
        data: { active: {} },
      });
    } finally {
      await Promise.all(handles.map((store) => store.close()));
      await rm(dir, { recursive: true, force: true });
    }
  });
});
