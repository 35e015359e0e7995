/**
 * The directory client's ETag cache on a fake service: kept bodies come back on a 304, the
 * least recently used entry goes first past `cacheEntries`, and 0 keeps nothing.
 */
import { describe, expect, it } from 'vitest';
import { DirectoryClient } from '../../sdk/src/index.js';

/** Answers every path with `{path}` and ETag `"<path>"`, or 304 when that tag is sent back. */
function fakeDirectory() {
  const sent: Array<{ path: string; ifNoneMatch: string | undefined }> = [];
  const fetchImpl: typeof fetch = async (input, init = {}) => {
    const path = new URL(String(input)).pathname;
    const ifNoneMatch = (init.headers as Record<string, string>)['if-none-match'];
    sent.push({ path, ifNoneMatch });
    const etag = `"${path}"`;
    if (ifNoneMatch === etag) return new Response(null, { status: 304, headers: { etag } });
    return new Response(JSON.stringify({ path }), { status: 200, headers: { etag, 'content-type': 'application/json' } });
  };
  return { fetch: fetchImpl, sent };
}

describe('DirectoryClient cache', () => {
  it('sends the kept ETag and returns the kept body on a 304; past cacheEntries the least recently used is dropped', async () => {
    const { fetch, sent } = fakeDirectory();
    const directory = new DirectoryClient({ baseUrl: 'http://svc.test', fetch, cacheEntries: 2 });
    const a = await directory.card('a');
    await directory.card('b');
    expect(await directory.card('a')).toBe(a); // a is now the most recently used
    await directory.card('c'); // drops b
    await directory.card('b');
    await directory.card('a'); // b and c kept now: a was dropped when b came back
    expect(sent.map((s) => [s.path.split('/').pop(), s.ifNoneMatch !== undefined])).toEqual([
      ['a', false],
      ['b', false],
      ['a', true],
      ['c', false],
      ['b', false],
      ['a', false],
    ]);
  });

  it('keeps nothing with cacheEntries 0', async () => {
    const { fetch, sent } = fakeDirectory();
    const directory = new DirectoryClient({ baseUrl: 'http://svc.test', fetch, cacheEntries: 0 });
    await directory.snapshot('a');
    await directory.snapshot('a');
    expect(sent.map((s) => s.ifNoneMatch)).toEqual([undefined, undefined]);
  });
});
