import { describe, expect, it } from 'vitest';
import { pageOfList } from '../../src/operations/definitions/list-paging.js';

const item = (id: string, at: string) => ({ id, at });
const keyOf = (entry: { id: string; at: string }) => `${entry.at}|${entry.id}`;

describe('pageOfList', () => {
  const items = [item('c', '2026-01-03'), item('a', '2026-01-01'), item('b', '2026-01-02'), item('d', '2026-01-03')];

  it('serves the list in key order, page by page, with a cursor only while more remain', () => {
    const first = pageOfList(items, keyOf, { limit: 3 });
    expect(first.items.map((entry) => entry.id)).toEqual(['a', 'b', 'c']);
    const second = pageOfList(items, keyOf, { limit: 3, cursor: first.nextCursor });
    expect(second).toEqual({ items: [item('d', '2026-01-03')] });
    expect(pageOfList(items, keyOf, { limit: 4 })).not.toHaveProperty('nextCursor');
    expect(pageOfList([], keyOf, { limit: 4 })).toEqual({ items: [] });
  });

  it('resumes after the last item served even when it was removed or others were added before it', () => {
    const first = pageOfList(items, keyOf, { limit: 2 });
    const changed = [item('a0', '2026-01-01'), ...items.filter((entry) => entry.id !== 'b')];
    expect(pageOfList(changed, keyOf, { limit: 2, cursor: first.nextCursor }).items.map((entry) => entry.id)).toEqual(['c', 'd']);
  });

  it('refuses a cursor it did not write with the validation message', () => {
    for (const cursor of ['not-a-cursor', Buffer.from('{"after":1}').toString('base64url'), Buffer.from('null').toString('base64url')]) {
      expect(() => pageOfList(items, keyOf, { limit: 2, cursor })).toThrow(
        expect.objectContaining({ kind: 'invalid', messages: ['cursor is invalid'] }),
      );
    }
  });
});
