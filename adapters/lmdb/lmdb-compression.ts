import { serialize } from 'node:v8';
import type { RootDatabase } from 'lmdb';
import { compressSync, uncompressSync } from 'lz4-napi';
import type { IndexValue, JournalEntryInput } from '../../kernel/ports/store.port.js';
import { encodeRecord } from './lmdb-record.codec.js';

/**
 * The first byte of a compressed value: the LZ4 block (lz4-napi's, its length prepended) of
 * the value as it would otherwise be stored follows. Every value stored before starts with
 * 0x01 (a record, lmdb-record.codec.ts) or 0xFF (v8's version tag: journal entries, records
 * of the older layout), so those read back unchanged and no data directory is migrated.
 */
const COMPRESSED_TAG = 0x02;

/**
 * Values shorter than this stay as they are: an agent's journal entry of 65 bytes saves some 25,
 * for as much CPU as a value ten times its size (most of a small value's cost is the call and
 * the dictionary's setup).
 */
export const COMPRESSION_THRESHOLD = 128;

/**
 * The dictionary's bound. lz4-napi loads the dictionary on every compression: a 76-byte value
 * took ~4 µs with none, ~10 with 16 KB and ~18 with 64 KB of synthetic dictionary. The
 * samples make ~10 KB, with which the values of a swap took 8-10 µs each, as without one
 * (DECISIONS, "LMDB values compressed"); the bound keeps more samples from costing every write.
 */
export const MAX_DICTIONARY_BYTES = 16 * 1024;

/** The write time the samples' records carry: a time of these years, so the dictionary has the digits an `updatedAt` starts with. */
const SAMPLE_UPDATED_AT = 1_796_000_000_000;

/** The settings database's key of the dictionary an environment's values are compressed with. */
const DICTIONARY_KEY = Buffer.from('compression.dictionary');

/**
 * A representative stored document (and the journal entry written with it): the dictionary is
 * made of such documents encoded exactly as the store writes them, so the property names, enum
 * values and id prefixes a value repeats are found in it.
 */
export interface CompressionSample {
  id: string;
  indexes?: Record<string, IndexValue>;
  data: unknown;
  journal?: JournalEntryInput;
}

/**
 * LZ4 with a dictionary over the values of one environment, on the caller's thread: ~10 µs a
 * value of 0.5-5 KB to compress, ~2 to decompress (lmdb-js's own compression, measured
 * against it, costs more CPU a write: DECISIONS, "LMDB values compressed").
 */
export class LmdbValueCompression {
  constructor(private readonly dictionary: Buffer) {}

  /** The bytes to store for `value`: compressed and tagged, or `value` itself when small or when it does not shrink. */
  pack(value: Buffer): Buffer {
    if (value.length < COMPRESSION_THRESHOLD) return value;
    const block = compressSync(value, this.dictionary);
    if (block.length + 1 >= value.length) return value;
    const out = Buffer.allocUnsafe(block.length + 1);
    out[0] = COMPRESSED_TAG;
    block.copy(out, 1);
    return out;
  }

  /**
   * The value `stored` holds: decompressed when tagged, otherwise `stored` as it is. Throws on
   * a compressed value that is cut short or does not have the length it declares (lz4-napi
   * returns what it could decode); like any stored value, a changed byte within may pass.
   */
  unpack(stored: Buffer): Buffer {
    if (stored[0] !== COMPRESSED_TAG) return stored;
    const value = uncompressSync(stored.subarray(1), this.dictionary);
    if (value.length !== stored.readUInt32LE(1)) throw new Error('A compressed LMDB value does not decompress to its length');
    return value;
  }
}

/**
 * The environment's dictionary: the one stored in its `settings` database, or, on its first
 * open by this code, one made from `samples` and stored, so that a data directory is always
 * read with the dictionary it was written with whatever the samples become. Read and written in
 * one write transaction: two processes opening a new environment at once store one dictionary
 * (the writer lock orders them and the second finds the first's), and the store's constructor
 * leaves no read transaction behind (one begun there is a snapshot of before whatever another
 * handle of the environment in this process commits until lmdb-js renews it, and a sync write
 * right after a read of the same root left lmdb-js's renewal timer an invalid transaction).
 */
export function environmentDictionary(root: RootDatabase, samples: readonly CompressionSample[]): Buffer {
  const settings = root.openDB<Buffer, Buffer>({ name: 'settings', keyEncoding: 'binary', encoding: 'binary' });
  return root.transactionSync(() => {
    const stored = settings.getBinary(DICTIONARY_KEY);
    // A copy: what a read returns inside a transaction is only valid within it.
    if (stored !== undefined) return Buffer.from(stored);
    const made = makeDictionary(samples);
    settings.put(DICTIONARY_KEY, made);
    return made;
  });
}

/**
 * The samples as stored (records and journal entries), concatenated and cut to its last
 * MAX_DICTIONARY_BYTES: LZ4 keeps only the end of a longer dictionary, so the samples that
 * matter most come last.
 */
export function makeDictionary(samples: readonly CompressionSample[]): Buffer {
  const parts = samples.flatMap((sample) => {
    const record = encodeRecord({
      id: sample.id,
      version: 1,
      indexes: sample.indexes ?? {},
      updatedAt: SAMPLE_UPDATED_AT,
      data: serialize(sample.data),
    });
    return sample.journal ? [serialize(sample.journal), record] : [record];
  });
  const all = Buffer.concat(parts);
  return all.length > MAX_DICTIONARY_BYTES ? all.subarray(all.length - MAX_DICTIONARY_BYTES) : all;
}
