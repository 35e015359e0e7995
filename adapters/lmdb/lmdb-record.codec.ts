import { deserialize, serialize } from 'node:v8';
import { AppError } from '../../src/errors/app-error.js';
import type { IndexValue, StoredDocument } from '../../src/ports/store.port.js';
import { encodeKey, MAX_KEY_BYTES, type KeyPart } from './lmdb-key.codec.js';

/**
 * A stored document whose data stays serialized until a reader asks for it. Values use
 * Node's v8 serializer: the structured-clone algorithm MemoryStore copies with, in a
 * format Node documents as backward-compatible (safe to store to disk).
 */
export interface DocRecord extends Omit<StoredDocument, 'data'> {
  data: Uint8Array;
}

export function encodeRecord(record: DocRecord): Buffer {
  return serialize(record);
}

export function decodeRecord(raw: Uint8Array): DocRecord {
  return deserialize(raw) as DocRecord;
}

/** The caller's copy: a fresh object graph on every call. */
export function toDocument<T>(record: DocRecord): StoredDocument<T> {
  return { ...record, data: deserialize(record.data) as T };
}

export function expired(record: DocRecord, now: number): boolean {
  return record.expiresAt !== undefined && record.expiresAt <= now;
}

export function docKey(collection: string, id: string): Buffer {
  return tupleKey([collection, id]);
}

/** Encodes a key, refusing ids and index values too long for an LMDB key (a 400). */
export function tupleKey(parts: KeyPart[]): Buffer {
  const key = encodeKey(parts);
  if (key.length > MAX_KEY_BYTES) throw AppError.validation([`key of ${key.length} bytes exceeds ${MAX_KEY_BYTES}`]);
  return key;
}

/** Index values must survive the JSON cursor, so NaN and infinities are refused. */
export function checkIndexValue(value: unknown, error: () => AppError): asserts value is IndexValue {
  if (typeof value !== 'string' && !(typeof value === 'number' && Number.isFinite(value))) throw error();
}
