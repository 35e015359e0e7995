import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { z } from 'zod';
import { AppError } from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { CollectionSpec, Page, StorePort } from '../../kernel/ports/store.port.js';
import type { AuditEntry, AuditSink } from './audit.types.js';

const AUDIT = 'audit';
export const AUDIT_COLLECTIONS: CollectionSpec[] = [{ name: AUDIT, indexes: ['subject'] }];
/** Audit records are kept this long. */
const AUDIT_RETENTION_MS = 90 * 24 * 60 * 60 * 1000;
const FLUSH_EVERY_MS = 10;
const MAX_BUFFER = 10_000;

/** Entries of one subject in one flush go into one stored segment of at most this many. */
const MAX_SEGMENT_ENTRIES = 256;

/** A stored segment: entries of one subject recorded within one flush, newest first. */
interface AuditSegment {
  entries: AuditEntry[];
}

/**
 * Where the next page starts: the store cursor of the next segment (none: the first), and
 * when a page ended inside that segment, its id and how many of its entries were served.
 */
const pageCursorSchema = z
  .object({
    store: z.string().min(1).optional(),
    within: z.object({ id: z.string(), served: z.number().int().positive() }).strict().optional(),
  })
  .strict();
type PageCursor = z.output<typeof pageCursorSchema>;

/**
 * The audit trail in the store. Recording never blocks or fails the audited call: entries
 * are buffered and written in batches, oldest first; `flush` on shutdown. A batch stores
 * each subject's entries as one segment document (up to MAX_SEGMENT_ENTRIES), so a busy
 * agent costs one write per flush instead of one per call (three LMDB puts, or one MongoDB
 * insert, for every MCP call before). Segment ids sort newest first, so a subject's page 1
 * is its latest activity: segments in the order they were written, entries within one by
 * start time. Documents of one entry each (written before segments) are still read.
 */
export class AuditLog implements AuditSink {
  private buffer: AuditEntry[] = [];
  private timer: (() => void) | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: StorePort,
    private readonly clock: ClockPort,
    private readonly logger: Logger,
  ) {}

  record(entry: AuditEntry): void {
    if (this.buffer.length >= MAX_BUFFER) {
      this.logger.error({ operation: entry.operation }, 'audit buffer full; entry dropped');
      return;
    }
    this.buffer.push(entry);
    this.timer ??= this.clock.setTimer(() => void this.flush(), FLUSH_EVERY_MS);
  }

  /** Writes everything buffered so far. */
  flush(): Promise<void> {
    this.timer?.();
    this.timer = undefined;
    const batch = this.buffer;
    this.buffer = [];
    this.flushing = this.flushing.then(() => this.write(batch));
    return this.flushing;
  }

  /** A subject's records (`bot:<id>` / `agent:<id>`), newest first. */
  async list(subject: string, page: { limit: number; cursor?: string }): Promise<Page<AuditEntry>> {
    const items: AuditEntry[] = [];
    let { store: storeCursor, within } = page.cursor === undefined ? ({} as PageCursor) : decodePageCursor(page.cursor);
    // One segment per store read: the store cursor that yields a segment is where a page
    // ending inside it resumes.
    for (;;) {
      const found = await this.store.find<AuditSegment | AuditEntry>(
        AUDIT,
        { index: 'subject', eq: subject },
        { limit: 1, ...(storeCursor ? { cursor: storeCursor } : {}) },
      );
      const doc = found.items[0];
      if (!doc) return { items };
      // A segment swept away since the cursor was made: its successor is read from its start.
      const served = within?.id === doc.id ? within.served : 0;
      const entries = entriesOf(doc.data).slice(served);
      const room = page.limit - items.length;
      if (entries.length > room) {
        items.push(...entries.slice(0, room));
        return {
          items,
          nextCursor: encodePageCursor({ ...(storeCursor ? { store: storeCursor } : {}), within: { id: doc.id, served: served + room } }),
        };
      }
      items.push(...entries);
      within = undefined;
      storeCursor = found.nextCursor;
      if (!storeCursor) return { items };
      if (items.length === page.limit) return { items, nextCursor: encodePageCursor({ store: storeCursor }) };
    }
  }

  private async write(batch: AuditEntry[]): Promise<void> {
    if (batch.length === 0) return;
    const results = await Promise.allSettled(
      segmentsOf(batch).map((entries) => {
        const newest = entries[0]!;
        return this.store.put<AuditSegment>(AUDIT, newestFirstId(newest.at), {
          data: { entries },
          expectedVersion: 0,
          indexes: { subject: newest.subject ?? 'none' },
          // Every entry is kept at least the retention period.
          expiresAt: newest.at + AUDIT_RETENTION_MS,
        });
      }),
    );
    const failed = results.filter((r) => r.status === 'rejected').length;
    if (failed) this.logger.error({ failed }, 'audit entries could not be written');
  }
}

/**
 * Segments of a batch (oldest first): per subject, its entries newest first (later calls of
 * one millisecond first) in chunks, the oldest chunk first, since segments are given ids in
 * this order and of two ids of one millisecond the later one sorts first.
 */
function segmentsOf(batch: AuditEntry[]): AuditEntry[][] {
  const bySubject = new Map<string | undefined, AuditEntry[]>();
  for (let i = batch.length - 1; i >= 0; i--) {
    const entry = batch[i]!;
    const list = bySubject.get(entry.subject);
    if (list) list.push(entry);
    else bySubject.set(entry.subject, [entry]);
  }
  const segments: AuditEntry[][] = [];
  for (const entries of bySubject.values()) {
    // Stable: entries of one millisecond stay latest-recorded first.
    entries.sort((a, b) => b.at - a.at);
    for (let end = entries.length; end > 0; end -= MAX_SEGMENT_ENTRIES)
      segments.push(entries.slice(Math.max(0, end - MAX_SEGMENT_ENTRIES), end));
  }
  return segments;
}

function entriesOf(data: AuditSegment | AuditEntry): AuditEntry[] {
  return 'entries' in data ? data.entries : [data];
}

function encodePageCursor(cursor: PageCursor): string {
  return Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');
}

function decodePageCursor(cursor: string): PageCursor {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    json = undefined;
  }
  const parsed = pageCursorSchema.safeParse(json);
  if (!parsed.success) throw AppError.validation(['cursor is invalid']);
  return parsed.data;
}

/** Unique per process (random) and per entry (counter): no random bytes on the hot path. */
const PROCESS_TAG = randomBytes(6).toString('hex');
let sequence = 0;

/**
 * Descending time order under ascending id order, unique per entry: the inverted time,
 * then (for entries of one millisecond in one process) the inverted counter.
 */
function newestFirstId(at: number): string {
  sequence = (sequence + 1) % 1e12;
  const inverted = (n: number, max: number, width: number) => (max - n).toString().padStart(width, '0');
  return `${inverted(at, 9_999_999_999_999, 13)}-${PROCESS_TAG}-${inverted(sequence, 999_999_999_999, 12)}`;
}
