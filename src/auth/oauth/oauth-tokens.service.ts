import type { OAuthGrantContext, OAuthGrantEvent } from '../../../machines/oauth-grant.machine.js';
import type { SecretBox } from '../../../kernel/crypto/secret-box.js';
import type { ActorCollection } from '../../../kernel/ports/actor-collection.port.js';
import type { ClockPort } from '../../../kernel/ports/clock.port.js';
import { SCOPES, scopeCovers, type KeyScope } from '../../../kernel/vocabulary/scopes.js';
import { OAuthProtocolError } from './oauth-errors.js';
import { OAUTH_LIFETIMES, type OAuthGrants } from './oauth-grants.service.js';
import { grantIdOf, hashOAuthSecret, newOAuthSecret } from './oauth-token-format.js';
import { verifierMatches } from './pkce.js';

/** Access tokens live at most 15 minutes; the refresh token renews them. */
const ACCESS_TOKEN_TTL_MS = 15 * 60_000;

/** The token response (RFC 6749 §5.1). */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

export interface OAuthTokensDeps {
  grants: Pick<ActorCollection<OAuthGrantContext, OAuthGrantEvent>, 'get' | 'send'>;
  authorization: Pick<OAuthGrants, 'resourceOf' | 'scheduleEnd'>;
  box: Pick<SecretBox, 'keyedHash'>;
  clock: ClockPort;
  /** Drops a grant's tokens from this process's cache at once (other processes hear the bus). */
  evict(grantId: string): void;
}

const invalidGrant = (why: string) => new OAuthProtocolError('invalid_grant', why);

/**
 * `/oauth/token` and `/oauth/revoke`: the code exchanged once (PKCE S256, the same client,
 * redirect URI and resource), refresh tokens rotated on every use, a spent one presented
 * again ending the whole grant, and RFC 7009 revocation. The grant actor decides every
 * transition, so two concurrent uses of one code or refresh token cannot both succeed.
 */
export class OAuthTokens {
  constructor(private readonly deps: OAuthTokensDeps) {}

  async token(params: Record<string, string>): Promise<TokenResponse> {
    if (params.grant_type === 'authorization_code') return this.exchange(params);
    if (params.grant_type === 'refresh_token') return this.refresh(params);
    if (!params.grant_type) throw new OAuthProtocolError('invalid_request', 'grant_type is required');
    throw new OAuthProtocolError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
  }

  private async exchange(params: Record<string, string>): Promise<TokenResponse> {
    const code = required(params, 'code');
    const verifier = required(params, 'code_verifier');
    const clientId = required(params, 'client_id');
    const grantId = grantIdOf('code', code);
    const view = grantId ? await this.deps.grants.get(grantId) : null;
    if (!grantId || !view) throw invalidGrant('the authorization code is not valid');
    const c = view.context;
    if (c.clientId !== clientId) throw invalidGrant('the authorization code was issued to another client');
    if (params.redirect_uri !== undefined && params.redirect_uri !== c.redirectUri)
      throw invalidGrant('redirect_uri differs from the authorization request’s');
    if (!verifierMatches(verifier, c.codeChallenge)) throw invalidGrant('code_verifier does not match the code_challenge');
    this.checkResource(params, c);
    const now = this.deps.clock.now();
    const tokens = this.newTokens(grantId, now);
    const expiresAt = now + OAUTH_LIFETIMES.grantMs;
    const { accepted, view: after } = await this.deps.grants.send(grantId, {
      type: 'grant.exchange',
      codeHash: hashOAuthSecret(this.deps.box, code),
      expiresAt,
      at: now,
      ...tokens.hashes,
    });
    if (after.state === 'revoked') {
      this.deps.evict(grantId);
      throw invalidGrant('the authorization code was already used: the grant is revoked');
    }
    if (!accepted || after.state !== 'active') throw invalidGrant('the authorization code is not valid or has expired');
    await this.deps.authorization.scheduleEnd(grantId, expiresAt);
    return tokens.response(after.context.scope ?? 'read');
  }

  private async refresh(params: Record<string, string>): Promise<TokenResponse> {
    const presented = required(params, 'refresh_token');
    const clientId = required(params, 'client_id');
    const grantId = grantIdOf('refresh', presented);
    const view = grantId ? await this.deps.grants.get(grantId) : null;
    if (!grantId || !view) throw invalidGrant('the refresh token is not valid');
    const c = view.context;
    if (c.clientId !== clientId) throw invalidGrant('the refresh token was issued to another client');
    this.checkResource(params, c);
    // Narrowing on refresh is not offered: a scope beyond the grant's is refused, anything else keeps the grant's.
    if (
      params.scope !== undefined &&
      !params.scope.split(' ').every((word) => word === '' || IGNORED.has(word) || coveredBy(c.scope, word))
    )
      throw new OAuthProtocolError('invalid_scope', 'scope may not exceed the grant’s');
    const now = this.deps.clock.now();
    const tokens = this.newTokens(grantId, now);
    const { accepted, view: after } = await this.deps.grants.send(grantId, {
      type: 'grant.refresh',
      presentedHash: hashOAuthSecret(this.deps.box, presented),
      at: now,
      ...tokens.hashes,
    });
    // The old access token stops working here too, not only when the bus brings `grant.rotated`.
    this.deps.evict(grantId);
    if (after.state === 'revoked' && after.context.endReason === 'refresh_reuse')
      throw invalidGrant('the refresh token was already used: the grant is revoked');
    if (!accepted || after.state !== 'active' || after.context.refreshHash !== tokens.hashes.refreshHash)
      throw invalidGrant('the refresh token is not valid or has expired');
    return tokens.response(after.context.scope ?? 'read');
  }

  /**
   * RFC 7009: the token's whole grant ends (access and refresh tokens alike). A token that is
   * not valid, or another client's, changes nothing and is answered the same, so revocation
   * tells nobody which tokens exist.
   */
  async revoke(params: Record<string, string>): Promise<void> {
    const token = required(params, 'token');
    const grantId = grantIdOf('access', token) ?? grantIdOf('refresh', token);
    const view = grantId ? await this.deps.grants.get(grantId) : null;
    if (!grantId || !view || view.state !== 'active') return;
    if (params.client_id !== undefined && params.client_id !== view.context.clientId) return;
    const hash = hashOAuthSecret(this.deps.box, token);
    if (hash !== view.context.accessHash && hash !== view.context.refreshHash) return;
    await this.deps.grants.send(grantId, { type: 'grant.revoke', at: this.deps.clock.now() });
    this.deps.evict(grantId);
  }

  /** RFC 8707: a resource named at the token endpoint must be the agent's MCP URL the grant is for. */
  private checkResource(params: Record<string, string>, c: OAuthGrantContext): void {
    if (params.resource === undefined || c.publicId === undefined) return;
    const bound = this.deps.authorization.resourceOf(c.publicId);
    if (params.resource !== bound && params.resource !== `${bound}/`)
      throw new OAuthProtocolError('invalid_target', 'resource is not the MCP URL this grant is for');
  }

  private newTokens(grantId: string, now: number) {
    const access = newOAuthSecret('access', grantId);
    const refresh = newOAuthSecret('refresh', grantId);
    const accessExpiresAt = now + ACCESS_TOKEN_TTL_MS;
    return {
      hashes: {
        accessHash: hashOAuthSecret(this.deps.box, access),
        accessExpiresAt,
        refreshHash: hashOAuthSecret(this.deps.box, refresh),
      },
      response: (scope: string): TokenResponse => ({
        access_token: access,
        token_type: 'Bearer',
        expires_in: Math.floor(ACCESS_TOKEN_TTL_MS / 1000),
        refresh_token: refresh,
        scope,
      }),
    };
  }
}

function required(params: Record<string, string>, name: string): string {
  const value = params[name];
  if (!value) throw new OAuthProtocolError('invalid_request', `${name} is required`);
  return value;
}

const IGNORED = new Set(['offline_access', 'openid']);

function coveredBy(held: KeyScope | undefined, word: string): boolean {
  return held !== undefined && (SCOPES as readonly string[]).includes(word) && scopeCovers(held, word as KeyScope);
}
