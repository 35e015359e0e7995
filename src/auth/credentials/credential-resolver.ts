import { AppError } from '../../errors/app-error.js';
import type { SessionPrincipal, SessionService } from '../session/session.service.js';
import { KEY_PREFIX } from './api-key-format.js';
import type { KeyAuthenticator, KeyPrincipal } from './key-authenticator.js';

/** Everyone who can call an authenticated route. Identity tokens join this union later. */
export type Principal = SessionPrincipal | KeyPrincipal;
export type PrincipalType = Principal['type'];

/**
 * Turns an `Authorization` header into a principal. The credential kind is told apart
 * by its shape (API keys carry the `mcpk_` prefix), so each is verified exactly once.
 */
export class CredentialResolver {
  constructor(
    private readonly sessions: SessionService,
    private readonly keys: KeyAuthenticator,
  ) {}

  async resolve(authorization: string | undefined): Promise<Principal> {
    const token = bearer(authorization);
    if (!token) throw AppError.unauthorized();
    return token.startsWith(KEY_PREFIX) ? this.keys.authenticate(token) : this.sessions.authenticate(token);
  }
}

/** The token of a `Bearer` header (scheme case-insensitive), or undefined. */
function bearer(authorization: string | undefined): string | undefined {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? '');
  return match?.[1];
}
