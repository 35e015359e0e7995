import type { VersionedTransaction } from '@solana/web3.js';
import { NATIVE_SOL_MINT, type ExecuteRequest } from '../../kernel/ports/venue.port.js';
import type { FinalResult, LiveExecutionRecord } from '../resilience/execution-journal.js';
import { JournaledExecutor, type JournaledExecutorOptions, type SignedTransaction } from '../resilience/journaled-executor.js';
import { rpcCall, type SolanaRpc, type SolanaTransactionMeta } from './solana-rpc.js';
import { classifySendError, failureFromTransactionError, signWithWallet } from './solana-transactions.js';

/** An unsigned swap transaction from an aggregator, ready to be signed by the order's wallet. */
export interface PreparedSolanaSwap {
  tx: VersionedTransaction;
  lastValidBlockHeight: number;
  /** Reported as the fill when the real amount cannot be read from the landed transaction. */
  expectedOut: string;
}

export interface SolanaExecutorOptions extends JournaledExecutorOptions {
  rpc: SolanaRpc;
  /** Name in PROVIDER_UNAVAILABLE messages of RPC failures. */
  rpcProvider: string;
}

/**
 * Signs, broadcasts and confirms Solana swap transactions once per client order id
 * (JournaledExecutor). While the blockhash is still valid a re-send uses the same signed
 * bytes (a signature executes at most once on Solana); past its last valid height a
 * transaction the chain never saw can no longer land.
 */
export class SolanaExecutor extends JournaledExecutor<PreparedSolanaSwap, SolanaExecutorOptions> {
  protected async sign(request: ExecuteRequest, prepared: PreparedSolanaSwap): Promise<SignedTransaction> {
    const txSignature = await signWithWallet(request.signer, prepared.tx);
    return {
      txSignature,
      rawTx: Buffer.from(prepared.tx.serialize()).toString('base64'),
      lastValidBlockHeight: prepared.lastValidBlockHeight,
    };
  }

  protected async broadcast(record: LiveExecutionRecord): Promise<FinalResult | null> {
    try {
      await this.options.rpc.sendRawTransaction(Buffer.from(record.rawTx ?? '', 'base64'));
      return null;
    } catch (error) {
      const verdict = classifySendError(error);
      if (verdict.final) return { status: 'failed', ...verdict.failure, txSignature: record.txSignature!, at: this.options.clock.now() };
      // Transport trouble or "already processed": the transaction may be out there, so the status decides.
      // A node that keeps failing shows up in the status reads as PROVIDER_UNAVAILABLE.
      return null;
    }
  }

  protected async read(record: LiveExecutionRecord): Promise<FinalResult | null> {
    const { rpc, rpcProvider, clock } = this.options;
    const txSignature = record.txSignature!;
    // Height first: if it is already past the last valid height, a status read afterwards is authoritative.
    const height = await rpcCall(rpcProvider, 'getBlockHeight', () => rpc.getBlockHeight());
    const { value } = await rpcCall(rpcProvider, 'getSignatureStatuses', () =>
      rpc.getSignatureStatuses([txSignature], { searchTransactionHistory: true }),
    );
    const status = value[0];
    if (status?.err) return { status: 'failed', ...failureFromTransactionError(status.err), txSignature, at: clock.now() };
    if (status?.confirmationStatus === 'confirmed' || status?.confirmationStatus === 'finalized') {
      const filledOut = (await this.filledOut(record)) ?? record.expectedOut;
      return { status: 'filled', filledOut, txSignature, at: clock.now() };
    }
    if (!status && record.lastValidBlockHeight !== undefined && height > record.lastValidBlockHeight) {
      return {
        status: 'failed',
        reason: 'expired',
        message: 'Blockhash expired before the transaction landed',
        txSignature,
        at: clock.now(),
      };
    }
    return null;
  }

  /** What the owner really received, from the landed transaction's token balances; null when unreadable. */
  private async filledOut(record: LiveExecutionRecord): Promise<string | null> {
    // Native SOL arrives unwrapped, mixed with fee and rent movements in lamport balances.
    if (record.outputMint === NATIVE_SOL_MINT) return null;
    const { rpc, rpcProvider } = this.options;
    const tx = await rpcCall(rpcProvider, 'getTransaction', () =>
      rpc.getTransaction(record.txSignature!, { maxSupportedTransactionVersion: 0, commitment: 'confirmed' }),
    );
    return tx?.meta ? receivedAmount(tx.meta, record.owner, record.outputMint) : null;
  }
}

/** Post minus pre token balance of `owner` in `mint` across its accounts; null when it did not grow. */
export function receivedAmount(meta: SolanaTransactionMeta, owner: string, mint: string): string | null {
  const sum = (balances: SolanaTransactionMeta['preTokenBalances']): bigint =>
    (balances ?? []).filter((b) => b.owner === owner && b.mint === mint).reduce((total, b) => total + BigInt(b.uiTokenAmount.amount), 0n);
  const delta = sum(meta.postTokenBalances) - sum(meta.preTokenBalances);
  return delta > 0n ? String(delta) : null;
}
