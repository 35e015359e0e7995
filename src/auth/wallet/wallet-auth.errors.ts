/**
 * The wallet sign-in failures of interface 7.3, word for word. Every one is a 401 in the
 * standard envelope, so the HTTP error mapper renders them without knowing about wallets.
 */
import { AppError } from '../../errors/app-error.js';

export const WALLET_AUTH_MESSAGES = {
  invalidNonce: 'Invalid or expired nonce',
  nonceConsumed: 'Nonce already consumed',
  addressMismatch: 'Wallet address does not match signed message',
  unauthorized: 'Unauthorized',
} as const;

export type WalletAuthMessage = (typeof WALLET_AUTH_MESSAGES)[keyof typeof WALLET_AUTH_MESSAGES];

/** A 401 with one of the fixed sign-in messages; `reason` stays server-side (logs) only. */
export function walletAuthError(message: WalletAuthMessage, reason?: string): AppError {
  // The standard envelope does not render details, so the reason never reaches the caller.
  return new AppError('AUTHENTICATION_FAILED', message, {
    envelope: 'standard',
    ...(reason === undefined ? {} : { details: { reason } }),
  });
}

/** A 400 for text that is not the sign-in message format at all (as opposed to a forged one). */
export function malformedMessageError(format: 'SIWS' | 'SIWE', reason?: string): AppError {
  const messages = [`message: not a valid ${format} message`];
  return new AppError('VALIDATION_ERROR', messages.join('; '), {
    envelope: 'validation',
    messages,
    ...(reason === undefined ? {} : { details: { reason } }),
  });
}
