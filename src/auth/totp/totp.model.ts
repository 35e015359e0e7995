import { AppError, isAppError } from '../../../kernel/errors/app-error.js';
import type { CollectionSpec } from '../../../kernel/ports/store.port.js';

/** RFC 6238 parameters every mainstream authenticator app uses (contract: SHA-1, 30 s, 6 digits). */
export const TOTP_ALGORITHM = 'sha1';
export const TOTP_DIGITS = 6;
export const TOTP_PERIOD_SECONDS = 30;
/** Steps accepted either side of the current one, for clock drift and typing time. */
export const TOTP_WINDOW_STEPS = 1;
/** 20 bytes = 160 bits, RFC 4226's recommendation (otplib 13 refuses fewer than 16). */
export const TOTP_SECRET_BYTES = 20;

/** Failed attempts allowed per user within the window before 429. */
export const TOTP_MAX_FAILURES = 5;
export const TOTP_FAILURE_WINDOW_MS = 15 * 60_000;

export const TOTP_SECRETS_COLLECTION = 'totp_secrets';
export const TOTP_ATTEMPTS_COLLECTION = 'totp_attempts';

/** Collections the TOTP service reads and writes; both keyed by user id. */
export const TOTP_COLLECTIONS: CollectionSpec[] = [
  { name: TOTP_SECRETS_COLLECTION, indexes: [] },
  { name: TOTP_ATTEMPTS_COLLECTION, indexes: [] },
];

/** One user's authenticator enrollment (document id = user id). */
export interface TotpRecord {
  /** Sealed base32 secret shown at enroll and not yet confirmed by a code. */
  pendingSecret: string | null;
  /** Sealed base32 secret confirmed by `activate`; the one `verify` checks. */
  activeSecret: string | null;
  /**
   * Highest RFC 6238 time step accepted so far; codes at or below it are refused, which
   * makes each code single use. 0 = none (real steps are ~59 million).
   */
  lastStep: number;
  enrolledAt: number;
  activatedAt: number | null;
}

/** A code matches `\d{6}` or is refused before any crypto runs. */
export const TOTP_CODE_PATTERN = /^\d{6}$/;

/** AAD binding a sealed secret to its user: a secret copied onto another user's record won't open. */
export function totpSecretAad(userId: string): string {
  return `totp-secret:${userId}`;
}

/** The interface's message (7.3) for every refused code, whatever the reason. */
export function verificationFailed(): AppError {
  return new AppError('VALIDATION_ERROR', 'Verification failed', { envelope: 'standard' });
}

export function isVersionConflict(error: unknown): boolean {
  return isAppError(error) && error.code === 'VERSION_CONFLICT';
}
