import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { ExecuteRequest, ExecutionFailureReason, ExecutionResult } from '../../kernel/ports/venue.port.js';
import { pollUntilFinal, type ExecutionJournal, type FinalResult, type LiveExecutionRecord } from './execution-journal.js';

/** An aggregator's refusal to build the swap: a final failure, journaled like any outcome. */
export type Refusal = { refused: { reason: ExecutionFailureReason; message: string } };

/** What journaling keeps of a signed transaction before its first broadcast. */
export type SignedTransaction = Pick<LiveExecutionRecord, 'txSignature' | 'rawTx' | 'nonce' | 'lastValidBlockHeight'>;

export interface JournaledExecutorOptions {
  journal: ExecutionJournal;
  clock: Pick<ClockPort, 'now'>;
  /** How long `execute` waits for confirmation before answering `submitted`. */
  confirmTimeoutMs: number;
  pollMs: number;
}

/**
 * The crash rule of the live venues (execution-journal.ts) for any chain: one signed
 * transaction per client order id, journaled before its first broadcast; a later
 * `execute` or `lookup` re-reads the chain and re-sends those same bytes instead of
 * building another. The journal's first final result wins. A chain's executor supplies
 * the three chain-specific steps.
 */
export abstract class JournaledExecutor<P extends { expectedOut: string }, O extends JournaledExecutorOptions = JournaledExecutorOptions> {
  constructor(protected readonly options: O) {}

  protected abstract sign(request: ExecuteRequest, prepared: P): Promise<SignedTransaction>;
  /** Broadcasts the journaled bytes: a failure when the node refused them for good, else null (they may be out there). */
  protected abstract broadcast(record: LiveExecutionRecord): Promise<FinalResult | null>;
  /** The final outcome the chain shows (landed, failed, can no longer land), or null while pending. */
  protected abstract read(record: LiveExecutionRecord): Promise<FinalResult | null>;

  async execute(request: ExecuteRequest, prepare: () => Promise<P | Refusal>): Promise<ExecutionResult> {
    const { journal, clock, confirmTimeoutMs } = this.options;
    const existing = await journal.get(request.clientOrderId);
    if (existing) return this.resume(existing.record, confirmTimeoutMs);
    const prepared = await prepare();
    const base = {
      clientOrderId: request.clientOrderId,
      chain: request.chain,
      owner: request.signer.address,
      outputMint: request.outputMint,
    };
    if ('refused' in prepared) {
      const result: FinalResult = { status: 'failed', reason: prepared.refused.reason, message: prepared.refused.message, at: clock.now() };
      const { entry } = await journal.create({ ...base, expectedOut: '0', status: 'failed', result });
      return entry.record.result ?? this.resume(entry.record, confirmTimeoutMs);
    }
    const signed = await this.sign(request, prepared);
    const { created, entry } = await journal.create({ ...base, expectedOut: prepared.expectedOut, status: 'signed', ...signed });
    // Lost a race with a concurrent execute of the same order: ours is never sent.
    if (!created) return this.resume(entry.record, confirmTimeoutMs);
    return this.send(entry.record, confirmTimeoutMs);
  }

  /** The journaled outcome, re-checked on chain (and re-sent while it can still land); null when never journaled. */
  async lookup(clientOrderId: string): Promise<ExecutionResult | null> {
    const entry = await this.options.journal.get(clientOrderId);
    return entry ? this.resume(entry.record, 0) : null;
  }

  private async resume(record: LiveExecutionRecord, waitMs: number): Promise<ExecutionResult> {
    if (record.result) return record.result;
    return (await this.settleFromChain(record)) ?? this.send(record, waitMs);
  }

  private async send(record: LiveExecutionRecord, waitMs: number): Promise<ExecutionResult> {
    const refused = await this.broadcast(record);
    if (refused) return this.settle(record, refused);
    return pollUntilFinal(record, (r) => this.settleFromChain(r), {
      waitMs,
      pollMs: this.options.pollMs,
      now: () => this.options.clock.now(),
    });
  }

  private async settleFromChain(record: LiveExecutionRecord): Promise<FinalResult | null> {
    const known = await this.read(record);
    return known && this.settle(record, known);
  }

  private async settle(record: LiveExecutionRecord, result: FinalResult): Promise<FinalResult> {
    return (await this.options.journal.settle(record.clientOrderId, result)) ?? result;
  }
}
