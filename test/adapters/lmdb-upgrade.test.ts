import { cpSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { open } from 'lmdb';
import { afterEach, describe, expect, it } from 'vitest';
import { docKey, tupleKey } from '../../adapters/lmdb/lmdb-record.codec.js';
import { LmdbStore } from '../../adapters/lmdb/lmdb-store.adapter.js';
import { STORE_COMPRESSION_SAMPLES } from '../../src/composition/store-compression.samples.js';
import {
  AGENT_COUNT,
  AUDIT_SEGMENTS,
  agentData,
  agentEntry,
  agentIndexes,
  auditData,
  FIXTURE_NOW,
  FIXTURE_SPECS,
  LEGACY_AGENT,
  SESSIONS,
} from '../fixtures/lmdb-before-compression/contents.js';
import { ManualClock } from '../support/manual-clock.adapter.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/lmdb-before-compression/store', import.meta.url));
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A copy of the fixture (never opened in place: opening writes the lock file and the dictionary). */
async function fixtureCopy(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'lmdb-upgrade-'));
  dirs.push(dir);
  cpSync(FIXTURE, dir, { recursive: true });
  return dir;
}

async function openStore(path: string): Promise<LmdbStore> {
  const store = new LmdbStore({
    path,
    clock: new ManualClock(FIXTURE_NOW),
    sweepIntervalMs: 3_600_000,
    compressionSamples: STORE_COMPRESSION_SAMPLES,
  });
  await store.init(FIXTURE_SPECS);
  return store;
}

/** Everything the fixture was written with reads back as it was written. */
async function expectFixtureContents(store: LmdbStore, rewritten: ReadonlySet<string> = new Set()): Promise<void> {
  for (let n = 0; n < AGENT_COUNT; n++) {
    const id = `agt_${n}`;
    if (rewritten.has(id)) continue;
    expect(await store.get('agents', id)).toMatchObject({ id, version: 3, indexes: agentIndexes(n, 3), data: agentData(n, 3) });
    const journal = await store.readJournal('agents', id, { limit: 10 });
    expect(journal).toEqual([1, 2, 3].map((v) => ({ seq: v, ...agentEntry(n, v) })));
  }
  if (!rewritten.has(LEGACY_AGENT.id))
    expect(await store.get('agents', LEGACY_AGENT.id)).toMatchObject({ version: LEGACY_AGENT.version, data: LEGACY_AGENT.data });
  for (const segment of AUDIT_SEGMENTS)
    expect(await store.get('audit', segment.id)).toMatchObject({ version: 1, data: auditData(segment.entries) });
  const [live, expired] = SESSIONS;
  expect(await store.get('sessions', live!.id)).toMatchObject({ data: live!.data, expiresAt: live!.expiresAt });
  expect(await store.get('sessions', expired!.id)).toBeNull();
}

describe('LmdbStore on a data directory written before values were compressed', () => {
  it('reads everything, writes compressed values beside the old ones, and reads both after reopening', async () => {
    const path = await fixtureCopy();
    const store = await openStore(path);
    await expectFixtureContents(store);
    const owned = await store.find('agents', { index: 'owner', eq: 'usr_0' }, { limit: 10 });
    expect(owned.items.map((d) => d.id)).toEqual(['agt_0', 'agt_2', LEGACY_AGENT.id]);

    // New writes: an old document's next version, a new document, the legacy one rewritten.
    const next = { ...agentData(0, 4), note: 'written compressed'.repeat(10) };
    const nextEntry = {
      event: { type: 'agent.touch', input: { agentId: 'agt_0', note: 'n'.repeat(200) } },
      state: 'active',
      at: FIXTURE_NOW + 4,
    };
    await store.put('agents', 'agt_0', { data: next, indexes: agentIndexes(0, 4), expectedVersion: 3 }, nextEntry);
    await store.put('agents', 'agt_new', { data: agentData(7, 1), indexes: agentIndexes(7, 1), expectedVersion: 0 }, agentEntry(7, 1));
    await store.put('agents', LEGACY_AGENT.id, { data: agentData(9, 5), indexes: LEGACY_AGENT.indexes, expectedVersion: 4 });
    await store.put('audit', 'seg-new', { data: auditData(30), indexes: { subject: 'agent:agt_0' }, expectedVersion: 0 });
    const rewritten = new Set(['agt_0', LEGACY_AGENT.id]);
    await expectFixtureContents(store, rewritten);
    await store.close();

    // What is stored: the new values tagged 0x02, the untouched ones as the old code wrote them.
    const raw = open({ path });
    const binary = { keyEncoding: 'binary', encoding: 'binary' } as const;
    const documents = raw.openDB<Buffer, Buffer>({ name: 'documents', useVersions: true, ...binary });
    const journal = raw.openDB<Buffer, Buffer>({ name: 'journal', ...binary });
    const firstByte = (db: typeof documents, key: Buffer) => db.getBinary(key)?.[0];
    expect(firstByte(documents, docKey('agents', 'agt_0'))).toBe(0x02);
    expect(firstByte(documents, docKey('agents', 'agt_new'))).toBe(0x02);
    expect(firstByte(documents, docKey('audit', 'seg-new'))).toBe(0x02);
    expect(firstByte(journal, tupleKey(['agents', 'agt_0', 4]))).toBe(0x02);
    expect(firstByte(documents, docKey('agents', 'agt_1'))).toBe(0x01);
    expect(firstByte(journal, tupleKey(['agents', 'agt_1', 3]))).toBe(0xff);
    await raw.close();

    const reopened = await openStore(path);
    await expectFixtureContents(reopened, rewritten);
    expect(await reopened.get('agents', 'agt_0')).toMatchObject({ version: 4, data: next });
    expect(await reopened.readJournal('agents', 'agt_0', { limit: 10 })).toEqual([
      ...[1, 2, 3].map((v) => ({ seq: v, ...agentEntry(0, v) })),
      { seq: 4, ...nextEntry },
    ]);
    expect(await reopened.get('agents', 'agt_new')).toMatchObject({ version: 1, data: agentData(7, 1) });
    expect(await reopened.readJournal('agents', 'agt_new', { limit: 10 })).toEqual([{ seq: 1, ...agentEntry(7, 1) }]);
    expect(await reopened.get('agents', LEGACY_AGENT.id)).toMatchObject({ version: 5, data: agentData(9, 5) });
    expect(await reopened.get('audit', 'seg-new')).toMatchObject({ data: auditData(30) });
    const listed = await reopened.list('agents', { limit: 10 });
    expect(listed.items.map((d) => d.id).sort()).toEqual(['agt_0', 'agt_1', 'agt_2', LEGACY_AGENT.id, 'agt_new'].sort());
    await reopened.close();
  });
});
