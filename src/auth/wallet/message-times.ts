/**
 * The time checks shared by SIWS and SIWE messages, against the service clock rather than
 * the host clock so tests (ManualClock) and the nonce TTL agree on "now".
 */
import { WALLET_AUTH_MESSAGES, walletAuthError } from './wallet-auth.errors.js';

export interface MessageTimes {
  issuedAt?: string | undefined;
  expirationTime?: string | undefined;
  notBefore?: string | undefined;
}

/**
 * How far `Issued At` may lead our clock. Client clocks drift (EVM messages carry the
 * browser's time) and the nonce TTL bounds a message's life anyway, so this is generous.
 */
const DEFAULT_ISSUED_AT_SKEW_MS = 5 * 60_000;

/**
 * How far `Issued At` may trail the moment its nonce was issued. A message cannot honestly be
 * written before its nonce existed; this much is allowed for a client clock running behind
 * ours (the message's `Issued At` is the client's time, the nonce's ours).
 */
export const ISSUED_BEFORE_NONCE_SKEW_MS = 60_000;

/**
 * Throws 401 `Invalid or expired nonce` when the message has expired, `Unauthorized` when it
 * is not yet valid or claims to be issued in the future.
 */
export function checkMessageTimes(times: MessageTimes, nowMs: number, issuedAtSkewMs = DEFAULT_ISSUED_AT_SKEW_MS): void {
  const issuedAt = toMs(times.issuedAt);
  const expiration = toMs(times.expirationTime);
  const notBefore = toMs(times.notBefore);
  if (Number.isNaN(issuedAt) || Number.isNaN(expiration) || Number.isNaN(notBefore)) {
    throw walletAuthError(WALLET_AUTH_MESSAGES.unauthorized, 'unreadable timestamp');
  }
  // An expired message means its nonce window is over, which the caller should hear as such.
  if (expiration !== undefined && expiration <= nowMs) {
    throw walletAuthError(WALLET_AUTH_MESSAGES.invalidNonce, 'message expired');
  }
  if (notBefore !== undefined && notBefore > nowMs) {
    throw walletAuthError(WALLET_AUTH_MESSAGES.unauthorized, 'message not yet valid');
  }
  if (issuedAt !== undefined && issuedAt > nowMs + issuedAtSkewMs) {
    throw walletAuthError(WALLET_AUTH_MESSAGES.unauthorized, 'message issued in the future');
  }
}

function toMs(iso: string | undefined): number | undefined {
  return iso === undefined ? undefined : Date.parse(iso);
}
