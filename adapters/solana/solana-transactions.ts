import { Keypair, PublicKey, SendTransactionError, type TransactionError, type VersionedTransaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { AppError } from '../../kernel/errors/app-error.js';
import type { ExecutionFailureReason, WalletSigner } from '../../kernel/ports/venue.port.js';

/** Jupiter's program error 6001 (0x1771): `SlippageToleranceExceeded`. */
const JUPITER_SLIPPAGE_ERROR = 6001;

/** A base58 public key, or a 400 naming the field. */
export function parsePublicKey(value: string, field: string): PublicKey {
  try {
    return new PublicKey(value);
  } catch {
    throw AppError.validation([`${field} is not a valid Solana address`]);
  }
}

/** A non-negative integer amount in base units, or a 400. */
export function parseBaseUnits(value: string, field = 'amount'): bigint {
  if (!/^\d+$/.test(value)) throw AppError.validation([`${field} must be a non-negative integer in base units`]);
  return BigInt(value);
}

/**
 * Signs `tx` with the signer's key (64-byte secret key, or its 32-byte seed) and returns
 * the transaction's signature, which is also its id on chain. The key exists only inside
 * `withSecretKey`; a key that does not match the wallet's address is refused.
 */
export async function signWithWallet(signer: WalletSigner, tx: VersionedTransaction): Promise<string> {
  if (signer.chain !== 'solana') throw AppError.validation(['wallet is not a Solana wallet']);
  await signer.withSecretKey(async (secretKey) => {
    const keypair = secretKey.length === 32 ? Keypair.fromSeed(secretKey) : Keypair.fromSecretKey(secretKey);
    if (keypair.publicKey.toBase58() !== signer.address)
      throw AppError.internal(`wallet ${signer.walletId}: key does not match its address`);
    tx.sign([keypair]);
  });
  const signature = tx.signatures[0];
  if (!signature) throw AppError.internal('signed transaction has no signature');
  return bs58.encode(signature);
}

export interface FailureInfo {
  reason: ExecutionFailureReason;
  message: string;
}

/** Reads a landed transaction's error (the RPC's JSON form) as a venue failure reason. */
export function failureFromTransactionError(err: TransactionError): FailureInfo {
  const text = JSON.stringify(err);
  if (typeof err === 'object' && err !== null && 'InstructionError' in err) {
    const [index, detail] = (err as { InstructionError: [number, unknown] }).InstructionError;
    if (typeof detail === 'object' && detail !== null && (detail as { Custom?: unknown }).Custom === JUPITER_SLIPPAGE_ERROR) {
      return { reason: 'slippage', message: `Slippage tolerance exceeded (instruction ${index})` };
    }
  }
  if (/InsufficientFunds/.test(text)) return { reason: 'insufficient_balance', message: `Insufficient funds: ${text}` };
  return { reason: 'rejected', message: `Transaction failed on chain: ${text}` };
}

/**
 * What a refused broadcast means. Preflight (simulation) failures are final for this
 * signed transaction: the node did not forward it, and the venue never re-sends it. A
 * missing blockhash or an "already processed" answer is not a failure of the trade: the
 * status check that follows decides.
 */
export function classifySendError(error: unknown): { final: true; failure: FailureInfo } | { final: false } {
  if (!(error instanceof SendTransactionError)) return { final: false };
  const message = error.transactionError.message;
  if (/blockhash not found|already been processed|AlreadyProcessed/i.test(message)) return { final: false };
  if (new RegExp(`custom program error: 0x${JUPITER_SLIPPAGE_ERROR.toString(16)}\\b`, 'i').test(message)) {
    return { final: true, failure: { reason: 'slippage', message: 'Slippage tolerance exceeded in simulation' } };
  }
  // Only the fee payer's shortfall is named in the message; a program's overdraft deep in a
  // route (custom error 0x1 of the token program) may be the pool's, so it stays `rejected`.
  if (/insufficient (funds|lamports)|no record of a prior credit/i.test(message)) {
    return { final: true, failure: { reason: 'insufficient_balance', message: `Insufficient funds: ${message}` } };
  }
  return { final: true, failure: { reason: 'rejected', message: `Transaction rejected: ${message}` } };
}
