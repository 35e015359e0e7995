/**
 * The wallet sign-in failures of the auth and key errors, word for word. Every one is a 401 in the
 * standard envelope, so the HTTP error mapper renders them without knowing about wallets.
 */
import { AppError } from '../../../kernel/errors/app-error.js';

export const WALLET_AUTH_MESSAGES = {
  invalidNonce: 'Invalid or expired nonce',
  nonceConsumed: 'Nonce already consumed',
  addressMismatch: 'Wallet address does not match signed message',
  unauthorized: 'Unauthorized',
} as const;

export type WalletAuthMessage = (typeof WALLET_AUTH_MESSAGES)[keyof typeof WALLET_AUTH_MESSAGES];

/** A 401 with one of the fixed sign-in messages; `reason` stays server-side (logs) only, `hint` is the caller's next step. */
export function walletAuthError(message: WalletAuthMessage, reason?: string, hint?: string): AppError {
  // The envelope renders only the hint of the details, so the reason never reaches the caller.
  return new AppError('AUTHENTICATION_FAILED', message, {
    envelope: 'standard',
    ...(reason === undefined ? {} : { details: { reason } }),
    ...(hint === undefined ? {} : { hint }),
  });
}

/**
 * A message signed for another site (its `domain` or `URI`): still the interface's bare
 * `Unauthorized`, with a hint naming the site it must name, since the usual cause is a console
 * opened at another address than `PUBLIC_URL` (a wallet writes the page's host into the message).
 */
export function wrongSiteError(
  reason: 'domain mismatch' | 'uri not on the expected origin',
  site: { domain: string; origin: string },
): AppError {
  return walletAuthError(
    WALLET_AUTH_MESSAGES.unauthorized,
    reason,
    `The signed message must name domain ${site.domain} and a URI on ${site.origin}: open the console at ${site.origin} (the service's PUBLIC_URL), or build the message for it.`,
  );
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
