import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { ClockPort } from '../ports/clock.port.js';
import type { CollectionSpec, Page, StorePort } from '../ports/store.port.js';
import type { AuditEntry, AuditSink } from './audit.types.js';

const AUDIT = 'audit';
export const AUDIT_COLLECTIONS: CollectionSpec[] = [{ name: AUDIT, indexes: ['subject'] }];
/** Audit records are kept this long. */
export const AUDIT_RETENTION_MS = 90 * 24 * 60 * 60 * 1000;
const FLUSH_EVERY_MS = 10;
const MAX_BUFFER = 10_000;

/**
 * The audit trail in the store. Recording never blocks or fails the audited call: entries
 * are buffered and written in batches (one group commit), oldest first; `flush` on shutdown.
 * Ids sort newest first, so a subject's page 1 is its latest activity.
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
    const docs = await this.store.find<AuditEntry>(AUDIT, { index: 'subject', eq: subject }, page);
    return { items: docs.items.map((doc) => doc.data), ...(docs.nextCursor ? { nextCursor: docs.nextCursor } : {}) };
  }

  private async write(batch: AuditEntry[]): Promise<void> {
    if (batch.length === 0) return;
    const results = await Promise.allSettled(
      batch.map((entry) =>
        this.store.put(AUDIT, newestFirstId(entry.at), {
          data: entry,
          expectedVersion: 0,
          indexes: { subject: entry.subject ?? 'none' },
          expiresAt: entry.at + AUDIT_RETENTION_MS,
        }),
      ),
    );
    const failed = results.filter((r) => r.status === 'rejected').length;
    if (failed) this.logger.error({ failed }, 'audit entries could not be written');
  }
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
