import { z } from 'zod';
import { AppError } from '../../../kernel/errors/app-error.js';
import { decodeAfterCursor, encodeAfterCursor } from '../../../kernel/shared/after-cursor.js';

/** `limit` (1–200, default 50) and `cursor` of every listing operation (DECISIONS "Listing routes"). */
export const pageFields = {
  limit: z.number().int().min(1).max(200).default(50).describe('Most items to answer with, 1-200; default 50.'),
  cursor: z
    .string()
    .min(1)
    .max(1024)
    .optional()
    .describe(
      'The `nextCursor` of the previous page, to read the next one; omit for the first page. No `nextCursor` in an answer: it was the last page.',
    ),
};

/** `{items, nextCursor?}` of a listing operation. */
export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), nextCursor: z.string().optional() });
}

export interface ListPage<T> {
  items: T[];
  nextCursor?: string;
}

/**
 * One page of a list the service reads whole (a per-account list: wallets, approvals,
 * token lists, strategies). `keyOf` gives each item (and its position in `items`) a
 * unique key; the list is served in key order and the cursor carries the last key served,
 * so the next page resumes after it even when items were added or removed in between.
 */
export function pageOfList<T>(
  items: readonly T[],
  keyOf: (item: T, index: number) => string,
  page: { limit: number; cursor?: string | undefined },
): ListPage<T> {
  const after = page.cursor === undefined ? undefined : decodeAfterCursor(page.cursor);
  if (page.cursor !== undefined && after === undefined) throw AppError.validation(['cursor is invalid']);
  const keyed = items
    .map((item, index) => ({ item, key: keyOf(item, index) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const rest = after === undefined ? keyed : keyed.filter(({ key }) => key > after);
  const served = rest.slice(0, page.limit);
  const last = served.at(-1);
  return {
    items: served.map(({ item }) => item),
    ...(rest.length > page.limit && last ? { nextCursor: encodeAfterCursor(last.key) } : {}),
  };
}

/**
 * The key of a list kept in insertion order: its time, then its place, so that entries
 * of the same millisecond keep their order.
 */
export function insertionKey(at: string, index: number): string {
  return `${at}|${String(index).padStart(6, '0')}`;
}
