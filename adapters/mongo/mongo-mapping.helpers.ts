import { AppError } from '../../kernel/errors/app-error.js';
import { deepFreeze } from '../../kernel/shared/deep-freeze.js';
import type { IndexQuery, IndexValue, JournalEntry, Page, PutInput, StoredDocument } from '../../kernel/ports/store.port.js';
import { encodeCursor, type IndexCursor } from '../shared/store-helpers.js';
import type { JournalDocRecord, JournalRecord, MongoDoc, PendingJournal, StoreDocRecord } from './mongo-db.types.js';

/**
 * Makes any name safe as a Mongo collection or field name, reversibly: `.` would nest a
 * field path and `$` is an operator, so every byte outside `[A-Za-z0-9_-]` becomes
 * `~hh` (including `~` itself, which keeps the mapping one-to-one).
 */
export function escapeName(name: string): string {
  let out = '';
  for (const ch of name) {
    if (/[A-Za-z0-9_-]/.test(ch)) out += ch;
    else for (const byte of Buffer.from(ch, 'utf8')) out += `~${byte.toString(16).padStart(2, '0')}`;
  }
  return out;
}

function unescapeName(escaped: string): string {
  return escaped.replace(/(?:~[0-9a-f]{2})+/g, (run) =>
    Buffer.from(
      run
        .split('~')
        .slice(1)
        .map((hex) => parseInt(hex, 16)),
    ).toString('utf8'),
  );
}

/** `<prefix>_<escaped name>`; the journal is `<prefix>.journal`, which no escaped name can equal. */
export function docsCollectionName(prefix: string, collection: string): string {
  return `${prefix}_${escapeName(collection)}`;
}

export function journalCollectionName(prefix: string): string {
  return `${prefix}.journal`;
}

export function indexField(index: string): string {
  return `idx.${escapeName(index)}`;
}

/** Journal key of a document; escaping keeps `a/b`+`c` apart from `a`+`b/c`. */
export function journalKey(collection: string, id: string): string {
  return `${encodeURIComponent(collection)}/${encodeURIComponent(id)}`;
}

export function journalDoc(collection: string, id: string, entry: JournalRecord): JournalDocRecord {
  const key = journalKey(collection, id);
  return { _id: `${key}/${entry.seq}`, key, seq: entry.seq, event: entry.event, state: entry.state, at: entry.at };
}

/** Documents that are not expired at `now`; the TTL monitor runs only every 60 s. */
export function liveFilter(now: number): MongoDoc {
  return { $or: [{ expiresAt: null }, { expiresAt: { $gt: new Date(now) } }] };
}

export function expiredFilter(now: number): MongoDoc {
  return { expiresAt: { $lte: new Date(now) } };
}

/**
 * "Field sorts after `value`" in `compareIndexValues` order (numbers before strings).
 * Mongo sorts the same way, but its comparison operators only match values of the
 * bound's own type, so a number bound must also admit every string and a string bound
 * every number explicitly.
 */
function after(field: string, value: IndexValue, inclusive: boolean): MongoDoc {
  const op = inclusive ? '$gte' : '$gt';
  if (typeof value === 'string') return { [field]: { [op]: value } };
  return { $or: [{ [field]: { [op]: value } }, { [field]: { $type: 'string' } }] };
}

function before(field: string, value: IndexValue): MongoDoc {
  if (typeof value === 'number') return { [field]: { $lte: value } };
  return { $or: [{ [field]: { $lte: value } }, { [field]: { $type: 'number' } }] };
}

function isIndexValue(value: unknown): value is IndexValue {
  return typeof value === 'string' || (typeof value === 'number' && !Number.isNaN(value));
}

/**
 * Values that end up inside a filter must be plain strings or numbers: an object there
 * (`{"$ne": null}` from a tampered cursor or a loosely typed caller) would be read as a
 * query operator.
 */
export function checkFilterValues(query: IndexQuery, cursor: IndexCursor | undefined): void {
  for (const bound of [query.eq, query.gte, query.lte]) {
    if (bound !== undefined && !isIndexValue(bound)) throw AppError.validation(['index query bound is invalid']);
  }
  if (cursor && !isIndexValue(cursor.value)) throw AppError.validation(['cursor is invalid']);
}

/** Ids and stored index values are filter operands too; the port types them, this enforces it. */
export function checkId(id: unknown): void {
  if (typeof id !== 'string') throw AppError.validation(['id must be a string']);
}

export function checkIndexValues(indexes: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(indexes)) {
    if (!isIndexValue(value)) throw AppError.internal(`Index ${name} must be a string or a number`);
  }
}

/** The clauses (to be `$and`-ed) selecting an index query's matches after the cursor. */
export function indexQueryClauses(query: IndexQuery, cursor: IndexCursor | undefined): MongoDoc[] {
  const field = indexField(query.index);
  const clauses: MongoDoc[] = [{ [field]: { $type: ['number', 'string'] } }];
  if (query.eq !== undefined) {
    clauses.push({ [field]: query.eq });
  } else {
    if (query.gte !== undefined) clauses.push(after(field, query.gte, true));
    if (query.lte !== undefined) clauses.push(before(field, query.lte));
  }
  if (cursor) {
    // Resume strictly after (value, id), the same key the sort uses.
    clauses.push({ $or: [after(field, cursor.value, false), { [field]: cursor.value, _id: { $gt: cursor.id } }] });
  }
  return clauses;
}

/** The `$set`/`$unset` of a put: every field of the document, so a write never merges with the old one. */
export function writeUpdate(input: PutInput, version: number, now: number, entry: PendingJournal | undefined): MongoDoc {
  const idx: Record<string, IndexValue> = {};
  for (const [name, value] of Object.entries(input.indexes ?? {})) idx[escapeName(name)] = value;
  const set: MongoDoc = { version, data: input.data, idx, updatedAt: now };
  const unset: MongoDoc = {};
  if (input.expiresAt === undefined) unset.expiresAt = '';
  else set.expiresAt = new Date(input.expiresAt);
  if (entry) {
    set.lastJournal = entry;
    set.journalPending = true;
  } else if (input.expectedVersion === 0) {
    // A creation may reuse an expired document's _id; nothing of its earlier life stays.
    unset.lastJournal = '';
    set.journalPending = false;
  }
  return { $set: set, ...(Object.keys(unset).length > 0 ? { $unset: unset } : {}) };
}

/** A read document, deeply frozen as every adapter's (StorePort). */
export function toStoredDocument<T>(raw: MongoDoc): StoredDocument<T> {
  const doc = raw as unknown as StoreDocRecord;
  const indexes: Record<string, IndexValue> = {};
  for (const [name, value] of Object.entries(doc.idx ?? {})) indexes[unescapeName(name)] = value;
  return deepFreeze({
    id: doc._id,
    version: doc.version,
    data: doc.data as T,
    indexes,
    updatedAt: doc.updatedAt,
    ...(doc.expiresAt instanceof Date ? { expiresAt: doc.expiresAt.getTime() } : {}),
  });
}

/** A page from `limit + 1` rows: the extra row only says that more follow. */
export function toPage<T>(
  raws: MongoDoc[],
  limit: number,
  cursorOf: (last: StoredDocument<T>) => IndexCursor | { id: string },
): Page<StoredDocument<T>> {
  const items = raws.slice(0, limit).map((raw) => toStoredDocument<T>(raw));
  const last = items[items.length - 1];
  return { items, ...(raws.length > limit && last ? { nextCursor: encodeCursor(cursorOf(last)) } : {}) };
}

export function toJournalEntry(raw: MongoDoc): JournalEntry {
  const doc = raw as unknown as JournalDocRecord;
  return { seq: doc.seq, event: doc.event, state: doc.state, at: doc.at };
}
