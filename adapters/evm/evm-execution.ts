import { erc20Abi, keccak256, parseEventLogs, type Address, type Hex, type TransactionReceipt } from 'viem';
import { isAppError } from '../../kernel/errors/app-error.js';
import { NATIVE_EVM_ADDRESS, type ExecuteRequest } from '../../kernel/ports/venue.port.js';
import type { FinalResult, LiveExecutionRecord } from '../resilience/execution-journal.js';
import { JournaledExecutor, type JournaledExecutorOptions, type SignedTransaction } from '../resilience/journaled-executor.js';
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

export interface EvmExecutorOptions extends JournaledExecutorOptions {
  chain: EvmChain;
}

/**
 * Signs, broadcasts and confirms EVM swap transactions once per client order id
 * (JournaledExecutor). The hash is computed from the signed bytes; a re-send uses the same
 * bytes (same nonce: it can be mined at most once). Once the account's mined nonce passes
 * ours without our receipt, another transaction took the nonce and ours can never land.
 */
export class EvmExecutor extends JournaledExecutor<PreparedEvmSwap, EvmExecutorOptions> {
  protected async sign(request: ExecuteRequest, prepared: PreparedEvmSwap): Promise<SignedTransaction> {
    const { chain } = this.options;
    const from = parseEvmAddress(request.signer.address, 'signer address');
    const nonce = await chain.pendingNonce(from);
    const gas = prepared.gas ?? (await chain.estimateGas({ account: from, to: prepared.to, data: prepared.data, value: prepared.value }));
    const serialized = await withEvmAccount(request.signer, (account) =>
      account.signTransaction({
        type: 'legacy',
        chainId: chain.chainId,
        nonce,
        to: prepared.to,
        data: prepared.data,
        value: prepared.value,
        gas,
        gasPrice: prepared.gasPrice,
      }),
    );
    return { txSignature: keccak256(serialized), rawTx: serialized, nonce };
  }

  protected async broadcast(record: LiveExecutionRecord): Promise<FinalResult | null> {
    try {
      await this.options.chain.sendRaw(record.rawTx as Hex);
      return null;
    } catch (error) {
      // "Already known" / "nonce too low": it is (or was) out there, so the receipt decides.
      if (!isAppError(error) || isKnownTransactionError(error.cause ?? error) || error.code === 'PROVIDER_UNAVAILABLE') return null;
      const reason = error.code === 'INSUFFICIENT_BALANCE' ? 'insufficient_balance' : 'rejected';
      return { status: 'failed', reason, message: error.message, txSignature: record.txSignature!, at: this.options.clock.now() };
    }
  }

  protected async read(record: LiveExecutionRecord): Promise<FinalResult | null> {
    const { chain, clock } = this.options;
    const txSignature = record.txSignature!;
    // Nonce first: if it already passed ours, a missing receipt read afterwards means never.
    const minedNonce = await chain.minedNonce(parseEvmAddress(record.owner, 'owner'));
    const receipt = await chain.receipt(txSignature as Hex);
    if (receipt?.status === 'success')
      return { status: 'filled', filledOut: received(receipt, record) ?? record.expectedOut, txSignature, at: clock.now() };
    if (receipt)
      return { status: 'failed', reason: 'rejected', message: 'Swap transaction reverted on chain', txSignature, at: clock.now() };
    if (record.nonce !== undefined && minedNonce > record.nonce) {
      return {
        status: 'failed',
        reason: 'expired',
        message: `Nonce ${record.nonce} was used by another transaction; this one can no longer land`,
        txSignature,
        at: clock.now(),
      };
    }
    return null;
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
