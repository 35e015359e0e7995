import { erc20Abi, keccak256, parseEventLogs, type Address, type Hex, type TransactionReceipt } from 'viem';
import { isAppError } from '../../src/errors/app-error.js';
import type { ClockPort } from '../../src/ports/clock.port.js';
import { NATIVE_EVM_ADDRESS, type ExecuteRequest, type ExecutionFailureReason, type ExecutionResult } from '../../src/ports/venue.port.js';
import { pollUntilFinal, type ExecutionJournal, type FinalResult, type LiveExecutionRecord } from '../resilience/execution-journal.js';
import type { EvmChain } from './evm-chain.adapter.js';
import { isKnownTransactionError, parseEvmAddress, withEvmAccount } from './evm-support.js';

/** The transaction an aggregator's firm quote asks the taker to send. */
export interface PreparedEvmSwap {
  to: Address;
  data: Hex;
  value: bigint;
  gas?: bigint;
  gasPrice: bigint;
  /** Reported as the fill when the real amount cannot be read from the receipt (native output). */
  expectedOut: string;
}

export interface EvmExecutorOptions {
  chain: EvmChain;
  journal: ExecutionJournal;
  clock: Pick<ClockPort, 'now'>;
  confirmTimeoutMs: number;
  pollMs: number;
}

export type Refusal = { refused: { reason: ExecutionFailureReason; message: string } };

/**
 * Signs, journals, broadcasts and confirms EVM swap transactions once per client order id.
 * The hash is computed from the signed bytes and journaled before the first broadcast;
 * later calls re-check the receipt and re-send the same bytes (same nonce: it can be mined
 * at most once). Once the account's mined nonce passes ours without our receipt, another
 * transaction took the nonce and ours can never land.
 */
export class EvmExecutor {
  constructor(private readonly options: EvmExecutorOptions) {}

  async execute(request: ExecuteRequest, prepare: () => Promise<PreparedEvmSwap | Refusal>): Promise<ExecutionResult> {
    const { journal, chain, clock } = this.options;
    const existing = await journal.get(request.clientOrderId);
    if (existing) return this.resume(existing.record, this.options.confirmTimeoutMs);
    const prepared = await prepare();
    const base = { clientOrderId: request.clientOrderId, chain: request.chain, owner: request.signer.address, outputMint: request.outputMint };
    if ('refused' in prepared) {
      const result: FinalResult = { status: 'failed', ...prepared.refused, at: clock.now() };
      const { entry } = await journal.create({ ...base, expectedOut: '0', status: 'failed', result });
      return entry.record.result ?? this.resume(entry.record, this.options.confirmTimeoutMs);
    }
    const from = parseEvmAddress(request.signer.address, 'signer address');
    const nonce = await chain.pendingNonce(from);
    const gas = prepared.gas ?? (await chain.estimateGas({ account: from, to: prepared.to, data: prepared.data, value: prepared.value }));
    const serialized = await withEvmAccount(request.signer, (account) =>
      account.signTransaction({ type: 'legacy', chainId: chain.chainId, nonce, to: prepared.to, data: prepared.data, value: prepared.value, gas, gasPrice: prepared.gasPrice }),
    );
    const { created, entry } = await journal.create({ ...base, expectedOut: prepared.expectedOut, status: 'signed', txSignature: keccak256(serialized), rawTx: serialized, nonce });
    // Lost a race with a concurrent execute of the same order: ours is never sent.
    if (!created) return this.resume(entry.record, this.options.confirmTimeoutMs);
    return this.send(entry.record, this.options.confirmTimeoutMs);
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
    try {
      await this.options.chain.sendRaw(record.rawTx as Hex);
    } catch (error) {
      const at = this.options.clock.now();
      const txSignature = record.txSignature!;
      // "Already known" / "nonce too low": it is (or was) out there, so the receipt decides.
      if (!isAppError(error) || isKnownTransactionError(error.cause ?? error) || error.code === 'PROVIDER_UNAVAILABLE') return this.poll(record, waitMs);
      const reason = error.code === 'INSUFFICIENT_BALANCE' ? 'insufficient_balance' : 'rejected';
      return this.settle(record, { status: 'failed', reason, message: error.message, txSignature, at });
    }
    return this.poll(record, waitMs);
  }

  private poll(record: LiveExecutionRecord, waitMs: number): Promise<ExecutionResult> {
    return pollUntilFinal(record, (r) => this.settleFromChain(r), { waitMs, pollMs: this.options.pollMs, now: () => this.options.clock.now() });
  }


  private async settleFromChain(record: LiveExecutionRecord): Promise<FinalResult | null> {
    const { chain, clock } = this.options;
    const txSignature = record.txSignature!;
    // Nonce first: if it already passed ours, a missing receipt read afterwards means never.
    const minedNonce = await chain.minedNonce(parseEvmAddress(record.owner, 'owner'));
    const receipt = await chain.receipt(txSignature as Hex);
    if (receipt?.status === 'success') return this.settle(record, { status: 'filled', filledOut: received(receipt, record) ?? record.expectedOut, txSignature, at: clock.now() });
    if (receipt) return this.settle(record, { status: 'failed', reason: 'rejected', message: 'Swap transaction reverted on chain', txSignature, at: clock.now() });
    if (record.nonce !== undefined && minedNonce > record.nonce) {
      return this.settle(record, { status: 'failed', reason: 'expired', message: `Nonce ${record.nonce} was used by another transaction; this one can no longer land`, txSignature, at: clock.now() });
    }
    return null;
  }

  private async settle(record: LiveExecutionRecord, result: FinalResult): Promise<FinalResult> {
    return (await this.options.journal.settle(record.clientOrderId, result)) ?? result;
  }
}

/** ERC-20 `Transfer`s of the output token to the owner in the receipt, summed; null for native output. */
function received(receipt: TransactionReceipt, record: LiveExecutionRecord): string | null {
  if (record.outputMint.toLowerCase() === NATIVE_EVM_ADDRESS.toLowerCase()) return null;
  const transfers = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs }).filter(
    (log) => log.address.toLowerCase() === record.outputMint.toLowerCase() && log.args.to.toLowerCase() === record.owner.toLowerCase(),
  );
  const total = transfers.reduce((sum, log) => sum + log.args.value, 0n);
  return transfers.length ? String(total) : null;
}
