import { describe, expect, it } from 'vitest';
import { LmdbReadCache, MAX_CACHED_BYTES } from '../../adapters/lmdb/lmdb-read-cache.js';
import type { StoredDocument } from '../../kernel/ports/store.port.js';

const doc = (version: number): StoredDocument => Object.freeze({ id: 'a', version, data: { version }, indexes: {}, updatedAt: 0 });

describe('LmdbReadCache', () => {
  it('answers only for the exact bytes a document was decoded from', () => {
    const cache = new LmdbReadCache(10);
    cache.remember('k', Buffer.from([1, 2, 3]), doc(1));
    expect(cache.lookup('k', Buffer.from([1, 2, 3]))?.version).toBe(1);
    expect(cache.lookup('k', Buffer.from([1, 2, 4]))).toBeUndefined();
    expect(cache.lookup('k', Buffer.from([1, 2]))).toBeUndefined();
    expect(cache.lookup('other', Buffer.from([1, 2, 3]))).toBeUndefined();
  });

  it("compares only the first `length` bytes of a view with a longer backing (lmdb-js's reusable read buffer)", () => {
    const cache = new LmdbReadCache(10);
    cache.remember('k', Buffer.from([1, 2, 3]), doc(1));
    const reused = Buffer.from([1, 2, 3, 4, 5, 6, 7, 8]);
    Object.defineProperty(reused, 'length', { value: 3, writable: true, configurable: true });
    expect(cache.lookup('k', reused)?.version).toBe(1);
    reused[2] = 9;
    expect(cache.lookup('k', reused)).toBeUndefined();
  });

  it('lets a write refresh an entry it holds, but never add one', () => {
    const cache = new LmdbReadCache(10);
    cache.refresh('new', Buffer.from([9]), doc(1));
    expect(cache.lookup('new', Buffer.from([9]))).toBeUndefined();
    cache.remember('k', Buffer.from([1]), doc(1));
    cache.refresh('k', Buffer.from([2]), doc(2));
    expect(cache.lookup('k', Buffer.from([1]))).toBeUndefined();
    expect(cache.lookup('k', Buffer.from([2]))?.version).toBe(2);
    cache.forget('k');
    expect(cache.lookup('k', Buffer.from([2]))).toBeUndefined();
  });

  it('stays within its capacity, dropping the oldest entries first', () => {
    const cache = new LmdbReadCache(100);
    for (let i = 0; i < 1_000; i++) cache.remember(`k${i}`, Buffer.from([i % 256]), doc(i));
    const held = Array.from({ length: 1_000 }, (_, i) => cache.lookup(`k${i}`, Buffer.from([i % 256])) !== undefined);
    expect(held.filter(Boolean).length).toBeLessThanOrEqual(100);
    expect(held.slice(-90).every(Boolean)).toBe(true);
    expect(held.slice(0, 800).some(Boolean)).toBe(false);
  });

  it('keeps no large document, and drops one that grew past the bound', () => {
    const cache = new LmdbReadCache(10);
    const large = Buffer.alloc(MAX_CACHED_BYTES + 1, 7);
    cache.remember('big', large, doc(1));
    expect(cache.lookup('big', large)).toBeUndefined();
    const small = Buffer.from([1, 2, 3]);
    cache.remember('grows', small, doc(1));
    expect(cache.lookup('grows', small)?.version).toBe(1);
    cache.refresh('grows', large, doc(2));
    expect(cache.lookup('grows', large)).toBeUndefined();
    expect(cache.lookup('grows', small)).toBeUndefined();
  });

  it('keeps nothing with a capacity of 0', () => {
    const cache = new LmdbReadCache(0);
    cache.remember('k', Buffer.from([1]), doc(1));
    expect(cache.lookup('k', Buffer.from([1]))).toBeUndefined();
  });
});
