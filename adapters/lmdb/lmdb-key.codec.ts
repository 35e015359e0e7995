/**
 * Order-preserving binary keys for LMDB. A tuple of strings and numbers encodes to bytes
 * whose byte order is the tuple order, element by element, with `compareIndexValues`:
 * numbers before strings, numbers numerically, strings by UTF-16 code units (JavaScript's
 * `<`). We do not use lmdb-js array keys (ordered-binary) because they order strings by
 * UTF-8 (astral characters sort differently from JavaScript) and write strings of 64+
 * characters without escaping NUL, the element separator, so two different
 * (value, id) tuples can encode to the same key.
 */

export type KeyPart = string | number;

/** LMDB's default maximum key size in lmdb-js (DEFAULT_MAX_KEY_SIZE in lmdb/open.js). */
export const MAX_KEY_BYTES = 1978;

const NUMBER_TAG = 0x10;
const STRING_TAG = 0x20;
const STRING_END = 0x00;
/** Marks a code unit stored in three bytes; single-byte units are 0x01..0x7f. */
const WIDE_UNIT = 0x80;
const SINGLE_UNIT_LIMIT = 0x7f;

/** Encodes a tuple; throws TypeError on anything but strings and non-NaN numbers. */
export function encodeKey(parts: readonly KeyPart[]): Buffer {
  let size = 0;
  for (const part of parts) size += encodedSize(part);
  const out = Buffer.allocUnsafe(size);
  let pos = 0;
  for (const part of parts) {
    if (typeof part === 'number') {
      out[pos++] = NUMBER_TAG;
      // -0 and 0 are the same index value; store one form.
      out.writeDoubleBE(part === 0 ? 0 : part, pos);
      if (out[pos]! & 0x80) for (let i = pos; i < pos + 8; i++) out[i] = ~out[i]! & 0xff;
      else out[pos] = out[pos]! | 0x80;
      pos += 8;
    } else {
      out[pos++] = STRING_TAG;
      for (let i = 0; i < part.length; i++) {
        const unit = part.charCodeAt(i);
        if (unit < SINGLE_UNIT_LIMIT) {
          out[pos++] = unit + 1;
        } else {
          out[pos++] = WIDE_UNIT;
          out[pos++] = unit >> 8;
          out[pos++] = unit & 0xff;
        }
      }
      out[pos++] = STRING_END;
    }
  }
  return out;
}

/** Decodes a key written by `encodeKey`. */
export function decodeKey(key: Uint8Array): KeyPart[] {
  const bytes = Buffer.from(key.buffer, key.byteOffset, key.byteLength);
  const parts: KeyPart[] = [];
  let pos = 0;
  while (pos < bytes.length) {
    const tag = bytes[pos++];
    if (tag === NUMBER_TAG) {
      const raw = Buffer.from(bytes.subarray(pos, pos + 8));
      if (raw[0]! & 0x80) raw[0] = raw[0]! & 0x7f;
      else for (let i = 0; i < 8; i++) raw[i] = ~raw[i]! & 0xff;
      parts.push(raw.readDoubleBE(0));
      pos += 8;
    } else if (tag === STRING_TAG) {
      const units: number[] = [];
      for (;;) {
        const byte = bytes[pos++];
        if (byte === STRING_END) break;
        if (byte === WIDE_UNIT) {
          units.push((bytes[pos]! << 8) | bytes[pos + 1]!);
          pos += 2;
        } else if (byte !== undefined && byte <= SINGLE_UNIT_LIMIT) {
          units.push(byte - 1);
        } else {
          throw new TypeError('Malformed key');
        }
      }
      parts.push(stringFromUnits(units));
    } else {
      throw new TypeError('Malformed key');
    }
  }
  return parts;
}

/** The smallest key greater than every key that starts with `prefix` (an exclusive end). */
export function prefixEnd(prefix: Buffer): Buffer {
  return Buffer.concat([prefix, Buffer.from([0xff])]);
}

/** The smallest key greater than `key` (an inclusive start that skips `key` itself). */
export function keyAfter(key: Buffer): Buffer {
  return Buffer.concat([key, Buffer.from([0x00])]);
}

function encodedSize(part: KeyPart): number {
  if (typeof part === 'number') {
    if (Number.isNaN(part)) throw new TypeError('NaN cannot be part of a key');
    return 9;
  }
  if (typeof part !== 'string') throw new TypeError(`A key part must be a string or number`);
  let size = 2;
  for (let i = 0; i < part.length; i++) size += part.charCodeAt(i) < SINGLE_UNIT_LIMIT ? 1 : 3;
  return size;
}

function stringFromUnits(units: number[]): string {
  let text = '';
  // Chunked so long strings never exceed the engine's argument limit.
  for (let i = 0; i < units.length; i += 4096) text += String.fromCharCode(...units.slice(i, i + 4096));
  return text;
}
