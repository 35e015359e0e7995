import { deserialize, serialize } from 'node:v8';
import { AppError } from '../../src/errors/app-error.js';
import type { IndexValue, StoredDocument } from '../../src/ports/store.port.js';
import { deepFreeze } from '../../src/shared/deep-freeze.js';
import { encodeKey, MAX_KEY_BYTES, type KeyPart } from './lmdb-key.codec.js';

/**
 * A stored document as written: the data is serialized on its own at put time (so the
 * bytes snapshot the caller's objects then), the record around it inside the write
 * transaction. Values use Node's v8 serializer: the structured-clone algorithm, in a
 * format Node documents as backward-compatible (safe to store to disk).
 */
export interface DocRecord extends Omit<StoredDocument, 'data'> {
  data: Uint8Array;
}

export function encodeRecord(record: DocRecord): Buffer {
  return serialize(record);
}

/** The document of stored bytes (StorePort: frozen, shared); see `lazyDocument`. */
export function decodeDocument(raw: Uint8Array): StoredDocument {
  return lazyDocument(deserialize(raw) as DocRecord);
}

/**
 * A frozen document whose data is decoded from the record's bytes only when first read:
 * the compare-and-set of a put, a `find` skipping expired documents and the runtime's
 * puts need only the version, indexes and expiry. Built by hand, since `deepFreeze`
 * would read the getter.
 */
export function lazyDocument(record: DocRecord): StoredDocument {
  const { data: bytes, indexes, ...meta } = record;
  let data: unknown;
  let decoded = false;
  return Object.freeze({
    ...meta,
    indexes: Object.freeze(indexes),
    get data(): unknown {
      if (!decoded) {
        data = deepFreeze(deserialize(bytes));
        decoded = true;
      }
      return data;
    },
  });
}

export function expired(record: Pick<StoredDocument, 'expiresAt'>, now: number): boolean {
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
