import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * PKCE (RFC 7636) as OAuth 2.1 keeps it: S256 only (`plain` would hand the challenge's
 * holder the verifier). A verifier is 43-128 unreserved characters; its challenge is the
 * base64url SHA-256 of it, 43 characters.
 */
export const PKCE_METHOD = 'S256';
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export function isCodeChallenge(value: string): boolean {
  return CHALLENGE.test(value);
}

/** The S256 challenge of a verifier. */
export function challengeOf(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** True when `verifier` is well formed and hashes to `challenge` (compared in constant time). */
export function verifierMatches(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier) || !CHALLENGE.test(challenge)) return false;
  return timingSafeEqual(Buffer.from(challengeOf(verifier)), Buffer.from(challenge));
}
