import type { Logger } from 'pino';
import { z } from 'zod';
import { AppError } from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { CollectionSpec, Page, StorePort } from '../../kernel/ports/store.port.js';
import { retryOnConflict } from '../../kernel/shared/record-update.js';
import {
  checkpointPayload,
  extendChain,
  type ChainCheckpoint,
  type ChainedEntry,
  type ChainHead,
  type StoredChainEntry,
} from './audit-chain.js';
import type { AuditEntry, AuditSink } from './audit.types.js';
import { sha256Hex } from './request-digest.js';

export const AUDIT = 'audit';
/**
 * One chain head per subject: `pending` 1 while its newest entries are not under a signed
 * checkpoint, `signedAt` the time of its checkpoint (0: none).
 */
export const AUDIT_HEADS = 'audit_heads';
export const AUDIT_COLLECTIONS: CollectionSpec[] = [
  { name: AUDIT, indexes: ['subject'] },
  { name: AUDIT_HEADS, indexes: ['pending', 'signedAt'] },
];
/**
 * A quiet chain's checkpoint is signed again after this long, with the then active key: a
 * retired key leaves the key ring an hour after its last token could expire, and a
 * checkpoint whose key the ring no longer has cannot be told from a forged one.
 */
const RESIGN_AFTER_MS = 30 * 60 * 1000;
/** Audit records are kept this long. */
export const AUDIT_RETENTION_MS = 90 * 24 * 60 * 60 * 1000;
/** Default gap between two signed checkpoints of one chain. */
const AUDIT_CHECKPOINT_MS = 10_000;
/** Heads one checkpoint sweep signs at most (the rest at the next one). */
const SWEEP_BATCH = 200;
/** A subject's chain head lost to other processes this many times in a row: the segment is dropped (logged). */
const MAX_HEAD_ATTEMPTS = 60;
/**
 * Heads this process remembers (the subjects it wrote most recently): a subject past them
 * costs one head read at its next append, as every append did before heads were kept.
 */
const MAX_KNOWN_HEADS = 10_000;

/** Signs chain heads (compact JWS with the service's ES256 key). */
export interface CheckpointSigner {
  sign(payload: string): Promise<string>;
}
/**
 * Entries wait this long for others to share their write: every flush is an LMDB write
 * transaction (a commit and, when nothing else is writing, a disk flush of its own), so at
 * 10 ms a call every 20 ms cost one more transaction each (a third of an isolated swap's);
 * at 100 ms, five calls share one. Readers of the trail flush first, so they see every entry
 * at once; an entry still buffered when the process is killed is lost, as before (an audit
 * entry is written after its call, never with it).
 */
const FLUSH_EVERY_MS = 100;
const MAX_BUFFER = 10_000;

/** Entries of one subject in one flush go into one stored segment of at most this many. */
const MAX_SEGMENT_ENTRIES = 256;

/**
 * A chain head as this process wrote it, with the store version that write made: the data is
 * this process's own object, so the next append does not decode the stored bytes again.
 */
interface KeptHead {
  version: number;
  data: ChainHead;
}

/** A stored segment: entries of one subject recorded within one flush, newest first. */
interface AuditSegment {
  entries: ChainedEntry[];
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
  private signer: { signer: CheckpointSigner; everyMs: number } | undefined;
  private sweepTimer: (() => void) | undefined;
  private sweeping: Promise<void> = Promise.resolve();
  private sweepOn = false;
  /**
   * The head this process last committed (or read) per subject, with its version: the next
   * append links after it and writes on that version without reading it again. Only the
   * compare-and-set trusts it: when another process (or the sweep) moved the head since, the
   * write is refused and the append reads the stored head, as it always did.
   */
  private readonly heads = new Map<string, KeptHead>();

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

  /**
   * Signs chain heads from now on: a head is signed when it is written and its last
   * checkpoint is `everyMs` old, and a sweep every `everyMs` signs heads whose newest
   * entries no checkpoint covers yet (a quiet subject's last calls).
   */
  startCheckpoints(signer: CheckpointSigner, everyMs = AUDIT_CHECKPOINT_MS): void {
    this.signer = { signer, everyMs };
    this.sweepOn = true;
    const loop = () => {
      if (!this.sweepOn) return;
      this.sweepTimer = this.clock.setTimer(() => {
        this.sweeping = this.signPending().finally(loop);
      }, everyMs);
    };
    loop();
  }

  /** Stops the sweep; the heads written from now on are still signed when due. */
  async stopCheckpoints(): Promise<void> {
    this.sweepOn = false;
    this.sweepTimer?.();
    this.sweepTimer = undefined;
    await this.sweeping;
  }

  /** Signs every head whose newest entries are not under a checkpoint (a sweep, and on stop). */
  async signPending(): Promise<void> {
    const signing = this.signer;
    if (!signing) return;
    try {
      const pending = await this.store.find<ChainHead>(AUDIT_HEADS, { index: 'pending', eq: 1 }, { limit: SWEEP_BATCH });
      const stale = await this.store.find<ChainHead>(
        AUDIT_HEADS,
        { index: 'signedAt', lte: this.clock.now() - RESIGN_AFTER_MS },
        { limit: SWEEP_BATCH },
      );
      const heads = new Map([...pending.items, ...stale.items].map((doc) => [doc.id, doc]));
      for (const doc of heads.values()) {
        const checkpoint = await this.checkpoint(doc.id, doc.data, signing.signer);
        if (!checkpoint) continue;
        // Lost to a writer that advanced the head: it signs or leaves it pending for the next sweep.
        const data = { ...doc.data, checkpoint };
        const signed = await this.store
          .put<ChainHead>(AUDIT_HEADS, doc.id, {
            data,
            expectedVersion: doc.version,
            indexes: headIndexes(doc.data, checkpoint),
          })
          .catch(() => undefined);
        if (signed) this.remember(doc.id, { version: signed.version, data });
      }
    } catch (error) {
      this.logger.error({ err: error }, 'audit chain heads could not be signed');
    }
  }

  /**
   * What verify walks: a subject's stored entries oldest first, each with the id of the
   * document it is stored in, and its chain head.
   */
  async chainOf(subject: string): Promise<{ entries: StoredChainEntry[]; head: ChainHead | undefined }> {
    const newestFirst: StoredChainEntry[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.store.find<AuditSegment | AuditEntry>(
        AUDIT,
        { index: 'subject', eq: subject },
        { limit: 100, ...(cursor ? { cursor } : {}) },
      );
      for (const doc of page.items) for (const entry of entriesOf(doc.data)) newestFirst.push({ entry, segmentId: doc.id });
      cursor = page.nextCursor;
    } while (cursor);
    const head = await this.store.get<ChainHead>(AUDIT_HEADS, subject);
    return { entries: newestFirst.reverse(), head: head?.data };
  }

  /** The subjects that have a chain, a page at a time. */
  async chainSubjects(page: { limit: number; cursor?: string }): Promise<Page<string>> {
    const found = await this.store.list<ChainHead>(AUDIT_HEADS, page);
    return { items: found.items.map((doc) => doc.id), ...(found.nextCursor ? { nextCursor: found.nextCursor } : {}) };
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
      const entries = entriesOf(doc.data).slice(served).map(withoutLink);
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
    const bySubject = new Map<string, AuditEntry[]>();
    for (const entry of batch) {
      const subject = entry.subject ?? 'none';
      const list = bySubject.get(subject);
      if (list) list.push(entry);
      else bySubject.set(subject, [entry]);
    }
    const results = await Promise.allSettled(
      [...bySubject].map(async ([subject, entries]) => {
        // Stable: entries of one millisecond stay in the order they were recorded.
        entries.sort((a, b) => a.at - b.at);
        for (let start = 0; start < entries.length; start += MAX_SEGMENT_ENTRIES)
          await this.append(subject, entries.slice(start, start + MAX_SEGMENT_ENTRIES));
      }),
    );
    const failed = results.filter((r) => r.status === 'rejected');
    if (failed.length)
      this.logger.error({ failed: failed.length, err: (failed[0] as PromiseRejectedResult).reason }, 'audit entries could not be written');
  }

  /**
   * Appends one segment (entries oldest first) to its subject's chain: takes the head this
   * process last wrote (reads it when it has none), links the entries after it, and writes
   * the segment and the advanced head in one commit whose head write is a compare-and-set on
   * that head's version. Another process that appended first makes it read the head again
   * and link again, so the chain stays one line whoever writes.
   */
  private async append(subject: string, entries: AuditEntry[]): Promise<void> {
    await retryOnConflict(
      () => `${AUDIT_HEADS}/${subject}`,
      async () => {
        // Taken out until the commit holds: a lost race reads the stored head, not this copy again.
        const known = this.heads.get(subject);
        this.heads.delete(subject);
        const current = known ?? (await this.store.get<ChainHead>(AUDIT_HEADS, subject));
        const { chained, head } = extendChain(subject, current?.data, entries);
        let checkpoint = current?.data.checkpoint;
        const signing = this.signer;
        if (signing && (!checkpoint || this.clock.now() - checkpoint.at >= signing.everyMs))
          checkpoint = await this.checkpoint(subject, head, signing.signer);
        const newest = chained[chained.length - 1]!;
        const data: ChainHead = { ...head, ...(checkpoint ? { checkpoint } : {}) };
        const [written] = await this.store.commit([
          {
            op: 'put',
            collection: AUDIT_HEADS,
            id: subject,
            input: {
              data,
              expectedVersion: current?.version ?? 0,
              indexes: headIndexes(head, checkpoint),
            },
          },
          {
            op: 'put',
            collection: AUDIT,
            id: segmentId(subject, head.seq),
            input: {
              data: { entries: chained.reverse() },
              expectedVersion: 0,
              indexes: { subject },
              // Every entry is kept at least the retention period (the newest is the latest).
              expiresAt: newest.at + AUDIT_RETENTION_MS,
            },
          },
        ]);
        this.remember(subject, { version: written!.version, data });
      },
      { maxAttempts: MAX_HEAD_ATTEMPTS },
    );
  }

  /**
   * Keeps `head` as the subject's head unless a newer version is already kept (the sweep's
   * write can resolve after an append that followed it). Oldest-used subjects leave first.
   */
  private remember(subject: string, head: KeptHead): void {
    const kept = this.heads.get(subject);
    if (kept && kept.version >= head.version) return;
    this.heads.delete(subject);
    this.heads.set(subject, head);
    if (this.heads.size > MAX_KNOWN_HEADS) this.heads.delete(this.heads.keys().next().value!);
  }

  /** A signed checkpoint of `head` (a signing failure leaves the head unsigned, and pending). */
  private async checkpoint(
    subject: string,
    head: Pick<ChainHead, 'seq' | 'hash' | 'at' | 'checkpoint'>,
    signer: CheckpointSigner,
  ): Promise<ChainCheckpoint | undefined> {
    const at = this.clock.now();
    try {
      return {
        seq: head.seq,
        hash: head.hash,
        at,
        jws: await signer.sign(checkpointPayload(subject, { seq: head.seq, hash: head.hash, at })),
      };
    } catch (error) {
      this.logger.error({ err: error }, 'audit chain head not signed');
      return head.checkpoint;
    }
  }
}

function headIndexes(head: Pick<ChainHead, 'seq'>, checkpoint: ChainCheckpoint | undefined) {
  return { pending: checkpoint?.seq === head.seq ? 0 : 1, signedAt: checkpoint?.at ?? 0 };
}

/**
 * A segment's id: `0` (before the time-based ids of the segments written before the chain,
 * which begin with a larger digit), a digest of the subject (ids are unique across
 * subjects), and the inverted seq of its newest entry, so a subject's segments sort newest
 * first by their chain position, whichever process wrote them when.
 */
function segmentId(subject: string, newestSeq: number): string {
  const digest = sha256Hex(subject).slice(0, 16);
  return `0${digest}${(999_999_999_999 - newestSeq).toString().padStart(12, '0')}`;
}

/** An entry as readers of the trail get it: the chain link is verify's business. */
function withoutLink(entry: ChainedEntry): AuditEntry {
  if (!entry.chain) return entry;
  const { chain: _chain, ...rest } = entry;
  return rest;
}

function entriesOf(data: AuditSegment | AuditEntry): ChainedEntry[] {
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
