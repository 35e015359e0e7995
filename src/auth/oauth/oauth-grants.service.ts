import { z } from 'zod';
import { grantStatus, type OAuthGrantContext, type OAuthGrantEvent, type OAuthGrantInput } from '../../../machines/oauth-grant.machine.js';
import type { SecretBox } from '../../../kernel/crypto/secret-box.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import type { ActorCollection, ActorView } from '../../../kernel/ports/actor-collection.port.js';
import type { ClockPort } from '../../../kernel/ports/clock.port.js';
import type { SchedulerPort } from '../../../kernel/ports/scheduler.port.js';
import { SCOPES, type KeyScope } from '../../../kernel/vocabulary/scopes.js';
import type { TotpService } from '../totp/totp.service.js';
import { AuthorizationRedirectError, OAuthProtocolError, UntrustedAuthorizationRequest } from './oauth-errors.js';
import type { OAuthClients } from './oauth-clients.js';
import { hashOAuthSecret, isGrantId, newGrantId, newOAuthSecret } from './oauth-token-format.js';
import { isCodeChallenge, PKCE_METHOD } from './pkce.js';
import { redirectHostOf, redirectUriAllowed } from './redirect-uri.js';

/** An agent as the authorization server needs it: who owns it and where its MCP endpoint is. */
export interface OAuthAgent {
  /** Actor id. */
  actorId: string;
  /** The id its owner knows it by. */
  agentId: string;
  publicId: string;
  name: string;
}

/** How the authorization server finds agents (the composition hands it the account services' answers). */
export interface OAuthAgents {
  /** The active (or paused) agent of a publicId, or null. */
  byPublicId(publicId: string): Promise<OAuthAgent | null>;
  /** The user's agent of that agentId; 404 `Agent not found` when it is not theirs. */
  owned(userId: string, agentId: string): Promise<OAuthAgent>;
}

/** A pending authorization request as the consent page shows it. */
export interface AuthorizationView {
  authorizationId: string;
  clientId: string;
  clientName: string;
  clientUri?: string;
  redirectUri: string;
  redirectHost: string;
  scope: KeyScope;
  resource?: string;
  agent?: { agentId: string; publicId: string; name: string };
  expiresAt: string;
}

/** A live grant in the agent's credentials list. */
export interface GrantSummary {
  grantId: string;
  clientId: string;
  clientName: string;
  redirectHost: string;
  scope: KeyScope;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string;
}

/** Lifetimes: a consent waits 10 minutes, a code lives 1 minute, a grant 90 days (as a key). */
export const OAUTH_LIFETIMES = { pendingMs: 10 * 60_000, codeMs: 60_000, grantMs: 90 * 24 * 60 * 60_000 } as const;

const AUTHORIZATION_NOT_FOUND = 'Authorization request not found or expired';
const AUTHENTICATOR_CODE_REQUIRED = 'Authenticator code required for manage scope';

/** `scope` of an authorization request: our scope names, space-separated; OpenID's and refresh's markers are ignored. */
const IGNORED_SCOPES = new Set(['offline_access', 'openid']);

export const consentSchema = z.union([
  z
    .object({
      authorizationId: z.string().min(1).max(64),
      decision: z.literal('deny'),
    })
    .strict(),
  z
    .object({
      authorizationId: z.string().min(1).max(64),
      decision: z.literal('approve').optional(),
      agentId: z.string().min(1).max(200),
      scope: z.enum(SCOPES),
      code: z.string().max(20).optional(),
    })
    .strict(),
]);

export interface OAuthGrantsDeps {
  grants: ActorCollection<OAuthGrantContext, OAuthGrantEvent, OAuthGrantInput>;
  clients: Pick<OAuthClients, 'resolve'>;
  agents: OAuthAgents;
  totp: Pick<TotpService, 'verify'>;
  scheduler: Pick<SchedulerPort, 'scheduleOnce'>;
  /** Purpose `oauth-token`: codes and tokens are stored as keyed hashes under it. */
  box: Pick<SecretBox, 'keyedHash'>;
  clock: ClockPort;
  /** PUBLIC_URL without a trailing slash: the issuer, and the base of every agent's MCP URL. */
  issuer: string;
}

/**
 * The authorization side of OAuth for MCP: the authorization request (stored as a pending
 * grant), the operator's consent, and the agent's list of grants. Tokens are `OAuthTokens`'.
 */
export class OAuthGrants {
  constructor(private readonly deps: OAuthGrantsDeps) {}

  /** The MCP URL of an agent: the resource its tokens are bound to. */
  resourceOf(publicId: string): string {
    return `${this.deps.issuer}/mcp/${publicId}`;
  }

  /** The publicId a resource indicator names, or undefined when it is no agent's MCP URL here. */
  publicIdOf(resource: string): string | undefined {
    const prefix = `${this.deps.issuer}/mcp/`;
    if (!resource.startsWith(prefix)) return undefined;
    const rest = resource.slice(prefix.length).replace(/\/$/, '');
    return /^pub_[A-Za-z0-9_-]{1,64}$/.test(rest) ? rest : undefined;
  }

  /**
   * `GET /oauth/authorize`: checks the request and stores it as a pending grant; the console's
   * consent page URL to send the browser to. An unknown client or redirect URI throws
   * `UntrustedAuthorizationRequest` (an error page); any other problem throws
   * `AuthorizationRedirectError` (back to the client with `error`).
   */
  async authorize(query: Record<string, unknown>): Promise<string> {
    const text = (name: string) => (typeof query[name] === 'string' ? (query[name] as string) : undefined);
    const clientId = text('client_id');
    if (!clientId) throw new UntrustedAuthorizationRequest('client_id is required');
    const client = await this.deps.clients.resolve(clientId).catch((error: unknown) => {
      // The browser must not go to a client whose document could not be read: an error page, saying why.
      if (error instanceof OAuthProtocolError) throw new UntrustedAuthorizationRequest(`${error.error}: ${error.description}`);
      throw error;
    });
    if (!client)
      throw new UntrustedAuthorizationRequest('client_id names no client this server knows, or its metadata document is not valid');
    const requested = text('redirect_uri');
    // Without one, the client's only registered URI (RFC 6749 §3.1.2.3); with several, it must say which.
    const redirectUri = requested ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
    if (!redirectUri) throw new UntrustedAuthorizationRequest('redirect_uri is required');
    if (!redirectUriAllowed(redirectUri, client.redirectUris))
      throw new UntrustedAuthorizationRequest('redirect_uri is not one of the client’s registered redirect URIs');
    const state = text('state');
    const refuse = (error: 'invalid_request' | 'unsupported_response_type' | 'invalid_scope' | 'invalid_target', why: string) =>
      new AuthorizationRedirectError(this.redirect(redirectUri, { error, error_description: why, ...(state ? { state } : {}) }), error);
    if (Object.values(query).some((value) => Array.isArray(value))) throw refuse('invalid_request', 'a parameter was sent more than once');
    if (state !== undefined && state.length > 1024) throw refuse('invalid_request', 'state is too long');
    if (text('response_type') !== 'code') throw refuse('unsupported_response_type', 'response_type must be code');
    const challenge = text('code_challenge');
    if (!challenge || !isCodeChallenge(challenge)) throw refuse('invalid_request', 'code_challenge is required (PKCE, S256)');
    if (text('code_challenge_method') !== PKCE_METHOD) throw refuse('invalid_request', 'code_challenge_method must be S256');
    const scope = requestedScope(text('scope'));
    if (scope === null) throw refuse('invalid_scope', 'scope may name read, trade and manage only');
    const resource = text('resource');
    if (resource !== undefined) {
      const publicId = this.publicIdOf(resource);
      if (!publicId || !(await this.deps.agents.byPublicId(publicId)))
        throw refuse('invalid_target', 'resource must be the MCP URL of an agent of this service');
    }
    const now = this.deps.clock.now();
    const grantId = newGrantId();
    const input: OAuthGrantInput = {
      grantId,
      clientId: client.clientId,
      clientName: client.clientName,
      ...(client.clientUri ? { clientUri: client.clientUri } : {}),
      redirectUri,
      ...(state !== undefined ? { state } : {}),
      codeChallenge: challenge,
      ...(scope ? { requestedScope: scope } : {}),
      ...(resource !== undefined ? { resource } : {}),
      createdAt: now,
      pendingExpiresAt: now + OAUTH_LIFETIMES.pendingMs,
    };
    await this.deps.grants.create(grantId, input);
    await this.expireAt(grantId, 'pending', input.pendingExpiresAt);
    return `${this.deps.issuer}/oauth/consent?authorization_id=${encodeURIComponent(grantId)}`;
  }

  /** The pending request as the signed-in operator's consent page shows it. */
  async authorization(userId: string, authorizationId: string): Promise<AuthorizationView> {
    const view = await this.pending(authorizationId);
    const c = view.context;
    const agent = c.resource === undefined ? undefined : await this.requestedAgent(userId, c.resource);
    return {
      authorizationId: c.grantId,
      clientId: c.clientId,
      clientName: c.clientName,
      ...(c.clientUri ? { clientUri: c.clientUri } : {}),
      redirectUri: c.redirectUri,
      redirectHost: redirectHostOf(c.redirectUri),
      scope: c.requestedScope ?? 'read',
      ...(c.resource !== undefined ? { resource: c.resource } : {}),
      ...(agent ? { agent: { agentId: agent.agentId, publicId: agent.publicId, name: agent.name } } : {}),
      expiresAt: new Date(c.pendingExpiresAt).toISOString(),
    };
  }

  /**
   * The operator's answer: approve (an agent of theirs, a scope; `manage` needs their
   * authenticator code) or deny. Either way the URL to send the browser back to the client.
   */
  async consent(userId: string, input: z.infer<typeof consentSchema>): Promise<{ redirectTo: string }> {
    const view = await this.pending(input.authorizationId);
    const c = view.context;
    const now = this.deps.clock.now();
    const withState: Record<string, string> = c.state !== undefined ? { state: c.state } : {};
    if (input.decision === 'deny') {
      const { accepted } = await this.deps.grants.send(c.grantId, { type: 'grant.deny', at: now });
      if (!accepted) throw AppError.notFound(AUTHORIZATION_NOT_FOUND);
      return { redirectTo: this.redirect(c.redirectUri, { error: 'access_denied', ...withState }) };
    }
    const agent = await this.deps.agents.owned(userId, input.agentId);
    if (c.resource !== undefined && this.publicIdOf(c.resource) !== agent.publicId)
      throw AppError.validation(['agentId must be the agent whose MCP URL the client asked for']);
    if (input.scope === 'manage') {
      if (!input.code) throw AppError.forbidden(AUTHENTICATOR_CODE_REQUIRED);
      await this.deps.totp.verify(userId, input.code);
    }
    const code = newOAuthSecret('code', c.grantId);
    const codeExpiresAt = now + OAUTH_LIFETIMES.codeMs;
    const { accepted } = await this.deps.grants.send(c.grantId, {
      type: 'grant.approve',
      userId,
      agentId: agent.actorId,
      publicId: agent.publicId,
      scope: input.scope,
      codeHash: hashOAuthSecret(this.deps.box, code),
      codeExpiresAt,
      at: now,
    });
    if (!accepted) throw AppError.notFound(AUTHORIZATION_NOT_FOUND);
    await this.expireAt(c.grantId, 'code', codeExpiresAt);
    return { redirectTo: this.redirect(c.redirectUri, { code, ...withState }) };
  }

  /** The agent's live grants, newest first. */
  async list(agentActorId: string): Promise<{ grants: GrantSummary[] }> {
    const now = this.deps.clock.now();
    const grants: GrantSummary[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.deps.grants.find({ index: 'agentId', eq: agentActorId }, { limit: 200, ...(cursor ? { cursor } : {}) });
      for (const view of page.items) if (grantStatus(view, now) === 'active') grants.push(summaryOf(view));
      cursor = page.nextCursor;
    } while (cursor);
    return { grants: grants.sort((a, b) => b.createdAt.localeCompare(a.createdAt)) };
  }

  /** Revokes a grant of the agent at once and for good (its tokens, and event streams opened with them, end). */
  async revoke(agentActorId: string, grantId: string): Promise<{ grantId: string; revoked: true; revokedAt: string }> {
    const view = isGrantId(grantId) ? await this.deps.grants.get(grantId) : null;
    if (!view || view.context.agentId !== agentActorId) throw AppError.notFound('Grant not found');
    const { view: after } = await this.deps.grants.send(grantId, { type: 'grant.revoke', at: this.deps.clock.now() });
    if (after.state !== 'revoked') throw AppError.notFound('Grant not found');
    return { grantId, revoked: true, revokedAt: new Date(after.context.endedAt ?? this.deps.clock.now()).toISOString() };
  }

  /** The client's redirect URI with `params` (and `iss`, RFC 9207) added to its query. */
  redirect(redirectUri: string, params: Record<string, string>): string {
    const url = new URL(redirectUri);
    for (const [name, value] of Object.entries({ ...params, iss: this.deps.issuer })) url.searchParams.set(name, value);
    return url.toString();
  }

  private async pending(authorizationId: string): Promise<ActorView<OAuthGrantContext>> {
    const view = isGrantId(authorizationId) ? await this.deps.grants.get(authorizationId) : null;
    if (!view || grantStatus(view, this.deps.clock.now()) !== 'pending') throw AppError.notFound(AUTHORIZATION_NOT_FOUND);
    return view;
  }

  /** The agent a request's resource names, when it is the user's; someone else's is refused as a missing one is. */
  private async requestedAgent(userId: string, resource: string): Promise<OAuthAgent> {
    const publicId = this.publicIdOf(resource);
    const named = publicId ? await this.deps.agents.byPublicId(publicId) : null;
    if (!named) throw AppError.notFound('Agent not found');
    const owned = await this.deps.agents.owned(userId, named.agentId).catch(() => null);
    if (owned?.actorId !== named.actorId) throw AppError.notFound('Agent not found');
    return owned;
  }

  private expireAt(grantId: string, phase: 'pending' | 'code' | 'grant', at: number): Promise<void> {
    return this.deps.scheduler.scheduleOnce({
      jobId: `oauth-grant-${phase}:${grantId}`,
      address: { type: 'oauth-grant', id: grantId },
      event: { type: 'grant.expire', at },
      runAt: at,
    });
  }

  /** Schedules the end of an active grant (the token endpoint calls it after the code exchange). */
  scheduleEnd(grantId: string, at: number): Promise<void> {
    return this.expireAt(grantId, 'grant', at);
  }
}

/** The highest scope named, undefined for none, null for an unknown one. */
export function requestedScope(scope: string | undefined): KeyScope | undefined | null {
  if (scope === undefined) return undefined;
  let highest: KeyScope | undefined;
  for (const word of scope.split(' ').filter(Boolean)) {
    if (IGNORED_SCOPES.has(word)) continue;
    if (!(SCOPES as readonly string[]).includes(word)) return null;
    const named = word as KeyScope;
    if (highest === undefined || SCOPES.indexOf(named) > SCOPES.indexOf(highest)) highest = named;
  }
  return highest;
}

function summaryOf(view: ActorView<OAuthGrantContext>): GrantSummary {
  const c = view.context;
  return {
    grantId: c.grantId,
    clientId: c.clientId,
    clientName: c.clientName,
    redirectHost: redirectHostOf(c.redirectUri),
    scope: c.scope ?? 'read',
    createdAt: new Date(c.approvedAt ?? c.createdAt).toISOString(),
    lastUsedAt: c.lastUsedAt === undefined ? null : new Date(c.lastUsedAt).toISOString(),
    expiresAt: new Date(c.expiresAt ?? 0).toISOString(),
  };
}
