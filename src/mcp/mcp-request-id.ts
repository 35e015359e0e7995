/**
 * JSON-RPC ids echoed exactly as sent. `JSON.parse` turns every number into a double, so an
 * id like `9007199254740993` (above 2^53) would come back as `…992`, `1e400` as `null` and
 * `-0` as `0`: the client could not match our answer to its request. Node 20 has neither
 * `JSON.parse` source access (reviver `context.source`) nor `JSON.rawJSON`, so we read the
 * id's literal from the body text ourselves and splice it back when writing.
 *
 * Cost: only a numeric id is looked up (string ids survive a parse unchanged), and the
 * lookup walks the top-level members once, jumping over strings and nested values with
 * native searches; the rest of the request stays on `JSON.parse`/`JSON.stringify`.
 */
import { isPlainObject } from '../../kernel/shared/is-plain-object.js';

/** A numeric id whose literal a double does not reproduce; `text` is the literal as sent. */
export class NumericIdText {
  constructor(readonly text: string) {}

  /** Only for serialisers other than `stringifyRpcResponse` (logs): the nearest double. */
  toJSON(): number | string {
    const value = Number(this.text);
    return Number.isFinite(value) ? value : this.text;
  }
}

/**
 * When `message` (parsed from `text`) has a numeric `id` whose literal in `text` differs from
 * how the double prints, replaces it with that literal as a `NumericIdText`. Mutates the
 * freshly parsed message so every later reader (envelope check, errors, result) sees the
 * exact id.
 */
export function keepExactNumericId(message: unknown, text: string): void {
  if (!isPlainObject(message) || typeof message.id !== 'number') return;
  const literal = topLevelMemberText(text, 'id');
  // JSON.stringify, not String: it is what we would have written (Infinity → "null").
  if (literal !== undefined && literal !== JSON.stringify(message.id)) message.id = new NumericIdText(literal);
}

/** `JSON.stringify` of a response, with a `NumericIdText` id written as its literal. */
export function stringifyRpcResponse<T extends { jsonrpc: string; id: unknown }>(body: T): string {
  if (!(body.id instanceof NumericIdText)) return JSON.stringify(body);
  // Every response is built as {jsonrpc, id, …} (mcp-wire.ts), so the id's place is known.
  const json = JSON.stringify({ ...body, id: 0 });
  const head = `{"jsonrpc":${JSON.stringify(body.jsonrpc)},"id":0`;
  if (!json.startsWith(head)) throw new Error('JSON-RPC response does not start with jsonrpc and id');
  return `${head.slice(0, -1)}${body.id.text}${json.slice(head.length)}`;
}

/**
 * The raw text of the value of the top-level member `key` of the JSON object `text`, the
 * last one when the key repeats (as `JSON.parse` keeps the last). `text` must be valid JSON
 * (call after `JSON.parse` succeeded); undefined when it is not an object or has no such key.
 */
export function topLevelMemberText(text: string, key: string): string | undefined {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== OPEN_BRACE) return undefined;
  let found: string | undefined;
  i = skipSpace(text, i + 1);
  while (i < text.length && text.charCodeAt(i) !== CLOSE_BRACE) {
    const keyEnd = endOfString(text, i);
    const matches = isKey(text, i, keyEnd, key);
    i = skipSpace(text, skipSpace(text, keyEnd) + 1); // past the colon
    const valueEnd = endOfValue(text, i);
    if (matches) found = text.slice(i, valueEnd);
    i = skipSpace(text, valueEnd);
    if (text.charCodeAt(i) === COMMA) i = skipSpace(text, i + 1);
  }
  return found;
}

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
/** What may follow a scalar (number, true, false, null) inside an object. */
const SCALAR_END = new Set([0x20, 0x09, 0x0a, 0x0d, COMMA, CLOSE_BRACE]);

function skipSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    // JSON whitespace: space, tab, line feed, carriage return.
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return i;
    i++;
  }
}

/** Index just past the string starting at `start` (its opening quote). */
function endOfString(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return text.length; // unreachable for valid JSON
    // A quote is escaped when an odd number of backslashes precede it.
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

function isKey(text: string, start: number, end: number, key: string): boolean {
  const length = end - start - 2;
  if (length === key.length && text.startsWith(key, start + 1)) return true;
  // An escaped spelling (`"\u0069d"`) is the same key to JSON.parse; at most 6 characters
  // per key character, so longer keys cannot match and need no decoding.
  if (length <= key.length || length > key.length * 6) return false;
  const raw = text.slice(start + 1, end - 1);
  return raw.includes('\\') && JSON.parse(`"${raw}"`) === key;
}

/** Index just past the value starting at `start`. */
function endOfValue(text: string, start: number): number {
  const c = text.charCodeAt(start);
  if (c === QUOTE) return endOfString(text, start);
  if (c !== OPEN_BRACE && c !== OPEN_BRACKET) {
    // A number, true, false or null: it ends at whitespace, a comma or the closing brace.
    let i = start + 1;
    while (i < text.length && !SCALAR_END.has(text.charCodeAt(i))) i++;
    return i;
  }
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === QUOTE) {
      i = endOfString(text, i) - 1;
    } else if (ch === OPEN_BRACE || ch === OPEN_BRACKET) {
      depth++;
    } else if ((ch === CLOSE_BRACE || ch === CLOSE_BRACKET) && --depth === 0) {
      return i + 1;
    }
  }
  return text.length; // unreachable for valid JSON
}
