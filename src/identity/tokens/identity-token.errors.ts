/**
 * The identity-token failures of the auth and key errors / 7.5, word for word. Each is the domain
 * envelope (`code` included) so a client can tell a token problem from any other 401.
 */
import { AppError } from '../../../kernel/errors/app-error.js';

export const IDENTITY_TOKEN_MESSAGES = {
  invalid: 'Identity token validation failed',
  revoked: 'Token has been revoked',
  alreadyRevoked: 'Token already revoked',
  scopeNotAvailable: 'Requested scope not available',
  unknownProvider: (provider: string) => `Unknown identity provider: ${provider}`,
} as const;

/** 401 `Identity token validation failed`: malformed, expired, wrong issuer/audience, or an unknown signing key. */
export function tokenInvalid(reason?: string): AppError {
  return new AppError('TOKEN_VALIDATION_FAILED', IDENTITY_TOKEN_MESSAGES.invalid, {
    envelope: 'domain',
    ...(reason ? { details: { reason } } : {}),
  });
}

/** 401 `Token has been revoked`. */
export function tokenRevoked(): AppError {
  return new AppError('TOKEN_VALIDATION_FAILED', IDENTITY_TOKEN_MESSAGES.revoked, { envelope: 'domain' });
}

/** 400 `Token already revoked`. */
export function tokenAlreadyRevoked(): AppError {
  return new AppError('VALIDATION_ERROR', IDENTITY_TOKEN_MESSAGES.alreadyRevoked, { envelope: 'domain' });
}

/** 403 `Requested scope not available` (`manage` at onboarding, authentication rule 8). */
export function scopeNotAvailable(): AppError {
  return new AppError('AUTHORIZATION_FAILED', IDENTITY_TOKEN_MESSAGES.scopeNotAvailable, { envelope: 'domain' });
}

/** 401 `Unknown identity provider: <provider>`. */
export function unknownProvider(provider: string): AppError {
  return new AppError('AUTHENTICATION_FAILED', IDENTITY_TOKEN_MESSAGES.unknownProvider(provider), { envelope: 'domain' });
}
