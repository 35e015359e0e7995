import { join } from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import type { BusEvent } from '../../kernel/ports/event-bus.port.js';
import type { EventHistoryPort } from '../../kernel/ports/event-history.port.js';
import { ensurePrivateDir, makeFilePrivate } from '../../kernel/shared/private-files.js';
import { busEventBodySchema, toBusEvent, type EventBusLogger } from '../shared/event-bus-helpers.js';
import { decodeKey, keyAfter, prefixEnd } from './lmdb-key.codec.js';
import { LMDB_MAP_SIZE } from './lmdb-map-size.js';
import { tupleKey } from './lmdb-record.codec.js';

const LMDB_FILES = ['data.mdb', 'lock.mdb'];
/** Bytes before the JSON in a value: the publication time, so retention reads it without parsing. */
const AT_BYTES = 8;

export interface LmdbEventHistoryOptions {
  /** Directory of its own LMDB environment (not the store's: the history is no part of a backup). */
  path: string;
  /** Where an unreadable entry is reported (it is skipped, never delivered). */
  logger?: EventBusLogger;
  /** Bytes of address space the environment maps from the start (default `LMDB_MAP_SIZE`, 64 GiB). */
  mapSize?: number;
}

type Binary = Database<Buffer, Buffer>;

/**
 * The embedded bus's replay log in LMDB: key [stream, id] (order-preserving tuples, so a
 * stream's events are one contiguous range in id order), value = publication time (8 bytes)
 * then `{type, data}` as JSON, the same JSON the Redis bus keeps. Writes are plain puts
 * queued to lmdb-js's write thread, which commits everything queued in one turn in one
 * transaction: a burst of events costs one commit, not one each. Opened with overlapping
 * sync as the store is: a write resolves once committed (it survives the process), the flush
 * follows. Only one process writes a stream (the embedded bus is in-process), so no write is
 * conditional.
 */
export class LmdbEventHistory implements EventHistoryPort {
  private readonly root: RootDatabase;
  private readonly events: Binary;
  private readonly logger: EventBusLogger | undefined;

  constructor(options: LmdbEventHistoryOptions) {
    ensurePrivateDir(options.path);
    this.root = open({ path: options.path, overlappingSync: true, mapSize: options.mapSize ?? LMDB_MAP_SIZE });
    for (const file of LMDB_FILES) makeFilePrivate(join(options.path, file));
    this.events = this.root.openDB<Buffer, Buffer>({ name: 'events', keyEncoding: 'binary', encoding: 'binary' });
    this.logger = options.logger;
  }

  async append(stream: string, events: readonly BusEvent[]): Promise<void> {
    // Keys are built before anything is queued: a stream name too long for a key fails the whole call.
    const entries = events.map((event) => ({ key: tupleKey([stream, event.id]), value: encodeValue(event) }));
    await Promise.all(entries.map(({ key, value }) => this.events.put(key, value)));
  }

  read(stream: string, afterId: number, beforeId: number, limit: number): BusEvent[] {
    if (limit <= 0 || beforeId <= afterId + 1) return [];
    const start = keyAfter(tupleKey([stream, afterId]));
    const end = tupleKey([stream, beforeId]);
    const out: BusEvent[] = [];
    for (const { key, value } of this.events.getRange({ start, end, limit })) {
      const id = decodeKey(key)[1] as number;
      const event = decodeValue(stream, id, value);
      if (event) out.push(event);
      else this.logger?.('event history entry unreadable, skipped', { stream, id });
    }
    return out;
  }

  lastId(stream: string): number {
    const prefix = tupleKey([stream]);
    for (const key of this.events.getKeys({ start: prefixEnd(prefix), end: prefix, reverse: true, limit: 1 })) {
      return decodeKey(key)[1] as number;
    }
    return 0;
  }

  trimmable(stream: string, beforeId: number, keepLatest: number, cutoff: number, scanLimit: number): number {
    const prefix = tupleKey([stream]);
    const before = tupleKey([stream, beforeId]);
    // The newest entry that may go on count: the one just past the latest `keepLatest` below `beforeId`.
    let boundary: Buffer | undefined;
    const newestFirst = { start: before, end: prefix, reverse: true, exclusiveStart: true, offset: keepLatest, limit: 1 };
    for (const key of this.events.getKeys(newestFirst)) {
      boundary = Buffer.from(key);
    }
    if (!boundary) return 0;
    let through = 0;
    for (const { key, value } of this.events.getRange({ start: prefix, end: keyAfter(boundary), limit: scanLimit })) {
      // Stop at the first recent one: keeps more, never less, if the clock jumped back.
      if (value.length < AT_BYTES || value.readDoubleBE(0) >= cutoff) break;
      through = decodeKey(key)[1] as number;
    }
    return through;
  }

  async remove(stream: string, throughId: number): Promise<void> {
    const prefix = tupleKey([stream]);
    const end = keyAfter(tupleKey([stream, throughId]));
    const keys = Array.from(this.events.getKeys({ start: prefix, end }), (key) => Buffer.from(key));
    await Promise.all(keys.map((key) => this.events.remove(key)));
  }

  async close(): Promise<void> {
    await this.root.close();
  }
}

function encodeValue(event: BusEvent): Buffer {
  const json = Buffer.from(JSON.stringify({ type: event.type, data: event.data }), 'utf8');
  const out = Buffer.allocUnsafe(AT_BYTES + json.length);
  out.writeDoubleBE(event.at, 0);
  json.copy(out, AT_BYTES);
  return out;
}

/** A stored entry as an event; undefined when it does not read as one (a file from elsewhere, a bad write). */
function decodeValue(stream: string, id: number, value: Buffer): BusEvent | undefined {
  if (value.length < AT_BYTES || !Number.isSafeInteger(id) || id <= 0) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value.toString('utf8', AT_BYTES));
  } catch {
    return undefined;
  }
  const body = busEventBodySchema.safeParse({ ...(parsed as object), at: value.readDoubleBE(0) });
  return body.success ? toBusEvent(stream, id, body.data) : undefined;
}
