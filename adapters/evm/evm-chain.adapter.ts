import {
  createPublicClient,
  encodeFunctionData,
  erc20Abi,
  http,
  keccak256,
  TransactionReceiptNotFoundError,
  TransactionNotFoundError,
  type Address,
  type Hex,
  type PublicClient,
  type Transport,
} from 'viem';
import { AppError, isAppError } from '../../kernel/errors/app-error.js';
import type {
  ChainHealth,
  ChainPort,
  ConfirmationStatus,
  RebroadcastOutcome,
  SignedTransfer,
  TransferRequest,
  TransferResult,
} from '../../kernel/ports/chain.port.js';
import { EVM_CHAIN_IDS, NATIVE_EVM_ADDRESS } from '../../kernel/ports/venue.port.js';
import type { ProviderBreaker } from '../resilience/provider-breaker.js';
import { evmCall, isKnownTransactionError, isNonceTooLowError, parseEvmAddress, withEvmAccount, type EvmChainName } from './evm-support.js';

export interface EvmChainOptions {
  chain: EvmChainName;
  /** `http(EVM_CHAIN_RPC_URLS[chain])` in production (see `evmRpcTransport`); an in-process EVM in tests. */
  transport: Transport;
  /** When set, every RPC call goes through it (provider name e.g. `base-rpc`). */
  breaker?: ProviderBreaker;
  /** Name in PROVIDER_UNAVAILABLE messages; default `<chain>-rpc`. */
  provider?: string;
}

/** viem's HTTP transport without its own retries: the breaker decides about retrying. */
export function evmRpcTransport(url: string, options: { timeoutMs?: number } = {}): Transport {
  return http(url, { retryCount: 0, ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}) });
}

/** One token's metadata read from its contract. */
export interface Erc20Metadata {
  symbol: string;
  name: string;
  decimals: number;
}

/**
 * Balances and transfers on one EVM chain over JSON-RPC (viem). Transactions are signed
 * locally with the wallet's key and sent raw; the hash is computed from the signed bytes
 * so it can be persisted before the broadcast. ERC-20 transfers call `transfer(to, amount)`.
 */
export class EvmChain implements ChainPort {
  readonly chain: EvmChainName;
  readonly chainId: number;
  /** For venues on this chain: reads, receipts, raw broadcasts. */
  readonly client: PublicClient;
  private readonly provider: string;
  /** Per sender: nonce read → sign → persist → broadcast runs one at a time, so two transfers never take one nonce. */
  private readonly senders = new Map<string, Promise<unknown>>();

  constructor(private readonly options: EvmChainOptions) {
    this.chain = options.chain;
    this.chainId = EVM_CHAIN_IDS[options.chain];
    this.provider = options.provider ?? `${options.chain}-rpc`;
    this.client = createPublicClient({ transport: options.transport });
  }

  async nativeBalance(address: string): Promise<string> {
    const owner = parseEvmAddress(address, 'address');
    return String(await this.call('getBalance', () => this.client.getBalance({ address: owner })));
  }

  async tokenBalance(address: string, token: string): Promise<string> {
    if (token.toLowerCase() === NATIVE_EVM_ADDRESS.toLowerCase()) return this.nativeBalance(address);
    const owner = parseEvmAddress(address, 'address');
    const contract = parseEvmAddress(token, 'token');
    return String(
      await this.call('balanceOf', () =>
        this.client.readContract({ address: contract, abi: erc20Abi, functionName: 'balanceOf', args: [owner] }),
      ),
    );
  }

  /** `symbol()`, `name()` and `decimals()` of a contract; null when it does not answer them (not an ERC-20). */
  async readErc20(token: string): Promise<Erc20Metadata | null> {
    const address = parseEvmAddress(token, 'token');
    const code = await this.call('getCode', () => this.client.getCode({ address }));
    if (!code || code === '0x') return null;
    try {
      const [symbol, name, decimals] = await Promise.all([
        this.client.readContract({ address, abi: erc20Abi, functionName: 'symbol' }),
        this.client.readContract({ address, abi: erc20Abi, functionName: 'name' }),
        this.client.readContract({ address, abi: erc20Abi, functionName: 'decimals' }),
      ]);
      return { symbol, name, decimals };
    } catch {
      // A contract without the metadata functions is not a token we can trade.
      return null;
    }
  }

  /**
   * Native or ERC-20 transfer, EIP-1559 fees. The balance check counts the fee the
   * transaction may cost at most (gas × max fee per gas) on the native coin. The nonce is
   * the sender's pending count, read under a per-sender queue of this process: a second
   * transfer waits until the first one's bytes reached the node. (Another process sending
   * from the same wallet at the same moment would sign the same nonce: the node takes one,
   * the other is refused as "nonce too low" and `rebroadcast` reports it `expired`.)
   */
  async transfer(request: TransferRequest): Promise<TransferResult> {
    const from = parseEvmAddress(request.signer.address, 'signer address');
    const to = parseEvmAddress(request.to, 'to');
    if (!/^\d+$/.test(request.amount)) throw AppError.validation(['amount must be a non-negative integer in base units']);
    const amount = BigInt(request.amount);
    const native = !request.token || request.token.toLowerCase() === NATIVE_EVM_ADDRESS.toLowerCase();
    const call = native
      ? { to, value: amount }
      : {
          to: parseEvmAddress(request.token!, 'token'),
          data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }),
        };
    return this.serialized(from, async () => {
      const held = BigInt(native ? await this.nativeBalance(from) : await this.tokenBalance(from, request.token!));
      if (held < amount) throw new AppError('INSUFFICIENT_BALANCE', `Insufficient balance: ${held} held, ${amount} needed`);
      const nonce = await this.pendingNonce(from);
      const gas = await this.estimateGas({ account: from, ...call });
      const fees = await this.call('estimateFeesPerGas', () => this.client.estimateFeesPerGas());
      const maxFee = gas * fees.maxFeePerGas;
      const coin = native ? held : BigInt(await this.nativeBalance(from));
      if (coin < (native ? amount : 0n) + maxFee) {
        throw new AppError(
          'INSUFFICIENT_BALANCE',
          `Insufficient balance: ${coin} wei held, ${native ? amount : 0n} plus up to ${maxFee} wei of fees needed`,
        );
      }
      const serialized = await withEvmAccount(request.signer, (account) =>
        account.signTransaction({
          type: 'eip1559',
          chainId: this.chainId,
          nonce,
          gas,
          maxFeePerGas: fees.maxFeePerGas,
          maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
          ...call,
        }),
      );
      const txSignature = keccak256(serialized);
      await request.beforeBroadcast?.({ txSignature, signedTx: serialized });
      await this.sendRaw(serialized);
      return { txSignature };
    });
  }

  /**
   * Sends signed bytes again. A node that knows them answers "already known"; "nonce too
   * low" while the chain does not know this hash means another transaction took its nonce,
   * so it can never be mined: `expired`.
   */
  async rebroadcast(signed: SignedTransfer): Promise<RebroadcastOutcome> {
    const serialized = signed.signedTx as Hex;
    if (keccak256(serialized) !== signed.txSignature) throw AppError.validation(['signed transaction does not match its hash']);
    try {
      await this.sendRaw(serialized);
      return 'sent';
    } catch (error) {
      if (!isAppError(error) || !isKnownTransactionError(error.cause ?? error)) throw error;
      if ((await this.confirmation(signed.txSignature)) !== 'unknown') return 'sent';
      return isNonceTooLowError(error.cause ?? error) ? 'expired' : 'sent';
    }
  }

  /** Runs `task` after the sender's earlier tasks of this process. */
  private serialized<T>(sender: string, task: () => Promise<T>): Promise<T> {
    const key = sender.toLowerCase();
    const previous = this.senders.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.senders.set(key, tail);
    void tail.then(() => {
      if (this.senders.get(key) === tail) this.senders.delete(key);
    });
    return result;
  }

  /** Broadcasts signed bytes; resolves with their hash. */
  sendRaw(serialized: Hex): Promise<Hex> {
    return this.call('sendRawTransaction', () => this.client.sendRawTransaction({ serializedTransaction: serialized }));
  }

  async confirmation(txSignature: string): Promise<ConfirmationStatus> {
    const hash = txSignature as Hex;
    const receipt = await this.receipt(hash);
    if (receipt) return receipt.status === 'success' ? 'confirmed' : 'failed';
    const pending = await this.call('getTransaction', async () => {
      try {
        return await this.client.getTransaction({ hash });
      } catch (error) {
        if (error instanceof TransactionNotFoundError) return null;
        throw error;
      }
    });
    return pending ? 'pending' : 'unknown';
  }

  /** The receipt of a mined transaction, or null while it is not mined. */
  receipt(hash: Hex) {
    return this.call('getTransactionReceipt', async () => {
      try {
        return await this.client.getTransactionReceipt({ hash });
      } catch (error) {
        if (error instanceof TransactionReceiptNotFoundError) return null;
        throw error;
      }
    });
  }

  /** The address's next nonce, counting its transactions still in the mempool. */
  pendingNonce(address: Address): Promise<number> {
    return this.call('getTransactionCount', () => this.client.getTransactionCount({ address, blockTag: 'pending' }));
  }

  estimateGas(request: { account: Address; to: Address; data?: Hex; value?: bigint }): Promise<bigint> {
    return this.call('estimateGas', () => this.client.estimateGas(request));
  }

  /** Transactions the address has had mined (its next nonce at `latest`). */
  minedNonce(address: Address): Promise<number> {
    return this.call('getTransactionCount', () => this.client.getTransactionCount({ address, blockTag: 'latest' }));
  }

  /** Contracts hold tokens too (smart-contract wallets, multisigs): no EVM recipient is refused for being code. */
  async isProgram(): Promise<boolean> {
    return false;
  }

  async health(): Promise<ChainHealth> {
    const started = Date.now();
    try {
      const blockHeight = Number(await this.call('getBlockNumber', () => this.client.getBlockNumber({ cacheTime: 0 })));
      return { chain: this.chain, reachable: true, blockHeight, latencyMs: Date.now() - started };
    } catch (error) {
      return { chain: this.chain, reachable: false, error: error instanceof Error ? error.message : String(error) };
    }
  }

  private call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    const guarded = (): Promise<T> => evmCall(this.provider, what, fn);
    return this.options.breaker ? this.options.breaker.execute(guarded) : guarded();
  }
}
