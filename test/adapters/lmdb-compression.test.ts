import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serialize } from 'node:v8';
import { open } from 'lmdb';
import { afterEach, describe, expect, it } from 'vitest';
import {
  COMPRESSION_THRESHOLD,
  environmentDictionary,
  LmdbValueCompression,
  MAX_DICTIONARY_BYTES,
  makeDictionary,
  type CompressionSample,
} from '../../adapters/lmdb/lmdb-compression.js';
import { docKey, encodeRecord, tupleKey } from '../../adapters/lmdb/lmdb-record.codec.js';
import { LmdbStore } from '../../adapters/lmdb/lmdb-store.adapter.js';
import { STORE_COMPRESSION_SAMPLES } from '../../src/composition/store-compression.samples.js';
import { ManualClock } from '../support/manual-clock.adapter.js';

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'lmdb-compression-'));
  dirs.push(dir);
  return dir;
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** An agent's record as the store writes it, with ids no sample has. */
function agentRecord(n: number): Buffer {
  const agentId = `agt_${randomBytes(12).toString('base64url')}`;
  const ownerId = `usr_${randomBytes(16).toString('base64url')}`;
  const publicId = `pub_${randomBytes(18).toString('base64url')}`;
  const context = { agentId, publicId, ownerId, name: `agent ${n}`, createdAt: Date.now(), tradingEnabled: false };
  const data = { machineVersion: 2, snapshot: { status: 'active', value: 'active', historyValue: {}, context, children: {} } };
  return encodeRecord({
    id: agentId,
    version: 1,
    indexes: { state: 'active', ownerId, publicId },
    updatedAt: Date.now(),
    data: serialize(data),
  });
}

describe('LMDB value compression', () => {
  const withSamples = new LmdbValueCompression(makeDictionary(STORE_COMPRESSION_SAMPLES));
  const withoutDictionary = new LmdbValueCompression(Buffer.alloc(0));

  it('stores a record tagged 0x02 and smaller, and reads back its exact bytes', () => {
    const record = agentRecord(1);
    const packed = withSamples.pack(record);
    expect(packed[0]).toBe(0x02);
    expect(packed.length).toBeLessThan(record.length);
    expect(withSamples.unpack(packed).equals(record)).toBe(true);
  });

  it('compresses a record like the samples to well under what LZ4 alone does', () => {
    const record = agentRecord(2);
    const alone = withoutDictionary.pack(record).length;
    const dictionary = withSamples.pack(record).length;
    // Measured: 468-byte agent records store in ~190 bytes with the samples, ~390 without.
    expect(dictionary).toBeLessThan(alone * 0.7);
    expect(dictionary).toBeLessThan(record.length * 0.6);
  });

  it('leaves small values and values that do not shrink as they are', () => {
    const small = Buffer.from(serialize({ event: { type: 'agent.activate' }, state: 'active', at: 1 }));
    expect(small.length).toBeLessThan(COMPRESSION_THRESHOLD);
    expect(withSamples.pack(small)).toBe(small);
    const noise = randomBytes(2_000);
    noise[0] = 0x01;
    expect(withSamples.pack(noise)).toBe(noise);
  });

  it('reads values stored before compression unchanged: records (0x01) and v8 values (0xFF)', () => {
    const record = agentRecord(3);
    expect(record[0]).toBe(0x01);
    expect(withSamples.unpack(record)).toBe(record);
    const entry = serialize({ event: { type: 'xstate.init', input: { name: 'x'.repeat(300) } }, state: 'active', at: 1 });
    expect(entry[0]).toBe(0xff);
    expect(withSamples.unpack(entry)).toBe(entry);
  });

  it('fails on a compressed value cut short or not of its declared length instead of returning other bytes', () => {
    const packed = withSamples.pack(agentRecord(4));
    expect(() => withSamples.unpack(packed.subarray(0, packed.length - 3))).toThrow();
    const longer = Buffer.from(packed);
    longer.writeUInt32LE(packed.readUInt32LE(1) + 50, 1); // the length lz4-napi prepends
    expect(() => withSamples.unpack(longer)).toThrow(/its length/);
  });

  it('makes the dictionary of the samples as stored, keeping the last ones when they exceed its size', () => {
    const dictionary = makeDictionary(STORE_COMPRESSION_SAMPLES);
    expect(dictionary.length).toBeGreaterThan(4_000);
    expect(dictionary.length).toBeLessThanOrEqual(MAX_DICTIONARY_BYTES);
    const many: CompressionSample[] = Array.from({ length: 200 }, (_, i) => ({ id: `s-${i}`, data: { n: i, text: 'y'.repeat(200) } }));
    const cut = makeDictionary([...many, { id: 'last', data: { marker: 'the-last-sample' } }]);
    expect(cut.length).toBe(MAX_DICTIONARY_BYTES);
    expect(cut.includes(Buffer.from('the-last-sample'))).toBe(true);
    expect(cut.includes(Buffer.from('"id":"s-0"'))).toBe(false);
  });
});

describe('the compression dictionary of an environment', () => {
  it('is made once from the samples and kept, whatever later opens are given', async () => {
    const path = await tempDir();
    const first = open({ path });
    const made = environmentDictionary(first, STORE_COMPRESSION_SAMPLES);
    expect(made).toEqual(makeDictionary(STORE_COMPRESSION_SAMPLES));
    expect(environmentDictionary(first, [])).toEqual(made);
    await first.close();
    const again = open({ path });
    expect(environmentDictionary(again, [{ id: 'other', data: { other: true } }])).toEqual(made);
    await again.close();
  });

  it('reads documents and journals written with it after reopening with other samples', async () => {
    const path = await tempDir();
    const specs = [{ name: 'agents', indexes: ['owner'] }];
    const entry = { event: { type: 'xstate.init', input: { agentId: 'agt_1', note: 'n'.repeat(400) } }, state: 'active', at: 5 };
    const data = { machineVersion: 2, snapshot: { value: 'active', context: { agentId: 'agt_1', note: 'm'.repeat(400) } } };
    const store = new LmdbStore({
      path,
      clock: new ManualClock(),
      sweepIntervalMs: 3_600_000,
      compressionSamples: STORE_COMPRESSION_SAMPLES,
    });
    await store.init(specs);
    await store.put('agents', 'agt_1', { data, indexes: { owner: 'o' }, expectedVersion: 0 }, entry);
    await store.close();

    const reopened = new LmdbStore({ path, clock: new ManualClock(), sweepIntervalMs: 3_600_000 });
    await reopened.init(specs);
    expect(await reopened.get('agents', 'agt_1')).toMatchObject({ version: 1, data });
    expect(await reopened.readJournal('agents', 'agt_1', { limit: 5 })).toEqual([{ seq: 1, ...entry }]);
    await reopened.close();
  });

  it('keeps the collections it is told to store as they are uncompressed, and reads them back after a reopen that compresses them', async () => {
    const path = await tempDir();
    const specs = [
      { name: 'hot', indexes: [] },
      { name: 'cold', indexes: [] },
    ];
    const entry = { event: { type: 'xstate.init', input: { note: 'n'.repeat(400) } }, state: 'active', at: 5 };
    const data = { note: 'm'.repeat(400) };
    const options = { path, clock: new ManualClock(), sweepIntervalMs: 3_600_000, compressionSamples: STORE_COMPRESSION_SAMPLES };
    const store = new LmdbStore({ ...options, storedAsIs: ['hot'] });
    await store.init(specs);
    await store.put('hot', 'h', { data, expectedVersion: 0 }, entry);
    await store.commit([{ op: 'put', collection: 'hot', id: 'h2', input: { data, expectedVersion: 0 } }]);
    await store.put('cold', 'c', { data, expectedVersion: 0 }, entry);
    await store.close();

    const raw = open({ path });
    const binary = { keyEncoding: 'binary', encoding: 'binary' } as const;
    const documents = raw.openDB<Buffer, Buffer>({ name: 'documents', useVersions: true, ...binary });
    const journal = raw.openDB<Buffer, Buffer>({ name: 'journal', ...binary });
    expect(documents.getBinary(docKey('hot', 'h'))?.[0]).toBe(0x01);
    expect(documents.getBinary(docKey('hot', 'h2'))?.[0]).toBe(0x01);
    expect(journal.getBinary(tupleKey(['hot', 'h', 1]))?.[0]).toBe(0xff);
    expect(documents.getBinary(docKey('cold', 'c'))?.[0]).toBe(0x02);
    expect(journal.getBinary(tupleKey(['cold', 'c', 1]))?.[0]).toBe(0x02);
    await raw.close();

    const reopened = new LmdbStore(options);
    await reopened.init(specs);
    expect(await reopened.get('hot', 'h')).toMatchObject({ version: 1, data });
    expect(await reopened.readJournal('hot', 'h', { limit: 5 })).toEqual([{ seq: 1, ...entry }]);
    expect(await reopened.put('hot', 'h', { data, expectedVersion: 1 })).toMatchObject({ version: 2 });
    expect(await reopened.get('cold', 'c')).toMatchObject({ version: 1, data });
    await reopened.close();
  });
});
