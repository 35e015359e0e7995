import {
  PublicKey,
  SendTransactionError,
  VersionedTransaction,
  type AccountInfo,
  type SendOptions,
  type SignatureStatus,
  type TokenBalance,
  type TransactionError,
} from '@solana/web3.js';
import bs58 from 'bs58';
// The binding's own classes: byte-level (no @solana/kit types), so web3.js v1 bytes go straight in.
import { Account, FailedTransactionMetadata, LiteSvm } from 'litesvm/dist/internal.js';
import type { SolanaRpc, SolanaTransactionMeta } from '../../../../adapters/solana/solana-rpc.js';
import {
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  decodeMintDecimals,
  decodeTokenAccount,
  isTokenProgram,
} from '../../../../adapters/solana/spl-token.helpers.js';

/** Slots a blockhash stays valid, as on mainnet. */
const BLOCKHASH_LIFETIME = 150;
const FIELDLESS: Record<number, { name: string; message: string }> = {
  2: { name: 'AccountNotFound', message: 'Attempt to debit an account but found no record of a prior credit.' },
  4: { name: 'InsufficientFundsForFee', message: 'Insufficient funds for fee' },
  6: { name: 'AlreadyProcessed', message: 'This transaction has already been processed' },
  7: { name: 'BlockhashNotFound', message: 'Blockhash not found' },
};

/**
 * The Solana adapters' RPC seam over an in-process LiteSVM, answering in the shapes and
 * error messages a real JSON-RPC node uses (preflight failures as `SendTransactionError`
 * with the node's text, token balances in transaction meta).
 * litesvm 1.4.1, not 0.8: 0.8 aborts the process (`std::bad_alloc`) when an instance that
 * ran the associated-token-account program is freed, as vitest's fork workers do at exit;
 * 1.5.0 names platform binaries it never published, which breaks `npm ci`.
 */
export class LiteSvmRpc implements SolanaRpc {
  readonly svm: LiteSvm;
  /** Transactions that reached the ledger (landed, successfully or not). */
  landed: string[] = [];
  /** Broadcasts to accept and then lose, as a node that drops a transaction. */
  dropNextSends = 0;
  /** Broadcasts to fail with a transport error before reaching the node. */
  failNextSends = 0;
  /** A node that forwards without simulating: failing transactions land as failed. */
  skipPreflightAlways = false;
  private readonly expiry = new Map<string, number>();
  private readonly metas = new Map<string, { slot: number; meta: SolanaTransactionMeta }>();

  constructor(svm: LiteSvm = new LiteSvm()) {
    this.svm = svm;
  }

  airdrop(address: PublicKey, lamports: bigint): void {
    this.svm.airdrop(address.toBytes(), lamports);
  }

  setAccount(address: PublicKey, account: { data: Uint8Array; lamports: bigint; owner: PublicKey; executable?: boolean }): void {
    this.svm.setAccount(
      address.toBytes(),
      new Account(account.lamports, account.data, account.owner.toBytes(), account.executable ?? false, 0n),
    );
  }

  minimumBalanceForRentExemption(size: number): bigint {
    return this.svm.minimumBalanceForRentExemption(BigInt(size));
  }

  /** Moves the chain forward; blockhashes older than their lifetime stop being accepted. */
  warpSlots(slots: number): void {
    this.svm.warpToSlot(this.svm.getClock().slot + BigInt(slots));
  }

  async getBalance(address: PublicKey): Promise<number> {
    return Number(this.svm.getBalance(address.toBytes()) ?? 0n);
  }

  async getAccountInfo(address: PublicKey): Promise<AccountInfo<Buffer> | null> {
    const account = this.svm.getAccount(address.toBytes());
    return account ? toAccountInfo(account) : null;
  }

  async getTokenAccountsByOwner(owner: PublicKey, filter: { mint: PublicKey } | { programId: PublicKey }) {
    const value: Array<{ pubkey: PublicKey; account: AccountInfo<Buffer> }> = [];
    for (const programId of [TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID]) {
      if ('programId' in filter && !filter.programId.equals(programId)) continue;
      for (const entry of this.svm.getProgramAccounts(programId.toBytes())) {
        const decoded = decodeTokenAccount(entry.account().data());
        if (!decoded?.owner.equals(owner) || ('mint' in filter && !decoded.mint.equals(filter.mint))) continue;
        value.push({ pubkey: new PublicKey(entry.address), account: toAccountInfo(entry.account()) });
      }
    }
    return { value };
  }

  async getLatestBlockhash(): Promise<{ blockhash: string; lastValidBlockHeight: number }> {
    const blockhash = this.svm.latestBlockhash();
    const lastValidBlockHeight = (await this.getBlockHeight()) + BLOCKHASH_LIFETIME;
    if (!this.expiry.has(blockhash)) this.expiry.set(blockhash, lastValidBlockHeight);
    return { blockhash, lastValidBlockHeight: this.expiry.get(blockhash)! };
  }

  async getBlockHeight(): Promise<number> {
    return Number(this.svm.getClock().slot);
  }

  async sendRawTransaction(raw: Uint8Array, options: SendOptions = {}): Promise<string> {
    if (this.failNextSends > 0) {
      this.failNextSends--;
      throw new TypeError('fetch failed');
    }
    const tx = VersionedTransaction.deserialize(raw);
    const signature = bs58.encode(tx.signatures[0]!);
    const skipPreflight = options.skipPreflight || this.skipPreflightAlways;
    const action = skipPreflight ? 'send' : 'simulate';
    const refuse = (message: string, logs?: string[]): never => {
      throw new SendTransactionError({
        action,
        signature,
        transactionMessage: `Transaction simulation failed: ${message}`,
        ...(logs ? { logs } : {}),
      });
    };
    const validUntil = this.expiry.get(tx.message.recentBlockhash);
    if (validUntil === undefined || (await this.getBlockHeight()) > validUntil) refuse(FIELDLESS[7]!.message);
    if (this.metas.has(signature)) refuse(FIELDLESS[6]!.message);
    if (!skipPreflight) {
      const simulated = this.svm.simulateVersionedTransaction(raw);
      if (simulated instanceof FailedTransactionMetadata) refuse(toRpcError(simulated).message, simulated.meta().logs());
    }
    if (this.dropNextSends > 0) {
      this.dropNextSends--;
      return signature;
    }
    const pre = this.tokenBalances(tx);
    const result = this.svm.sendVersionedTransaction(raw);
    const err = result instanceof FailedTransactionMetadata ? toRpcError(result).err : null;
    this.metas.set(signature, {
      slot: await this.getBlockHeight(),
      meta: { err, preTokenBalances: pre, postTokenBalances: this.tokenBalances(tx) },
    });
    this.landed.push(signature);
    return signature;
  }

  async getSignatureStatuses(signatures: string[]): Promise<{ value: Array<SignatureStatus | null> }> {
    return {
      value: signatures.map((signature) => {
        const landed = this.metas.get(signature);
        return landed ? { slot: landed.slot, confirmations: null, err: landed.meta.err, confirmationStatus: 'confirmed' } : null;
      }),
    };
  }

  async getTransaction(signature: string): Promise<{ meta: SolanaTransactionMeta } | null> {
    const landed = this.metas.get(signature);
    return landed ? { meta: landed.meta } : null;
  }

  /** Token balances of the transaction's token accounts, as the RPC reports them in transaction meta. */
  private tokenBalances(tx: VersionedTransaction): TokenBalance[] {
    const balances: TokenBalance[] = [];
    tx.message.staticAccountKeys.forEach((key, accountIndex) => {
      const account = this.svm.getAccount(key.toBytes());
      const program = account && new PublicKey(account.owner());
      if (!account || !program || !isTokenProgram(program)) return;
      const decoded = decodeTokenAccount(account.data());
      if (!decoded) return;
      const mintData = this.svm.getAccount(decoded.mint.toBytes())?.data();
      const decimals = (mintData && decodeMintDecimals(mintData)) ?? 0;
      const amount = String(decoded.amount);
      balances.push({
        accountIndex,
        mint: decoded.mint.toBase58(),
        owner: decoded.owner.toBase58(),
        programId: program.toBase58(),
        uiTokenAmount: { amount, decimals, uiAmount: null, uiAmountString: amount },
      });
    });
    return balances;
  }
}

function toAccountInfo(account: Account): AccountInfo<Buffer> {
  return {
    data: Buffer.from(account.data()),
    executable: account.executable(),
    lamports: Number(account.lamports()),
    owner: new PublicKey(account.owner()),
    rentEpoch: Number(account.rentEpoch()),
  };
}

/** LiteSVM's error objects in the RPC's JSON form, with the text the node puts in preflight errors. */
function toRpcError(failed: FailedTransactionMetadata): { err: TransactionError; message: string } {
  const error = failed.err() as unknown;
  if (typeof error === 'number') {
    const known = FIELDLESS[error];
    return { err: known?.name ?? `TransactionError${error}`, message: known?.message ?? `transaction error ${error}` };
  }
  const shaped = error as { index?: number; accountIndex?: number; err?: () => unknown };
  if (typeof shaped.index === 'number' && typeof shaped.err === 'function') {
    const inner = shaped.err() as { code?: number } | number;
    if (typeof inner === 'object' && typeof inner.code === 'number') {
      return {
        err: { InstructionError: [shaped.index, { Custom: inner.code }] },
        message: `Error processing Instruction ${shaped.index}: custom program error: 0x${inner.code.toString(16)}`,
      };
    }
    return {
      err: { InstructionError: [shaped.index, String(inner)] },
      message: `Error processing Instruction ${shaped.index}: ${String(inner)}`,
    };
  }
  if (typeof shaped.accountIndex === 'number') {
    return {
      err: { InsufficientFundsForRent: { account_index: shaped.accountIndex } },
      message: `Transaction results in an account (${shaped.accountIndex}) with insufficient funds for rent`,
    };
  }
  return { err: String(error), message: String(error) };
}
