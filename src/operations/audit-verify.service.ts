import type { ClockPort } from '../../kernel/ports/clock.port.js';
import { checkpointPayload, walkChain, type ChainBreak, type StoredChainEntry } from './audit-chain.js';
import { AUDIT_RETENTION_MS, type AuditLog } from './audit-log.js';

/** Checks a checkpoint's signature: the signed text and whether the key is the service's. */
export interface CheckpointVerifier {
  verify(jws: string): Promise<{ payload: string; knownKey: boolean; kid: string } | undefined>;
}

/** One chain's verdict. */
export interface ChainReport {
  subject: string;
  ok: boolean;
  /** Chained entries checked. */
  entries: number;
  /** Entries written before the chain began (older than its first entry), not covered by it. */
  unchained: number;
  firstSeq?: number;
  lastSeq?: number;
  /** The newest signed head: up to its seq, a rewrite needs the service's private key. */
  checkpoint?: { seq: number; at: string; kid?: string; knownKey?: boolean };
  /** The first entry that does not match. */
  break?: ChainBreak;
}

export interface AuditVerdict {
  ok: boolean;
  chains: number;
  entries: number;
  /** Every chain that does not verify, each with its first break. */
  failures: ChainReport[];
  /** The one chain asked for. */
  chain?: ChainReport;
}

/**
 * Walks the audit trail's hash chains (every subject's, or one) and checks each signed head.
 * What is in this process's buffer is written first, so a verify right after a call covers it.
 */
export class AuditVerifier {
  constructor(
    private readonly audit: Pick<AuditLog, 'chainOf' | 'chainSubjects' | 'flush'>,
    private readonly signatures: CheckpointVerifier,
    private readonly clock: ClockPort,
    private readonly retentionMs = AUDIT_RETENTION_MS,
  ) {}

  async verify(subject?: string): Promise<AuditVerdict> {
    await this.audit.flush();
    if (subject !== undefined) {
      const report = await this.verifySubject(subject);
      return { ok: report.ok, chains: 1, entries: report.entries, failures: report.ok ? [] : [report], chain: report };
    }
    const verdict: AuditVerdict = { ok: true, chains: 0, entries: 0, failures: [] };
    let cursor: string | undefined;
    do {
      const page = await this.audit.chainSubjects({ limit: 100, ...(cursor ? { cursor } : {}) });
      for (const each of page.items) {
        const report = await this.verifySubject(each);
        verdict.chains += 1;
        verdict.entries += report.entries;
        if (!report.ok) {
          verdict.ok = false;
          verdict.failures.push(report);
        }
      }
      cursor = page.nextCursor;
    } while (cursor);
    return verdict;
  }

  async verifySubject(subject: string): Promise<ChainReport> {
    const { entries, head } = await this.audit.chainOf(subject);
    const walk = walkChain(subject, entries, head, { now: this.clock.now(), retentionMs: this.retentionMs });
    const report: ChainReport = {
      subject,
      ok: !walk.break,
      entries: walk.entries,
      unchained: walk.unchained,
      ...(walk.firstSeq === undefined ? {} : { firstSeq: walk.firstSeq }),
      ...(walk.lastSeq === undefined ? {} : { lastSeq: walk.lastSeq }),
      ...(walk.break ? { break: walk.break } : {}),
    };
    const checkpoint = head?.checkpoint;
    if (!checkpoint) return report;
    const signed = await this.signatures.verify(checkpoint.jws);
    report.checkpoint = {
      seq: checkpoint.seq,
      at: new Date(checkpoint.at).toISOString(),
      ...(signed ? { kid: signed.kid, knownKey: signed.knownKey } : {}),
    };
    if (report.break) return report;
    const problem = this.checkpointProblem(subject, checkpoint, signed, entries, head.seq);
    if (problem) return { ...report, ok: false, break: problem };
    return report;
  }

  /** Why the signed head does not hold: a bad signature, a head behind it, or an entry that differs from what was signed. */
  private checkpointProblem(
    subject: string,
    checkpoint: { seq: number; hash: string; at: number },
    signed: { payload: string; knownKey: boolean } | undefined,
    entries: readonly StoredChainEntry[],
    headSeq: number,
  ): ChainBreak | undefined {
    const invalid = (message: string, at?: StoredChainEntry): ChainBreak => ({
      seq: checkpoint.seq,
      reason: 'checkpoint-invalid',
      message,
      ...(at
        ? {
            entry: {
              seq: checkpoint.seq,
              at: new Date(at.entry.at).toISOString(),
              operation: at.entry.operation,
              requestId: at.entry.requestId,
              segmentId: at.segmentId,
            },
          }
        : {}),
    });
    if (!signed || signed.payload !== checkpointPayload(subject, checkpoint))
      return invalid(`the signed head (entry ${checkpoint.seq}) does not carry a valid signature`);
    // Anyone can sign with a key of their own; heads are signed again well before a retired key leaves the ring.
    if (!signed.knownKey) return invalid(`the signed head (entry ${checkpoint.seq}) is signed by a key the service does not have`);
    // The head moved back behind what was signed: entries after it were cut off.
    if (checkpoint.seq > headSeq) return invalid(`entries ${headSeq + 1} to ${checkpoint.seq} are missing (a signed head covered them)`);
    const signedEntry = entries.find((stored) => stored.entry.chain?.seq === checkpoint.seq);
    // Gone by expiry only: the walk accepted the chain's start.
    if (!signedEntry) return undefined;
    if (signedEntry.entry.chain?.hash !== checkpoint.hash)
      return invalid(`entry ${checkpoint.seq} is not the entry the signed head covered (the chain was rewritten)`, signedEntry);
    return undefined;
  }
}
