import type { VersionedTransaction } from '@solana/web3.js';
import type { ClockPort } from '../../src/ports/clock.port.js';
import { NATIVE_SOL_MINT, type ExecuteRequest, type ExecutionResult } from '../../src/ports/venue.port.js';
import { pollUntilFinal, type ExecutionJournal, type FinalResult, type LiveExecutionRecord } from '../resilience/execution-journal.js';
import { rpcCall, type SolanaRpc, type SolanaTransactionMeta } from './solana-rpc.js';
import { classifySendError, failureFromTransactionError, signWithWallet, type FailureInfo } from './solana-transactions.js';

/** An unsigned swap transaction from an aggregator, ready to be signed by the order's wallet. */
export interface PreparedSolanaSwap {
  tx: VersionedTransaction;
  lastValidBlockHeight: number;
  /** Reported as the fill when the real amount cannot be read from the landed transaction. */
  expectedOut: string;
}

export interface SolanaExecutorOptions {
  rpc: SolanaRpc;
  journal: ExecutionJournal;
  clock: Pick<ClockPort, 'now'>;
  /** How long `execute` waits for confirmation before answering `submitted`. */
  confirmTimeoutMs: number;
  pollMs: number;
  /** Name in PROVIDER_UNAVAILABLE messages of RPC failures. */
  rpcProvider: string;
}


/**
 * Signs, journals, broadcasts and confirms Solana swap transactions once per client order
 * id. The signed bytes are journaled before the first broadcast; every later call re-checks
 * the signature and, while the blockhash is still valid, re-sends those same bytes (a
 * signature executes at most once on Solana). The journal's first final result wins.
 */
export class SolanaExecutor {
  constructor(private readonly options: SolanaExecutorOptions) {}

  async execute(request: ExecuteRequest, prepare: () => Promise<PreparedSolanaSwap | { refused: FailureInfo }>): Promise<ExecutionResult> {
    const existing = await this.options.journal.get(request.clientOrderId);
    if (existing) return this.resume(existing.record, this.options.confirmTimeoutMs);
    const prepared = await prepare();
    const base = { clientOrderId: request.clientOrderId, chain: request.chain, owner: request.signer.address, outputMint: request.outputMint };
    if ('refused' in prepared) {
      const result: FinalResult = { status: 'failed', reason: prepared.refused.reason, message: prepared.refused.message, at: this.options.clock.now() };
      const { entry } = await this.options.journal.create({ ...base, expectedOut: '0', status: 'failed', result });
      return entry.record.result ?? this.resume(entry.record, this.options.confirmTimeoutMs);
    }
    const txSignature = await signWithWallet(request.signer, prepared.tx);
    const { created, entry } = await this.options.journal.create({
      ...base,
      expectedOut: prepared.expectedOut,
      status: 'signed',
      txSignature,
      rawTx: Buffer.from(prepared.tx.serialize()).toString('base64'),
      lastValidBlockHeight: prepared.lastValidBlockHeight,
    });
    // Lost a race with a concurrent execute of the same order: ours is never sent.
    if (!created) return this.resume(entry.record, this.options.confirmTimeoutMs);
    return this.send(entry.record, this.options.confirmTimeoutMs);
  }

  /** The journaled outcome, re-checked on chain (and re-sent while still valid); null when never journaled. */
  async lookup(clientOrderId: string): Promise<ExecutionResult | null> {
    const entry = await this.options.journal.get(clientOrderId);
    return entry ? this.resume(entry.record, 0) : null;
  }

  private async resume(record: LiveExecutionRecord, waitMs: number): Promise<ExecutionResult> {
    if (record.result) return record.result;
    const known = await this.settleFromChain(record);
    return known ?? this.send(record, waitMs);
  }

  private async send(record: LiveExecutionRecord, waitMs: number): Promise<ExecutionResult> {
    const raw = Buffer.from(record.rawTx ?? '', 'base64');
    try {
      await this.options.rpc.sendRawTransaction(raw);
    } catch (error) {
      const verdict = classifySendError(error);
      if (verdict.final) return this.settle(record, { status: 'failed', ...verdict.failure, txSignature: record.txSignature!, at: this.options.clock.now() });
      // Transport trouble or "already processed": the transaction may be out there, so the status decides.
      // A node that keeps failing shows up in the status reads below as PROVIDER_UNAVAILABLE.
    }
    return this.poll(record, waitMs);
  }

  private poll(record: LiveExecutionRecord, waitMs: number): Promise<ExecutionResult> {
    return pollUntilFinal(record, (r) => this.settleFromChain(r), { waitMs, pollMs: this.options.pollMs, now: () => this.options.clock.now() });
  }


  /** A final result when the chain has one (landed, failed, or can no longer land); null while pending. */
  private async settleFromChain(record: LiveExecutionRecord): Promise<FinalResult | null> {
    const { rpc, rpcProvider, clock } = this.options;
    const txSignature = record.txSignature!;
    // Height first: if it is already past the last valid height, a status read afterwards is authoritative.
    const height = await rpcCall(rpcProvider, 'getBlockHeight', () => rpc.getBlockHeight());
    const { value } = await rpcCall(rpcProvider, 'getSignatureStatuses', () => rpc.getSignatureStatuses([txSignature], { searchTransactionHistory: true }));
    const status = value[0];
    if (status?.err) return this.settle(record, { status: 'failed', ...failureFromTransactionError(status.err), txSignature, at: clock.now() });
    if (status?.confirmationStatus === 'confirmed' || status?.confirmationStatus === 'finalized') {
      const filledOut = (await this.filledOut(record)) ?? record.expectedOut;
      return this.settle(record, { status: 'filled', filledOut, txSignature, at: clock.now() });
    }
    if (!status && record.lastValidBlockHeight !== undefined && height > record.lastValidBlockHeight) {
      return this.settle(record, { status: 'failed', reason: 'expired', message: 'Blockhash expired before the transaction landed', txSignature, at: clock.now() });
    }
    return null;
  }

  /** What the owner really received, from the landed transaction's token balances; null when unreadable. */
  private async filledOut(record: LiveExecutionRecord): Promise<string | null> {
    // Native SOL arrives unwrapped, mixed with fee and rent movements in lamport balances.
    if (record.outputMint === NATIVE_SOL_MINT) return null;
    const { rpc, rpcProvider } = this.options;
    const tx = await rpcCall(rpcProvider, 'getTransaction', () => rpc.getTransaction(record.txSignature!, { maxSupportedTransactionVersion: 0, commitment: 'confirmed' }));
    return tx?.meta ? receivedAmount(tx.meta, record.owner, record.outputMint) : null;
  }

  private async settle(record: LiveExecutionRecord, result: FinalResult): Promise<FinalResult> {
    return (await this.options.journal.settle(record.clientOrderId, result)) ?? result;
  }
}

/** Post minus pre token balance of `owner` in `mint` across its accounts; null when it did not grow. */
export function receivedAmount(meta: SolanaTransactionMeta, owner: string, mint: string): string | null {
  const sum = (balances: SolanaTransactionMeta['preTokenBalances']): bigint =>
    (balances ?? []).filter((b) => b.owner === owner && b.mint === mint).reduce((total, b) => total + BigInt(b.uiTokenAmount.amount), 0n);
  const delta = sum(meta.postTokenBalances) - sum(meta.preTokenBalances);
  return delta > 0n ? String(delta) : null;
}
