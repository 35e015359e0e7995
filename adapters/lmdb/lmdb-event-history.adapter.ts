import { join } from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import { AppError } from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { BusEvent } from '../../kernel/ports/event-bus.port.js';
import type { EventHistoryPort } from '../../kernel/ports/event-history.port.js';
import { ensurePrivateDir, makeFilePrivate } from '../../kernel/shared/private-files.js';
import { SystemClock } from '../clock/system-clock.adapter.js';
import { busEventBodySchema, toBusEvent, type EventBusLogger } from '../shared/event-bus-helpers.js';
import { currentBootId, guardUnsyncedClose, guardUnsyncedOpen } from './lmdb-boot.guard.js';
import { decodeKey, keyAfter, prefixEnd } from './lmdb-key.codec.js';
import { tupleKey } from './lmdb-record.codec.js';
import { LMDB_MAP_SIZE } from './lmdb-map-size.js';

const DATA_FILE = 'data.mdb';
const LMDB_FILES = [DATA_FILE, 'lock.mdb'];
/** Bytes before the JSON in a value: the publication time, so retention reads it without parsing. */
const AT_BYTES = 8;
const DEFAULT_FLUSH_MS = 50;
const DEFAULT_MAX_BATCH = 1_000;

export interface LmdbEventHistoryOptions {
  /** Directory of its own LMDB environment (not the store's: the history is no part of a backup). */
  path: string;
  /** Where an unreadable entry is reported (it is skipped, never delivered). */
  logger?: EventBusLogger;
  /** Times the flushes (default the wall clock). */
  clock?: ClockPort;
  /** Most milliseconds a write waits in memory for others to share its transaction (default 50). */
  flushMs?: number;
  /** Writes (events appended, streams trimmed) that make a flush at once (default 1,000). */
  maxBatch?: number;
  /** This boot of the machine (default read from the system): see `guardUnsyncedOpen`. */
  bootId?: string;
}

type Binary = Database<Buffer, Buffer>;

/** One queued write: an event to put, or the keys in [start, end) to remove (a stream's oldest). */
type Write = { key: Buffer; value: Buffer } | { start: Buffer; end: Buffer };

/** Writes waiting for the next flush, and the one promise their callers wait on. */
interface Batch {
  writes: Write[];
  done: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
  cancelTimer: () => void;
}

/**
 * The embedded bus's replay log in LMDB: key [stream, id] (order-preserving tuples, so a
 * stream's events are one contiguous range in id order), value = publication time (8 bytes)
 * then `{type, data}` as JSON, the same JSON the Redis bus keeps.
 *
 * Writes wait in memory, at most `flushMs` or until `maxBatch` of them are waiting, and are
 * then committed together in one synchronous transaction on this thread: a swap publishes its
 * events over several event-loop turns, and a transaction of lmdb-js's write thread costs some
 * 700 µs of CPU and a dozen thread wake-ups whatever it holds. Opened with `noSync`: a commit
 * is in the page cache, so it survives the process being killed, but not the machine losing
 * power (a replay convenience; the store keeps what must last), and a file the machine stopped
 * under is discarded at the next open (`guardUnsyncedOpen`). `close` writes what is queued.
 * Only one process writes a stream (the embedded bus is in-process), so no write is conditional.
 */
export class LmdbEventHistory implements EventHistoryPort {
  private readonly root: RootDatabase;
  private readonly events: Binary;
  private readonly logger: EventBusLogger | undefined;
  private readonly path: string;
  private readonly clock: ClockPort;
  private readonly flushMs: number;
  private readonly maxBatch: number;
  private batch: Batch | undefined;
  private closed = false;

  constructor(options: LmdbEventHistoryOptions) {
    ensurePrivateDir(options.path);
    this.logger = options.logger;
    this.path = options.path;
    if (guardUnsyncedOpen(options.path, LMDB_FILES, options.bootId ?? currentBootId())) {
      this.logger?.('event history discarded: the machine stopped while it was open', { path: options.path });
    }
    this.root = open({ path: options.path, noSync: true, mapSize: LMDB_MAP_SIZE });
    for (const file of LMDB_FILES) makeFilePrivate(join(options.path, file));
    this.events = this.root.openDB<Buffer, Buffer>({ name: 'events', keyEncoding: 'binary', encoding: 'binary' });
    this.clock = options.clock ?? new SystemClock();
    this.flushMs = Math.max(0, options.flushMs ?? DEFAULT_FLUSH_MS);
    this.maxBatch = Math.max(1, Math.floor(options.maxBatch ?? DEFAULT_MAX_BATCH));
  }

  async append(stream: string, events: readonly BusEvent[]): Promise<void> {
    // Keys are built before anything is queued: a stream name too long for a key fails the whole call.
    const entries = events.map((event) => ({ key: tupleKey([stream, event.id]), value: encodeValue(event) }));
    return this.enqueue(entries);
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
    // Keys built now, as for an append: a bad one fails this call, not the batch it would join.
    return this.enqueue([{ start: tupleKey([stream]), end: keyAfter(tupleKey([stream, throughId])) }]);
  }

  async flush(): Promise<void> {
    this.commit();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.commit();
    await this.root.close();
    guardUnsyncedClose(this.path, DATA_FILE);
  }

  private enqueue(writes: Write[]): Promise<void> {
    if (this.closed) return Promise.reject(new AppError('SHUTTING_DOWN', 'The event history is closed'));
    this.batch ??= this.openBatch();
    const batch = this.batch;
    batch.writes.push(...writes);
    const done = batch.done;
    if (batch.writes.length >= this.maxBatch) this.commit();
    return done;
  }

  private openBatch(): Batch {
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const done = new Promise<void>((ok, fail) => {
      resolve = ok;
      reject = fail;
    });
    const cancelTimer = this.clock.setTimer(() => this.commit(), this.flushMs);
    return { writes: [], done, resolve, reject, cancelTimer };
  }

  /** Writes the waiting batch in one transaction, in the order queued; all of it or none. */
  private commit(): void {
    const batch = this.batch;
    if (!batch) return;
    this.batch = undefined;
    batch.cancelTimer();
    try {
      this.root.transactionSync(() => {
        for (const write of batch.writes) {
          if ('key' in write) this.events.putSync(write.key, write.value);
          else this.removeRange(write.start, write.end);
        }
      });
    } catch (error) {
      batch.reject(error);
      return;
    }
    batch.resolve();
  }

  private removeRange(start: Buffer, end: Buffer): void {
    // Keys copied first: removing while iterating the same range would move the cursor under it.
    for (const key of Array.from(this.events.getKeys({ start, end }), (found) => Buffer.from(found))) {
      this.events.removeSync(key);
    }
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
