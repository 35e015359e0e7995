import { AppError, isAppError } from '../../../kernel/errors/app-error.js';
import type { SessionPrincipal, SessionService } from '../session/session.service.js';
import { hasJwtShape, isIdentityToken, type IdentityTokenPrincipal } from '../../identity/tokens/identity-token-shape.js';
import { tokenInvalid } from '../../identity/tokens/identity-token.errors.js';
import { KEY_PREFIX } from './api-key-format.js';
import type { KeyAuthenticator, KeyPrincipal } from './key-authenticator.js';
import type { ScopeCaps } from './scope-caps.js';
import type { ActorView } from '../../../kernel/ports/actor-collection.port.js';
import type { AgentContext } from '../../../machines/agent.machine.js';
import { looksLikeAccessToken } from '../oauth/oauth-token-format.js';
import type { OAuthTokenPrincipal } from '../oauth/oauth-token-authenticator.js';

/** Everyone who can call an authenticated route. */
export type Principal = SessionPrincipal | KeyPrincipal | IdentityTokenPrincipal | OAuthTokenPrincipal;

/** What the resolver needs of the identity tokens (`IdentityTokens`). */
export interface IdentityTokenAuthenticator {
  authenticate(token: string): Promise<IdentityTokenPrincipal>;
  /** The principal of a token whose check is cached and still trusted; undefined: `authenticate` decides. */
  peek?(token: string): IdentityTokenPrincipal | undefined;
}
export type PrincipalType = Principal['type'];

/** What the resolver needs of the OAuth access tokens (`OAuthTokenAuthenticator`). */
export interface OAuthTokenAuthenticatorLike {
  authenticate(token: string): Promise<OAuthTokenPrincipal>;
}

/**
 * A resolved credential, with its agent's view when resolving it read the agent (for the
 * scope cap): the same request's boundary uses that read for the agent's owner and status.
 */
export interface ResolveOptions {
  identityTokenRoute?: boolean;
  /** The agent (by publicId) whose MCP endpoint or event stream the request is for. */
  mcpPublicId?: string;
}

export interface ResolvedCredential {
  principal: Principal;
  agent?: ActorView<AgentContext>;
}

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
    private readonly caps?: Pick<ScopeCaps, 'capRead'> & Partial<Pick<ScopeCaps, 'peek'>>,
    /** Absent: OAuth access tokens are not accepted. */
    private readonly oauthTokens?: OAuthTokenAuthenticatorLike,
  ) {}

  /**
   * What `resolve` would answer for the bearer `token` of an agent credential (API key or
   * identity token) that this process verified within its cache period, read from the same
   * caches with the same revocation and expiry rules, without a promise: the MCP hot path.
   * Undefined whenever any part is not known so (a session, an unknown or evicted credential,
   * an uncached scope cap): `resolve` decides then, and is the one that refuses.
   */
  peek(token: string): KeyPrincipal | IdentityTokenPrincipal | undefined {
    // An OAuth access token is bound to one agent's MCP URL: only `resolve` checks that.
    if (looksLikeAccessToken(token)) return undefined;
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
   *
   * `mcpPublicId`: the request is for that agent's MCP endpoint or event stream, the only
   * place an OAuth access token is accepted, and only the one bound to that agent's MCP URL
   * (its resource): elsewhere, or for another agent, it is 401 as an unknown token is.
   */
  async resolve(authorization: string | undefined, options: ResolveOptions = {}): Promise<Principal> {
    return (await this.resolveWithAgent(authorization, options)).principal;
  }

  /** `resolve`, with the agent's view when the scope cap read it in this call. */
  async resolveWithAgent(authorization: string | undefined, options: ResolveOptions = {}): Promise<ResolvedCredential> {
    const token = bearer(authorization);
    if (!token) throw AppError.unauthorized();
    if (token.startsWith(KEY_PREFIX)) return this.capped(await this.keys.authenticate(token));
    if (looksLikeAccessToken(token)) {
      if (!this.oauthTokens || options.mcpPublicId === undefined) throw AppError.unauthorized();
      const principal = await this.oauthTokens.authenticate(token);
      if (principal.publicId !== options.mcpPublicId) throw AppError.unauthorized();
      return this.capped(principal);
    }
    if (this.identityTokens && isIdentityToken(token)) return this.capped(await this.identityTokens.authenticate(token));
    if (!options.identityTokenRoute || !this.identityTokens || !hasJwtShape(token))
      return { principal: await this.sessions.authenticate(token) };
    try {
      return { principal: await this.sessions.authenticate(token) };
    } catch (error) {
      if (isAppError(error) && error.message === 'Unauthorized') throw tokenInvalid('neither an identity token nor a session');
      throw error;
    }
  }

  /**
   * An agent's credential acts with at most the agent's `maxScope` (agent control plane), here, where every surface resolves credentials: REST, MCP and event streams.
   */
  private async capped(principal: KeyPrincipal | IdentityTokenPrincipal | OAuthTokenPrincipal): Promise<ResolvedCredential> {
    if (!this.caps || principal.type === 'bot-key') return { principal };
    const { scope, agent } = await this.caps.capRead(principal.ownerId, principal.scope);
    // A copy: the authenticators cache the principal as the credential itself grants it.
    const capped = scope === principal.scope ? principal : { ...principal, scope };
    return agent ? { principal: capped, agent } : { principal: capped };
  }
}

/**
 * How the audit trail names a principal: a session by its user, a key by its id, an identity
 * token by its `jti`, an OAuth access token by its grant (never a secret).
 */
export function principalRefOf(principal: Principal): { type: string; id: string } {
  if (principal.type === 'session') return { type: 'session', id: principal.userId };
  if (principal.type === 'identity-token') return { type: 'identity-token', id: principal.jti };
  if (principal.type === 'oauth-token') return { type: 'oauth-grant', id: principal.grantId };
  return { type: principal.type, id: principal.keyId };
}

/** The token of a `Bearer` header (scheme case-insensitive), or undefined. */
export function bearer(authorization: string | undefined): string | undefined {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? '');
  return match?.[1];
}
