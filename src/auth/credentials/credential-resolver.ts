import { AppError, isAppError } from '../../../kernel/errors/app-error.js';
import type { SessionPrincipal, SessionService } from '../session/session.service.js';
import { hasJwtShape, isIdentityToken, type IdentityTokenPrincipal } from '../../identity/tokens/identity-token-shape.js';
import { tokenInvalid } from '../../identity/tokens/identity-token.errors.js';
import { KEY_PREFIX } from './api-key-format.js';
import type { KeyAuthenticator, KeyPrincipal } from './key-authenticator.js';
import type { ScopeCaps } from './scope-caps.js';

/** Everyone who can call an authenticated route. */
export type Principal = SessionPrincipal | KeyPrincipal | IdentityTokenPrincipal;

/** What the resolver needs of the identity tokens (`IdentityTokens`). */
export interface IdentityTokenAuthenticator {
  authenticate(token: string): Promise<IdentityTokenPrincipal>;
  /** The principal of a token whose check is cached and still trusted; undefined: `authenticate` decides. */
  peek?(token: string): IdentityTokenPrincipal | undefined;
}
export type PrincipalType = Principal['type'];

/**
 * Turns an `Authorization` header into a principal. The credential kind is told apart
 * by its shape (API keys carry the `mcpk_` prefix; identity tokens are ES256 JWTs with a
 * `kid`, session tokens HS256), so each is verified exactly once.
 */
export class CredentialResolver {
  constructor(
    private readonly sessions: SessionService,
    private readonly keys: KeyAuthenticator,
    /** Absent: identity tokens are not accepted (they fail as session tokens would). */
    private readonly identityTokens?: IdentityTokenAuthenticator,
    /** Absent: agent credentials act with their own scope. */
    private readonly caps?: Pick<ScopeCaps, 'cap'> & Partial<Pick<ScopeCaps, 'peek'>>,
  ) {}

  /**
   * What `resolve` would answer for the bearer `token` of an agent credential (API key or
   * identity token) that this process verified within its cache period, read from the same
   * caches with the same revocation and expiry rules, without a promise: the MCP hot path.
   * Undefined whenever any part is not known so (a session, an unknown or evicted credential,
   * an uncached scope cap): `resolve` decides then, and is the one that refuses.
   */
  peek(token: string): KeyPrincipal | IdentityTokenPrincipal | undefined {
    const principal = token.startsWith(KEY_PREFIX) ? this.keys.peek(token) : this.identityTokens?.peek?.(token);
    if (!principal || !this.caps || principal.type === 'bot-key') return principal;
    const scope = this.caps.peek?.(principal.ownerId, principal.scope);
    if (scope === undefined) return undefined;
    return scope === principal.scope ? principal : { ...principal, scope };
  }

  /**
   * `identityTokenRoute`: the route serves identity tokens (MCP, its event streams, the agent
   * routes). There a JWT that is no valid credential is refused as an identity token, 401
   * `Identity token validation failed`, whatever its header says: its sender
   * meant one. A session's own `Token expired` stays, so an operator's client still refreshes.
   */
  async resolve(authorization: string | undefined, options: { identityTokenRoute?: boolean } = {}): Promise<Principal> {
    const token = bearer(authorization);
    if (!token) throw AppError.unauthorized();
    if (token.startsWith(KEY_PREFIX)) return this.capped(await this.keys.authenticate(token));
    if (this.identityTokens && isIdentityToken(token)) return this.capped(await this.identityTokens.authenticate(token));
    if (!options.identityTokenRoute || !this.identityTokens || !hasJwtShape(token)) return this.sessions.authenticate(token);
    try {
      return await this.sessions.authenticate(token);
    } catch (error) {
      if (isAppError(error) && error.message === 'Unauthorized') throw tokenInvalid('neither an identity token nor a session');
      throw error;
    }
  }

  /**
   * An agent's credential acts with at most the agent's `maxScope` (agent control plane), here, where every surface resolves credentials: REST, MCP and event streams.
   */
  private async capped<P extends KeyPrincipal | IdentityTokenPrincipal>(principal: P): Promise<P> {
    if (!this.caps || principal.type === 'bot-key') return principal;
    const scope = await this.caps.cap(principal.ownerId, principal.scope);
    // A copy: the authenticators cache the principal as the credential itself grants it.
    return scope === principal.scope ? principal : { ...principal, scope };
  }
}

/**
 * How the audit trail names a principal: a session by its user, a key by its id, an identity
 * token by its `jti` (never a secret).
 */
export function principalRefOf(principal: Principal): { type: string; id: string } {
  if (principal.type === 'session') return { type: 'session', id: principal.userId };
  if (principal.type === 'identity-token') return { type: 'identity-token', id: principal.jti };
  return { type: principal.type, id: principal.keyId };
}

/** The token of a `Bearer` header (scheme case-insensitive), or undefined. */
export function bearer(authorization: string | undefined): string | undefined {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? '');
  return match?.[1];
}
