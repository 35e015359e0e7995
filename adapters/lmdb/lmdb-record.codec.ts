import { deserialize } from 'node:v8';
import { AppError } from '../../kernel/errors/app-error.js';
import type { IndexValue, StoredDocument } from '../../kernel/ports/store.port.js';
import { encodeKey, MAX_KEY_BYTES, type KeyPart } from './lmdb-key.codec.js';

/**
 * A stored document as written: the data is serialized on its own when `put` is called (so
 * the bytes snapshot the caller's objects then), the record around it when the put decides
 * what to write. Data and journal values use Node's v8 serializer: the structured-clone
 * algorithm, in a format Node documents as backward-compatible (safe to store to disk).
 */
export interface DocRecord extends Omit<StoredDocument, 'data'> {
  data: Uint8Array;
}

/**
 * The record layout: one tag byte, the length of a JSON header (id, version, indexes,
 * updatedAt, expiresAt: strings and finite numbers, which JSON keeps exactly), the header,
 * then the data's bytes as they are. Wrapping the record in a second v8 serialization cost
 * about three times as much on every put and every decode, and copied the data twice.
 * Records written before this layout are v8-serialized whole and start with v8's 0xFF.
 */
const RECORD_TAG = 0x01;
const HEADER_OFFSET = 5;

export function encodeRecord(record: DocRecord): Buffer {
  const { data, ...meta } = record;
  const header = Buffer.from(JSON.stringify(meta), 'utf8');
  const out = Buffer.allocUnsafe(HEADER_OFFSET + header.length + data.length);
  out[0] = RECORD_TAG;
  out.writeUInt32BE(header.length, 1);
  header.copy(out, HEADER_OFFSET);
  out.set(data, HEADER_OFFSET + header.length);
  return out;
}

/** The document of stored bytes (StorePort: frozen, shared); see `lazyDocument`. */
export function decodeDocument(raw: Buffer): StoredDocument {
  return lazyDocument(decodeRecord(raw));
}

function decodeRecord(raw: Buffer): DocRecord {
  if (raw[0] !== RECORD_TAG) return deserialize(raw) as DocRecord;
  const end = HEADER_OFFSET + raw.readUInt32BE(1);
  const meta = JSON.parse(raw.toString('utf8', HEADER_OFFSET, end)) as Omit<DocRecord, 'data'>;
  return { ...meta, data: raw.subarray(end) };
}

/**
 * A frozen document whose data is decoded from the record's bytes only when first read:
 * the compare-and-set of a put, a `find` skipping expired documents and the runtime's
 * puts need only the version, indexes and expiry. Built by hand, since `deepFreeze`
 * would read the getter.
 */
export function lazyDocument(record: DocRecord): StoredDocument {
  const { data: serialized, indexes, ...meta } = record;
  // Let go once decoded: when the record was stored compressed these are the decompressed
  // bytes, which nothing else holds (the read cache keeps the stored ones).
  let bytes: Uint8Array | undefined = serialized;
  let data: unknown;
  return Object.freeze({
    ...meta,
    indexes: Object.freeze(indexes),
    get data(): unknown {
      if (bytes !== undefined) {
        data = freezeDecoded(deserialize(bytes));
        bytes = undefined;
      }
      return data;
    },
  });
}

/**
 * `deepFreeze` for a value just deserialized (nothing in it frozen yet, no getters): children
 * that are not objects are skipped without a call, and an array's items are not copied out
 * first: a paper wallet's balance document, read on every swap, holds rings of hundreds of
 * order ids. Cycles (the structured clone keeps them) stop at what is frozen already.
 */
function freezeDecoded<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value) || ArrayBuffer.isView(value)) return value;
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === 'object' && item !== null) freezeDecoded(item);
    }
    return value;
  }
  for (const key of Object.keys(value)) {
    const item: unknown = (value as Record<string, unknown>)[key];
    if (typeof item === 'object' && item !== null) freezeDecoded(item);
  }
  return value;
}

export function expired(record: Pick<StoredDocument, 'expiresAt'>, now: number): boolean {
  return record.expiresAt !== undefined && record.expiresAt <= now;
}

export function docKey(collection: string, id: string): Buffer {
  return tupleKey([collection, id]);
}

/** Encodes a key, refusing ids and index values too long for an LMDB key (a 400). */
export function tupleKey(parts: KeyPart[]): Buffer {
  const key = fittingKey(parts);
  if (!key) throw AppError.validation([`key of ${encodeKey(parts).length} bytes exceeds ${MAX_KEY_BYTES}`]);
  return key;
}

/** The key of `parts`, or undefined when it is too long to be one (so nothing is stored under it). */
export function fittingKey(parts: KeyPart[]): Buffer | undefined {
  const key = encodeKey(parts);
  return key.length > MAX_KEY_BYTES ? undefined : key;
}

/** Index values must survive the JSON cursor, so NaN and infinities are refused. */
export function checkIndexValue(value: unknown, error: () => AppError): asserts value is IndexValue {
  if (typeof value !== 'string' && !(typeof value === 'number' && Number.isFinite(value))) throw error();
}
