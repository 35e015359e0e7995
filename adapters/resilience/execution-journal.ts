import { AppError, isAppError } from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { CollectionSpec, StorePort } from '../../kernel/ports/store.port.js';
import type { Chain, ExecutionResult } from '../../kernel/ports/venue.port.js';
import { isConcurrentUpdatesGaveUp } from '../../kernel/shared/conflict-backoff.js';
import { updateRecord } from '../../kernel/shared/record-update.js';

/**
 * Crash rule of the live venues: a signed transaction is written here BEFORE it is
 * broadcast. A later `execute` or `lookup` of the same client order id finds it and
 * re-checks (or re-sends the very same signed bytes, which the chain executes at most
 * once) instead of building a new transaction. One document per venue and order id.
 */
export const LIVE_EXECUTIONS: CollectionSpec = { name: 'live.executions', indexes: ['status'] };

/**
 * Settle attempts. Only another settle writes a signed record, so a lost race means a result
 * is recorded and the fresh read returns it: a few attempts are plenty, then the fallback.
 */
const SETTLE_ATTEMPTS = 3;

export type LiveExecutionStatus = 'signed' | 'filled' | 'failed';

export interface LiveExecutionRecord {
  clientOrderId: string;
  venue: string;
  chain: Chain;
  /** `signed` until a final result is known; the broadcast itself is not recorded (a crash can fall between). */
  status: LiveExecutionStatus;
  /** Wallet address that signed (and receives the output). */
  owner: string;
  outputMint: string;
  /** The quote's expected output: the fill reported when the real amount cannot be read. */
  expectedOut: string;
  /** Signature (Solana) or transaction hash (EVM); absent when the order failed before signing. */
  txSignature?: string;
  /** Signed transaction: base64 wire bytes (Solana) or 0x-hex serialized (EVM). */
  rawTx?: string;
  /** Solana: past this block height the transaction can no longer land. */
  lastValidBlockHeight?: number;
  /** EVM: the nonce the transaction uses; once the account's nonce passed it without a receipt, it can never land. */
  nonce?: number;
  /** Final outcome once known. */
  result?: Extract<ExecutionResult, { status: 'filled' | 'failed' }>;
  createdAt: number;
}

export interface JournalEntryRef {
  record: LiveExecutionRecord;
  version: number;
}

export class ExecutionJournal {
  constructor(
    private readonly store: StorePort,
    private readonly venue: string,
    private readonly clock: Pick<ClockPort, 'now'> = { now: () => Date.now() },
  ) {}

  async get(clientOrderId: string): Promise<JournalEntryRef | null> {
    const doc = await this.store.get<LiveExecutionRecord>(LIVE_EXECUTIONS.name, this.id(clientOrderId));
    return doc ? { record: doc.data, version: doc.version } : null;
  }

  /**
   * Writes the record if none exists, and resolves once it is durable: the caller broadcasts
   * what it journaled, and a transaction out there whose entry power loss undid would be
   * signed and sent again by recovery. When another caller got there first (two executes
   * racing on one order id), answers with theirs: the caller must then follow that one.
   */
  async create(record: Omit<LiveExecutionRecord, 'venue' | 'createdAt'>): Promise<{ created: boolean; entry: JournalEntryRef }> {
    const data: LiveExecutionRecord = { ...record, venue: this.venue, createdAt: this.clock.now() };
    try {
      const doc = await this.store.put<LiveExecutionRecord>(LIVE_EXECUTIONS.name, this.id(record.clientOrderId), {
        data,
        expectedVersion: 0,
        indexes: { status: data.status },
      });
      await this.store.durable();
      return { created: true, entry: { record: doc.data, version: doc.version } };
    } catch (error) {
      if (!isAppError(error) || error.code !== 'VERSION_CONFLICT') throw error;
      const existing = await this.get(record.clientOrderId);
      if (!existing) throw error;
      return { created: false, entry: existing };
    }
  }

  /** Records the final result; a result already recorded by another process wins. */
  async settle(clientOrderId: string, result: NonNullable<LiveExecutionRecord['result']>): Promise<LiveExecutionRecord['result']> {
    try {
      const { doc } = await updateRecord<LiveExecutionRecord>(
        this.store,
        { collection: LIVE_EXECUTIONS.name, id: this.id(clientOrderId) },
        (current) => {
          if (!current) throw AppError.internal(`live execution ${clientOrderId} vanished from the journal`);
          if (current.data.result) return null; // recorded already: that result wins
          return { data: { ...current.data, status: result.status, result }, indexes: { status: result.status } };
        },
        { maxAttempts: SETTLE_ATTEMPTS },
      );
      return doc!.data.result;
    } catch (error) {
      if (!isConcurrentUpdatesGaveUp(error)) throw error;
      // Still racing: whatever is recorded by now, else this result (the chain's answer either way).
      const final = await this.get(clientOrderId);
      return final?.record.result ?? result;
    }
  }

  private id(clientOrderId: string): string {
    return `${this.venue}:${clientOrderId}`;
  }
}

/** The final outcome a journal record settles with. */
export type FinalResult = NonNullable<LiveExecutionRecord['result']>;

/**
 * Reads the chain until the transaction is final or `waitMs` passes (then `submitted`:
 * the order's sweep looks again later). Real time, not the injected clock: this bounds
 * how long a caller waits on the network.
 */
export async function pollUntilFinal(
  record: LiveExecutionRecord,
  settleFromChain: (record: LiveExecutionRecord) => Promise<FinalResult | null>,
  options: { waitMs: number; pollMs: number; now: () => number },
): Promise<ExecutionResult> {
  const deadline = Date.now() + options.waitMs;
  for (;;) {
    const known = await settleFromChain(record);
    if (known) return known;
    if (Date.now() >= deadline) return { status: 'submitted', txSignature: record.txSignature!, at: options.now() };
    await new Promise((resolve) => setTimeout(resolve, options.pollMs));
  }
}
