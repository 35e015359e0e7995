import { BaseError, toHex, type Address } from 'viem';
import type { EvmChain } from '../../kernel/vocabulary/chains.js';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { AppError, isAppError } from '../../kernel/errors/app-error.js';
import type { WalletSigner } from '../../kernel/ports/venue.port.js';
import { invalidAddress, parseAddress } from '../../kernel/vocabulary/chain-address.js';
import { providerUnavailable } from '../resilience/provider-breaker.js';

/** The EVM chains the service trades on, by the port's names. */
export type EvmChainName = EvmChain;

/** A checksummed address, or a 400 naming the field (a mixed-case one must carry its EIP-55 checksum). */
export function parseEvmAddress(value: string, field: string): Address {
  const parsed = parseAddress('evm', value);
  if (!parsed) throw AppError.validation([invalidAddress(field, 'EVM')]);
  return parsed as Address;
}

/**
 * Runs `use` with a viem account made from the signer's 32-byte private key; the key
 * exists only inside `withSecretKey`. A key that does not match the wallet's address is refused.
 */
export async function withEvmAccount<T>(signer: WalletSigner, use: (account: PrivateKeyAccount) => Promise<T>): Promise<T> {
  if (signer.chain !== 'evm') throw AppError.validation(['wallet is not an EVM wallet']);
  return signer.withSecretKey(async (secretKey) => {
    const account = privateKeyToAccount(toHex(secretKey));
    if (account.address.toLowerCase() !== signer.address.toLowerCase())
      throw AppError.internal(`wallet ${signer.walletId}: key does not match its address`);
    return use(account);
  });
}

/** Names of viem errors (walking `cause`), to tell refusals from transport trouble. */
function errorNames(error: unknown): string {
  if (error instanceof BaseError) {
    const names: string[] = [];
    error.walk((e) => {
      names.push((e as Error).name, (e as BaseError).shortMessage ?? '', (e as Error).message ?? '');
      return false;
    });
    return names.join(' | ');
  }
  return error instanceof Error ? `${error.name} | ${error.message}` : String(error);
}

/** True when a broadcast was refused because the node already has it (or its nonce was used): the receipt decides. */
export function isKnownTransactionError(error: unknown): boolean {
  return /already known|known transaction|nonce too low|already imported|NonceTooLowError/i.test(errorNames(error));
}

/** True when the node refused a transaction because its sender's nonce has moved past it. */
export function isNonceTooLowError(error: unknown): boolean {
  return /nonce too low|NonceTooLowError/i.test(errorNames(error));
}

/** True when the node refused for lack of funds (value plus gas). */
function isInsufficientFundsError(error: unknown): boolean {
  return /InsufficientFundsError|insufficient funds/i.test(errorNames(error));
}

/**
 * Runs one RPC call: insufficient funds → INSUFFICIENT_BALANCE, a revert or a refused
 * transaction → 400, anything else (HTTP, timeout, JSON-RPC internal) → PROVIDER_UNAVAILABLE.
 */
export async function evmCall<T>(provider: string, what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (isAppError(error)) throw error;
    const names = errorNames(error);
    if (isInsufficientFundsError(error)) throw new AppError('INSUFFICIENT_BALANCE', `Insufficient funds for ${what}`, { cause: error });
    if (
      /ExecutionRevertedError|ContractFunctionRevertedError|execution reverted|TransactionRejectedRpcError|intrinsic gas too low|exceeds block gas limit/i.test(
        names,
      )
    ) {
      throw AppError.validation([`${what} refused by the node: ${error instanceof BaseError ? error.shortMessage : String(error)}`]);
    }
    throw providerUnavailable(
      provider,
      `${what} failed: ${error instanceof BaseError ? error.shortMessage : error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}
