import { AppError } from '../../kernel/errors/app-error.js';
import type { CollectionSpec, CommitWrite, IndexQuery, IndexValue, PutInput } from '../../kernel/ports/store.port.js';

/** Cursor of an index page: the (value, id) of the last item returned. */
export interface IndexCursor {
  value: IndexValue;
  id: string;
}

export function encodeCursor(cursor: IndexCursor | { id: string }): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

/** Decodes a cursor from a client; a tampered one is a 400, never a crash. */
export function decodeCursor<T extends object>(raw: string): T {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (parsed && typeof parsed === 'object' && typeof (parsed as { id?: unknown }).id === 'string') {
      return parsed as T;
    }
  } catch {
    // fall through
  }
  throw AppError.validation(['cursor is invalid']);
}

/** Orders index values: numbers before strings, then natural order. */
export function compareIndexValues(a: IndexValue, b: IndexValue): number {
  if (typeof a !== typeof b) return typeof a === 'number' ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

export function matchesIndexQuery(value: IndexValue | undefined, query: IndexQuery): boolean {
  if (value === undefined) return false;
  if (query.eq !== undefined) return compareIndexValues(value, query.eq) === 0;
  if (query.gte !== undefined && compareIndexValues(value, query.gte) < 0) return false;
  if (query.lte !== undefined && compareIndexValues(value, query.lte) > 0) return false;
  return true;
}

/** Refuses writes that name an undeclared collection or index, and bad versions. */
export function checkPut(specs: Map<string, CollectionSpec>, collection: string, input: PutInput): void {
  const spec = requireCollection(specs, collection);
  for (const name of Object.keys(input.indexes ?? {})) {
    if (!spec.indexes.includes(name)) {
      throw AppError.internal(`Index ${name} is not declared on collection ${collection}`);
    }
  }
  if (!Number.isInteger(input.expectedVersion) || input.expectedVersion < 0) {
    throw AppError.internal(`expectedVersion must be a non-negative integer`);
  }
}

/**
 * Refuses a commit that could not be applied as a whole whatever is stored: an undeclared
 * collection or index, a bad version, or one document written twice (which of the two would
 * be meant is not for the store to guess).
 */
export function checkCommit(specs: Map<string, CollectionSpec>, writes: readonly CommitWrite[]): void {
  const seen = new Set<string>();
  for (const write of writes) {
    if (write.op === 'put') checkPut(specs, write.collection, write.input);
    else if (write.op === 'delete') {
      requireCollection(specs, write.collection);
      if (!Number.isInteger(write.expectedVersion) || write.expectedVersion < 0) {
        throw AppError.internal(`expectedVersion must be a non-negative integer`);
      }
    } else throw AppError.internal(`Unknown commit operation ${String((write as { op?: unknown }).op)}`);
    if (typeof write.id !== 'string') throw AppError.validation(['id must be a string']);
    const key = JSON.stringify([write.collection, write.id]);
    if (seen.has(key)) throw AppError.internal(`Document ${write.collection}/${write.id} appears twice in one commit`);
    seen.add(key);
  }
}

export function requireCollection(specs: Map<string, CollectionSpec>, collection: string): CollectionSpec {
  const spec = specs.get(collection);
  if (!spec) throw AppError.internal(`Collection ${collection} is not declared`);
  return spec;
}

export function requireIndex(specs: Map<string, CollectionSpec>, collection: string, index: string): void {
  if (!requireCollection(specs, collection).indexes.includes(index)) {
    throw AppError.internal(`Index ${index} is not declared on collection ${collection}`);
  }
}

export function versionConflict(collection: string, id: string, expected: number, actual: number): AppError {
  return new AppError('VERSION_CONFLICT', `Version conflict on ${collection}/${id}: expected ${expected}, found ${actual}`, {
    retryable: true,
    details: { collection, id, expected, actual },
  });
}

/** Clamps a page size to something sane. */
export function pageLimit(limit: number): number {
  return Math.max(1, Math.min(1000, Math.floor(limit) || 1));
}
