import type { BusEvent } from './event-bus.port.js';

/**
 * Event history port: the on-disk replay log of the embedded event bus, one ordered log per
 * stream keyed by event id. The bus keeps only a small recent window of each stream on the
 * heap and reads older events from here when a client resumes with `Last-Event-ID`.
 *
 * Reads are synchronous: the embedded history is a memory-mapped file, and a synchronous
 * read lets the bus register a subscriber and queue its replay without an await in between,
 * so no event can slip between the two. Writes resolve once committed; a read after that sees them.
 * Tested in `test/adapters/lmdb-event-history.test.ts` and through the bus's contract.
 */
export interface EventHistoryPort {
  /** Appends events of one stream, ids growing and above every stored one; resolves once committed. */
  append(stream: string, events: readonly BusEvent[]): Promise<void>;
  /** Stored events with `afterId < id < beforeId`, oldest first, at most `limit`. */
  read(stream: string, afterId: number, beforeId: number, limit: number): BusEvent[];
  /** The highest stored id of the stream, 0 when it has none. */
  lastId(stream: string): number;
  /**
   * The highest id that retention lets go among the events with id < `beforeId`: the oldest
   * of them that are both beyond their latest `keepLatest` and older than `cutoff` (epoch ms),
   * stopping at the first recent one. 0 when none may go. Looks at no more than `scanLimit`.
   */
  trimmable(stream: string, beforeId: number, keepLatest: number, cutoff: number, scanLimit: number): number;
  /** Removes the stream's events with id <= `throughId`; resolves once committed. */
  remove(stream: string, throughId: number): Promise<void>;
  close(): Promise<void>;
}
