import type { StoredDocument } from '../../kernel/ports/store.port.js';

/**
 * Documents kept decoded by default (about 4 KB each with their bytes for the small documents
 * actors and orders are: some 120 MB when full; a larger one is not kept, see below).
 * Above what a minute touches at 10,000 one-minute DCA strategies: each strategy's document
 * and the order each tick reads back (~21,000; eviction keeps 90%), so a strategy read a
 * minute after its last write is still decoded (at 5,000 it never was).
 */
export const DEFAULT_READ_CACHE_ENTRIES = 30_000;

/**
 * Stored bytes above which a document is not kept decoded: a count of entries bounds memory
 * only while documents are small, and a large one (a busy account's day or month of value
 * readings: 100-500 KB decoded) would take the room of a hundred actors for a read that is rare.
 */
export const MAX_CACHED_BYTES = 32 * 1024;

interface Entry {
  /** The exact stored bytes the document was decoded from (an owned copy; compressed when stored so). */
  raw: Buffer;
  doc: StoredDocument;
}

/**
 * Decoded documents by LMDB key, reused while the stored bytes are byte-for-byte the ones
 * they were decoded from. Every read still reads LMDB, so a write by another process is
 * seen at once; only the decoding (v8 deserialization into a fresh object graph) is
 * saved, which is most of a read's cost. Documents are deeply frozen (StorePort contract),
 * so callers can share them. Only what is read gets in (a write refreshes an entry, never
 * adds one: audit records are written and seldom read); the oldest entries leave first.
 */
export class LmdbReadCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly capacity: number) {}

  /**
   * The document decoded from `bytes` under `key`, if they have not changed since. The
   * range is explicit: lmdb-js's reusable read buffer has a `length` but a larger backing view.
   */
  lookup(key: string, bytes: Buffer): StoredDocument | undefined {
    const entry = this.entries.get(key);
    return entry !== undefined && entry.raw.length === bytes.length && entry.raw.compare(bytes, 0, bytes.length) === 0
      ? entry.doc
      : undefined;
  }

  /**
   * Remembers a document just read; `raw` must not be reused by the caller. `size`: the bytes
   * of its record uncompressed, what MAX_CACHED_BYTES bounds (`raw` may be compressed).
   */
  remember(key: string, raw: Buffer, doc: StoredDocument, size = raw.length): void {
    if (this.capacity <= 0) return;
    this.entries.delete(key);
    if (size > MAX_CACHED_BYTES) return; // see MAX_CACHED_BYTES (a document grown past it leaves)
    this.entries.set(key, { raw, doc });
    if (this.entries.size > this.capacity) this.evictOldest();
  }

  /** Replaces the entry of a document just written, if it has one. */
  refresh(key: string, raw: Buffer, doc: StoredDocument, size = raw.length): void {
    if (this.entries.has(key)) this.remember(key, raw, doc, size);
  }

  forget(key: string): void {
    this.entries.delete(key);
  }

  /**
   * Drops the oldest tenth in one pass: deleting one entry per insert makes V8 walk over
   * every deleted slot at the front of the Map again on each `keys().next()`.
   */
  private evictOldest(): void {
    let excess = this.entries.size - Math.floor(this.capacity * 0.9);
    for (const key of this.entries.keys()) {
      if (excess-- <= 0) break;
      this.entries.delete(key);
    }
  }
}
