/**
 * Chain port: balances and transfers on one chain, below any venue. Venues use it for
 * balances and confirmations; withdrawals use `transfer`. Amounts are decimal strings in
 * base units (lamports, wei, token base units), as on the venue port.
 */
import type { Chain, WalletSigner } from './venue.port.js';

/** Where a broadcast transaction stands. */
export type ConfirmationStatus =
  /** Seen by the network, not yet confirmed (or not yet seen, but may still land). */
  | 'pending'
  /** Included and succeeded. */
  | 'confirmed'
  /** Included and failed (reverted / program error): its effects did not happen, fees were paid. */
  | 'failed'
  /** The chain does not know it: never broadcast, dropped, or pruned from history. */
  | 'unknown';

export interface TransferRequest {
  /** The wallet that pays; its family must match the chain's. */
  signer: WalletSigner;
  /** Recipient address (base58 on Solana, 0x on EVM). */
  to: string;
  /** Token mint / contract address; absent for the native coin. */
  token?: string;
  /** Base units of `token` (or of the native coin). */
  amount: string;
  /**
   * Called with the signature of the signed transaction before it is broadcast, so the
   * caller can persist it first and, after a crash, look it up instead of sending again.
   * When it throws, nothing is broadcast.
   */
  beforeBroadcast?: (txSignature: string) => Promise<void>;
}

export interface TransferResult {
  /** Signature (Solana) or transaction hash (EVM) of the broadcast transaction. */
  txSignature: string;
}

export interface ChainHealth {
  chain: Chain;
  reachable: boolean;
  /** Latest block height (Solana) or block number (EVM) when reachable. */
  blockHeight?: number;
  latencyMs?: number;
  error?: string;
}

/**
 * One chain's balances and transfers. Adapters translate RPC failures into `AppError`:
 * `PROVIDER_UNAVAILABLE` when the node is unwell, `VALIDATION_ERROR` for a malformed
 * address, `INSUFFICIENT_BALANCE` when the wallet cannot pay.
 */
export interface ChainPort {
  readonly chain: Chain;

  /** Native balance (lamports / wei) of `address`. */
  nativeBalance(address: string): Promise<string>;
  /** Balance of `token` held by `address` ("0" when it holds none). */
  tokenBalance(address: string, token: string): Promise<string>;
  /** Signs with the signer's key and broadcasts; resolves once the network accepted it, not when confirmed. */
  transfer(request: TransferRequest): Promise<TransferResult>;
  /** Current status of a transaction this or another process broadcast. */
  confirmation(txSignature: string): Promise<ConfirmationStatus>;
  /** A cheap call against the node (latest block height). Never throws. */
  health(): Promise<ChainHealth>;
}
