/**
 * Chain port: balances and transfers on one chain, below any venue. Venues use it for
 * balances and confirmations; withdrawals use `transfer`. Amounts are decimal strings in
 * base units (lamports, wei, token base units), as on the venue port.
 */
import type { CommitWrite } from './store.port.js';
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
   * Makes the transaction unique to the caller's request (e.g. a withdrawal id). On Solana two
   * equal transfers signed under one blockhash are one transaction (same signature): the second
   * would look "confirmed" while paying nothing. There it is added as a read-only account of
   * the transfer instruction (Solana Pay's `reference`); EVM nonces make every transaction unique anyway.
   */
  reference?: string;
  /**
   * Called with the signed transaction before it is broadcast, so the caller can persist it
   * first and, after a crash, look it up (and, when the chain never saw it, send the same
   * bytes again with `rebroadcast`) instead of signing a second one. When it throws, nothing
   * is broadcast.
   */
  beforeBroadcast?: (signed: SignedTransfer) => Promise<void>;
}

/** A signed transaction, as it is persisted before its broadcast. */
export interface SignedTransfer {
  /** Signature (Solana) or transaction hash (EVM): its id on chain. */
  txSignature: string;
  /** The signed bytes: base64 on Solana, 0x hex on EVM. Sending them again can never pay twice. */
  signedTx: string;
  /**
   * Solana: the last block height at which its blockhash is accepted. Past it, a transaction
   * the chain does not know can never land (EVM: its nonce decides that instead).
   */
  validUntilHeight?: number;
}

/** What sending signed bytes again found: `sent` (the node took them, or knew them), or `expired` (they can never land). */
export type RebroadcastOutcome = 'sent' | 'expired';

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
 * What a chain whose transfers are writes to a local ledger (the paper chains) offers beyond
 * `transfer`: the writes that apply a signed transfer, for the caller to commit together with
 * its own records (a withdrawal's final state) in one atomic commit. A crash then leaves both
 * or neither, so the signed bytes need no commit of their own before they are applied, and
 * of two callers only the one whose commit wins ever moves funds.
 */
export interface LedgerTransfers {
  /** Signs a transfer: no read, no write (the writes below check the balance). */
  sign(request: Omit<TransferRequest, 'beforeBroadcast'>): Promise<SignedTransfer>;
  /**
   * The writes that apply `signed` once: conditional on the versions read (the sender's may be
   * the read its balance check just made, as the ledger keeps it), so a commit after another
   * write moved them fails and is computed again from fresh reads. No effect; throws
   * INSUFFICIENT_BALANCE when the sender cannot pay.
   */
  writes(signed: SignedTransfer): Promise<CommitWrite[]>;
}

/**
 * One chain's balances and transfers. Adapters translate RPC failures into `AppError`:
 * `PROVIDER_UNAVAILABLE` when the node is unwell, `VALIDATION_ERROR` for a malformed
 * address, `INSUFFICIENT_BALANCE` when the wallet cannot pay.
 */
export interface ChainPort {
  readonly chain: Chain;
  /** Present where transfers are local ledger writes (paper): the caller commits them with its own records. */
  readonly ledger?: LedgerTransfers;

  /** Native balance (lamports / wei) of `address`. */
  nativeBalance(address: string): Promise<string>;
  /** Balance of `token` held by `address` ("0" when it holds none). */
  tokenBalance(address: string, token: string): Promise<string>;
  /** Signs with the signer's key and broadcasts; resolves once the network accepted it, not when confirmed. */
  transfer(request: TransferRequest): Promise<TransferResult>;
  /** Current status of a transaction this or another process broadcast (reconciliation looks it up by hash). */
  confirmation(txSignature: string): Promise<ConfirmationStatus>;
  /**
   * Sends a transaction signed earlier (`beforeBroadcast`) again, byte for byte: safe, since
   * one signed transaction lands at most once. `expired` when it can no longer land (its
   * blockhash expired, or its nonce was used by another transaction) and the chain does not
   * know it: then nothing moved, and nothing ever will under it.
   */
  rebroadcast(signed: SignedTransfer): Promise<RebroadcastOutcome>;
  /**
   * True when `address` is a program (an executable account on Solana): it can own no tokens,
   * so nothing is sent to it. EVM contracts can hold tokens (smart-contract wallets): false there.
   */
  isProgram(address: string): Promise<boolean>;
  /** A cheap call against the node (latest block height). Never throws. */
  health(): Promise<ChainHealth>;
}
