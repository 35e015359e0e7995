import { serialize } from 'node:v8';
import { AppError } from '../../kernel/errors/app-error.js';
import type { IndexValue, JournalEntryInput, PutInput } from '../../kernel/ports/store.port.js';
import type { LmdbValueCompression } from './lmdb-compression.js';
import { checkIndexValue, docKey, tupleKey, type DocRecord } from './lmdb-record.codec.js';

/** A put checked and serialized, ready to be decided on what is stored. */
export interface PreparedPut {
  collection: string;
  id: string;
  key: Buffer;
  expectedVersion: number;
  indexes: Record<string, IndexValue>;
  indexKeys: Array<{ name: string; key: Buffer }>;
  expiresAt: number | undefined;
  expiryKey: Buffer | undefined;
  data: Uint8Array;
  /** The journal entry's bytes as stored (compressed when worth it). */
  entry: Buffer | undefined;
}

export interface PlannedPut {
  record: DocRecord;
  /** The record's bytes as stored (compressed when worth it). */
  raw: Buffer;
  /** The record's bytes uncompressed. */
  size: number;
  write: () => void;
}

/**
 * Everything of a put that can throw, before any write is queued; the serialized bytes
 * also snapshot the caller's objects at call time.
 */
export function preparePut(
  collection: string,
  id: string,
  input: PutInput,
  journal: JournalEntryInput | undefined,
  /** How this collection's values are compressed; undefined: stored as they are. */
  compression: LmdbValueCompression | undefined,
): PreparedPut {
  const indexes = { ...(input.indexes ?? {}) };
  const indexKeys = Object.entries(indexes).map(([name, value]) => {
    checkIndexValue(value, () => AppError.internal(`Index ${name} must be a string or finite number`));
    return { name, key: tupleKey([collection, name, value, id]) };
  });
  const { expiresAt } = input;
  if (expiresAt !== undefined && !Number.isFinite(expiresAt)) throw AppError.internal('expiresAt must be finite');
  const expiryKey = expiresAt === undefined ? undefined : tupleKey([expiresAt, collection, id]);
  const key = docKey(collection, id);
  tupleKey([collection, id, Number.MAX_SAFE_INTEGER]); // the journal key must fit too
  return {
    collection,
    id,
    key,
    expectedVersion: input.expectedVersion,
    indexes,
    indexKeys,
    expiresAt,
    expiryKey,
    data: serialize(input.data),
    entry: journal === undefined ? undefined : packed(serialize(journal), compression),
  };
}

/** The bytes to store for `value`: packed by `compression`, or as they are without one. */
export function packed(value: Buffer, compression: LmdbValueCompression | undefined): Buffer {
  return compression ? compression.pack(value) : value;
}
