import {
  Connection,
  type AccountInfo,
  type GetVersionedTransactionConfig,
  type PublicKey,
  type SendOptions,
  type SignatureStatus,
  type SignatureStatusConfig,
  type TokenBalance,
  type TransactionError,
} from '@solana/web3.js';
import { isAppError } from '../../kernel/errors/app-error.js';
import { providerUnavailable } from '../resilience/provider-breaker.js';

/**
 * The few JSON-RPC calls the Solana adapters make, as a seam: web3.js's `Connection`
 * satisfies it as is, and tests pass an in-process LiteSVM behind the same shape.
 * Return types are narrowed to the fields the adapters read.
 */
export interface SolanaRpc {
  /** Lamports. */
  getBalance(address: PublicKey): Promise<number>;
  getAccountInfo(address: PublicKey): Promise<AccountInfo<Buffer> | null>;
  getTokenAccountsByOwner(
    owner: PublicKey,
    filter: { mint: PublicKey } | { programId: PublicKey },
  ): Promise<{ value: ReadonlyArray<{ pubkey: PublicKey; account: AccountInfo<Buffer> }> }>;
  getLatestBlockhash(): Promise<{ blockhash: string; lastValidBlockHeight: number }>;
  getBlockHeight(): Promise<number>;
  /** Resolves with the signature once the node accepted the transaction (after preflight unless skipped). */
  sendRawTransaction(raw: Uint8Array, options?: SendOptions): Promise<string>;
  getSignatureStatuses(signatures: string[], config?: SignatureStatusConfig): Promise<{ value: Array<SignatureStatus | null> }>;
  getTransaction(signature: string, config: GetVersionedTransactionConfig): Promise<{ meta: SolanaTransactionMeta | null } | null>;
}

/** The part of a transaction's metadata the venue reads to learn what was really received. */
export interface SolanaTransactionMeta {
  err: TransactionError | null;
  preTokenBalances?: TokenBalance[] | null;
  postTokenBalances?: TokenBalance[] | null;
}

/** A `Connection` on `url` with `confirmed` commitment: what every read here needs. */
export function connectionRpc(url: string, options: { fetch?: typeof fetch } = {}): SolanaRpc {
  return new Connection(url, { commitment: 'confirmed', ...(options.fetch ? { fetch: options.fetch } : {}) });
}

/** Runs one RPC call; a library error (network, JSON-RPC) becomes PROVIDER_UNAVAILABLE naming the call. */
export async function rpcCall<T>(provider: string, what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (isAppError(error)) throw error;
    throw providerUnavailable(provider, `${what} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
