import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { LmdbStore } from '../../adapters/lmdb/lmdb-store.adapter.js';
import { CATALOG_SETTINGS_COLLECTIONS, StoredCatalogSettings } from '../../src/operations/catalog-settings.store.js';
import { OperationCatalog } from '../../src/operations/operation-catalog.js';
import { OPERATION_FAMILIES } from '../../src/operations/operation-families.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

describe('StoredCatalogSettings under contention', () => {
  it('30 concurrent saves from two processes on one LMDB directory each land once; both processes end on the stored settings', async () => {
    const clock = new ManualClock(Date.UTC(2026, 2, 1, 12));
    const dir = await mkdtemp(join(tmpdir(), 'catalog-settings-'));
    const handles = [
      new LmdbStore({ path: dir, clock, sweepIntervalMs: 3_600_000 }),
      new LmdbStore({ path: dir, clock, sweepIntervalMs: 3_600_000 }),
    ];
    cleanups.push(async () => {
      await Promise.all(handles.map((store) => store.close()));
      await rm(dir, { recursive: true, force: true });
    });
    for (const store of handles) await store.init(CATALOG_SETTINGS_COLLECTIONS);
    const processes = handles.map((store) => {
      const catalog = new OperationCatalog();
      return { catalog, settings: new StoredCatalogSettings({ store, catalog, clock, logger: { error: () => undefined } }) };
    });
    const saves = Array.from({ length: 30 }, (_, i) => ({
      disabledFamilies: OPERATION_FAMILIES.slice(0, i % OPERATION_FAMILIES.length),
      disabledOperations: [],
    }));
    await Promise.all(saves.map((settings, i) => processes[i % 2]!.settings.save(settings)));

    const stored = await handles[0]!.get<{ disabledFamilies: string[] }>('ops.settings', 'catalog');
    expect(stored?.version).toBe(30);
    for (const { catalog, settings } of processes) {
      await settings.refresh();
      expect(catalog.currentSettings()).toEqual(stored?.data);
    }
  });
});
