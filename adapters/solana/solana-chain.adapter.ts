import { createHash } from 'node:crypto';
import { PublicKey, SystemProgram, TransactionMessage, VersionedTransaction, type TransactionInstruction } from '@solana/web3.js';
import bs58 from 'bs58';
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
import { NATIVE_SOL_MINT } from '../../kernel/ports/venue.port.js';
import type { ProviderBreaker } from '../resilience/provider-breaker.js';
import { rpcCall, type SolanaRpc } from './solana-rpc.js';
import { classifySendError, parseBaseUnits, parsePublicKey, signWithWallet } from './solana-transactions.js';
import {
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  associatedTokenAddress,
  createAssociatedTokenAccountIdempotentInstruction,
  decodeMintDecimals,
  decodeTokenAccount,
  isTokenProgram,
  transferCheckedInstruction,
} from './spl-token.helpers.js';

export interface SolanaChainOptions {
  /** `connectionRpc(SOLANA_RPC_URL)` in production; a LiteSVM-backed implementation in tests. */
  rpc: SolanaRpc;
  /** When set, every RPC call goes through it (provider name e.g. `solana-rpc`). */
  breaker?: ProviderBreaker;
  /** Name in PROVIDER_UNAVAILABLE messages; default `solana-rpc`. */
  provider?: string;
}

/** A public key no one holds, derived from a caller's reference (Solana Pay: a read-only account that makes a transfer unique). */
function referenceKey(reference: string): PublicKey {
  return new PublicKey(createHash('sha256').update(`transfer-reference:${reference}`).digest());
}

/** Base fee of one signature: a native transfer must leave this much for the fee. */
const SIGNATURE_FEE_LAMPORTS = 5_000n;

/**
 * Solana balances and transfers over JSON-RPC. SPL transfers use `TransferChecked` from
 * the sender's associated token account and create the recipient's account if needed (the
 * sender pays its rent). Confirmation reads `getSignatureStatuses` with history search: a
 * transaction still `unknown` past its blockhash lifetime (about two minutes) never landed.
 */
export class SolanaChain implements ChainPort {
  readonly chain = 'solana' as const;
  private readonly provider: string;

  constructor(private readonly options: SolanaChainOptions) {
    this.provider = options.provider ?? 'solana-rpc';
  }

  async nativeBalance(address: string): Promise<string> {
    const owner = parsePublicKey(address, 'address');
    return String(await this.call('getBalance', () => this.options.rpc.getBalance(owner)));
  }

  async tokenBalance(address: string, token: string): Promise<string> {
    const owner = parsePublicKey(address, 'address');
    if (token === NATIVE_SOL_MINT) return this.nativeBalance(address);
    const mint = parsePublicKey(token, 'token');
    const { value } = await this.call('getTokenAccountsByOwner', () => this.options.rpc.getTokenAccountsByOwner(owner, { mint }));
    let total = 0n;
    for (const { account } of value) total += decodeTokenAccount(account.data)?.amount ?? 0n;
    return String(total);
  }

  /** Every token the address holds, by mint (classic and Token-2022 accounts summed); zero balances left out. */
  async tokenBalances(address: string): Promise<Record<string, string>> {
    const owner = parsePublicKey(address, 'address');
    const totals = new Map<string, bigint>();
    for (const programId of [TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID]) {
      const { value } = await this.call('getTokenAccountsByOwner', () => this.options.rpc.getTokenAccountsByOwner(owner, { programId }));
      for (const { account } of value) {
        const decoded = decodeTokenAccount(account.data);
        if (!decoded || decoded.amount === 0n) continue;
        const mint = decoded.mint.toBase58();
        totals.set(mint, (totals.get(mint) ?? 0n) + decoded.amount);
      }
    }
    return Object.fromEntries([...totals].map(([mint, amount]) => [mint, String(amount)]));
  }

  async transfer(request: TransferRequest): Promise<TransferResult> {
    const from = parsePublicKey(request.signer.address, 'signer address');
    const to = parsePublicKey(request.to, 'to');
    const amount = parseBaseUnits(request.amount);
    const instructions =
      request.token && request.token !== NATIVE_SOL_MINT
        ? await this.tokenTransfer(from, to, parsePublicKey(request.token, 'token'), amount)
        : await this.nativeTransfer(from, to, amount);
    if (request.reference !== undefined)
      instructions.at(-1)!.keys.push({ pubkey: referenceKey(request.reference), isSigner: false, isWritable: false });
    const { blockhash, lastValidBlockHeight } = await this.call('getLatestBlockhash', () => this.options.rpc.getLatestBlockhash());
    const tx = new VersionedTransaction(
      new TransactionMessage({ payerKey: from, recentBlockhash: blockhash, instructions }).compileToV0Message(),
    );
    const txSignature = await signWithWallet(request.signer, tx);
    await request.beforeBroadcast?.({
      txSignature,
      signedTx: Buffer.from(tx.serialize()).toString('base64'),
      validUntilHeight: lastValidBlockHeight,
    });
    await this.send(tx.serialize());
    return { txSignature };
  }

  /**
   * Sends signed bytes again, unless their blockhash expired (block height past
   * `validUntilHeight`) while the chain does not know the signature: then they can never land.
   * The height is read before the status, so a transaction that landed just before expiry is seen.
   */
  async rebroadcast(signed: SignedTransfer): Promise<RebroadcastOutcome> {
    let tx: VersionedTransaction;
    try {
      tx = VersionedTransaction.deserialize(Buffer.from(signed.signedTx, 'base64'));
    } catch {
      throw AppError.validation(['signed transaction is not a serialized Solana transaction']);
    }
    const signature = tx.signatures[0];
    if (!signature || bs58.encode(signature) !== signed.txSignature)
      throw AppError.validation(['signed transaction does not match its signature']);
    const height = await this.call('getBlockHeight', () => this.options.rpc.getBlockHeight());
    const status = await this.confirmation(signed.txSignature);
    if (status !== 'unknown') return 'sent';
    if (signed.validUntilHeight !== undefined && height > signed.validUntilHeight) return 'expired';
    try {
      await this.send(tx.serialize());
    } catch (error) {
      // Refused now (its blockhash just expired, or already processed): the status decides next time.
      if (isAppError(error) && error.code !== 'PROVIDER_UNAVAILABLE' && error.code !== 'CIRCUIT_BREAKER_OPEN') return 'sent';
      throw error;
    }
    return 'sent';
  }

  /** Broadcasts serialized bytes; a preflight refusal is a 400 (or INSUFFICIENT_BALANCE), outside the breaker's count. */
  private async send(raw: Uint8Array): Promise<void> {
    await this.call('sendRawTransaction', async () => {
      try {
        return await this.options.rpc.sendRawTransaction(raw);
      } catch (error) {
        const verdict = classifySendError(error);
        if (!verdict.final) throw error;
        if (verdict.failure.reason === 'insufficient_balance')
          throw new AppError('INSUFFICIENT_BALANCE', verdict.failure.message, { cause: error });
        throw AppError.validation([verdict.failure.message]);
      }
    });
  }

  async confirmation(txSignature: string): Promise<ConfirmationStatus> {
    const { value } = await this.call('getSignatureStatuses', () =>
      this.options.rpc.getSignatureStatuses([txSignature], { searchTransactionHistory: true }),
    );
    const status = value[0];
    if (!status) return 'unknown';
    if (status.err) return 'failed';
    return status.confirmationStatus === 'confirmed' || status.confirmationStatus === 'finalized' ? 'confirmed' : 'pending';
  }

  /** An executable account is a program: it signs for nothing, so tokens sent to it (or its token accounts) are lost. */
  async isProgram(address: string): Promise<boolean> {
    const account = await this.call('getAccountInfo', () => this.options.rpc.getAccountInfo(parsePublicKey(address, 'to')));
    return account?.executable === true;
  }

  async health(): Promise<ChainHealth> {
    const started = Date.now();
    try {
      const blockHeight = await this.call('getBlockHeight', () => this.options.rpc.getBlockHeight());
      return { chain: this.chain, reachable: true, blockHeight, latencyMs: Date.now() - started };
    } catch (error) {
      return { chain: this.chain, reachable: false, error: error instanceof Error ? error.message : String(error) };
    }
  }

  private async nativeTransfer(from: PublicKey, to: PublicKey, lamports: bigint): Promise<TransactionInstruction[]> {
    const balance = BigInt(await this.call('getBalance', () => this.options.rpc.getBalance(from)));
    if (balance < lamports + SIGNATURE_FEE_LAMPORTS)
      throw new AppError('INSUFFICIENT_BALANCE', `Insufficient SOL balance: ${balance} lamports, ${lamports} plus fees needed`);
    return [SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports })];
  }

  private async tokenTransfer(from: PublicKey, to: PublicKey, mint: PublicKey, amount: bigint): Promise<TransactionInstruction[]> {
    const mintAccount = await this.call('getAccountInfo', () => this.options.rpc.getAccountInfo(mint));
    const decimals = mintAccount && isTokenProgram(mintAccount.owner) ? decodeMintDecimals(mintAccount.data) : null;
    if (!mintAccount || decimals === null) throw new AppError('TOKEN_NOT_FOUND', `Token not found: ${mint.toBase58()}`);
    const tokenProgram = mintAccount.owner;
    const source = associatedTokenAddress(from, mint, tokenProgram);
    const held = BigInt(await this.tokenBalanceOf(source));
    if (held < amount) throw new AppError('INSUFFICIENT_BALANCE', `Insufficient token balance: ${held} held, ${amount} needed`);
    return [
      createAssociatedTokenAccountIdempotentInstruction({ payer: from, owner: to, mint, tokenProgram }),
      transferCheckedInstruction({
        source,
        mint,
        destination: associatedTokenAddress(to, mint, tokenProgram),
        owner: from,
        amount,
        decimals,
        tokenProgram,
      }),
    ];
  }

  private async tokenBalanceOf(tokenAccount: PublicKey): Promise<bigint> {
    const account = await this.call('getAccountInfo', () => this.options.rpc.getAccountInfo(tokenAccount));
    return account ? (decodeTokenAccount(account.data)?.amount ?? 0n) : 0n;
  }

  /** One RPC call, under the breaker when there is one. */
  private call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    const guarded = (): Promise<T> => rpcCall(this.provider, what, fn);
    return this.options.breaker ? this.options.breaker.execute(guarded) : guarded();
  }
}
