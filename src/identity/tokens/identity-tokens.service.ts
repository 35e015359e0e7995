/**
 * Identity access tokens (identity access tokens): ES256 JWTs signed with the
 * service's key ring, each an `identity-token` actor addressed by its `jti`. Issuing creates
 * the actor and schedules its expiry; checking a token verifies the signature (jose), issuer,
 * audience and expiry, then asks the actor whether it was revoked.
 *
 * Verification results are cached per token until it expires (measured: ES256 verify is
 * ~100 µs); the revocation part of a cached result is re-read at most every `REVOCATION_CACHE_MS`
 * and dropped at once when `token.revoked` reaches this process on the bus (within a second on
 * every process; the revoking process drops it before it answers).
 */
import { decodeProtectedHeader, errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { randomId } from '../../../kernel/vocabulary/ids.js';
import type { KeyScope } from '../../../kernel/vocabulary/scopes.js';
import { AUTH_STREAM } from '../../../machines/auth-stream.js';
import {
  identityTokenStatus,
  type IdentityTokenContext,
  type IdentityTokenEvent,
  type IdentityTokenInput,
} from '../../../machines/identity-token.machine.js';
import type { ActorCollection, ActorView } from '../../../kernel/ports/actor-collection.port.js';
import type { ClockPort } from '../../../kernel/ports/clock.port.js';
import type { EventBusPort } from '../../../kernel/ports/event-bus.port.js';
import type { SchedulerPort } from '../../../kernel/ports/scheduler.port.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import { SIGNING_ALG, type SigningKeys } from '../keys/signing-keys.service.js';
import { type IdentityTokenPrincipal, looksLikeJwt } from './identity-token-shape.js';
import { tokenAlreadyRevoked, tokenInvalid, tokenRevoked } from './identity-token.errors.js';
import { TOKEN_LIFETIME_S } from './token-lifetimes.js';

export interface IssueTokenInput {
  /** Actor id of the agent. */
  agentActorId: string;
  /** The agentId clients know (the token's `sub`). */
  agentId: string;
  publicId: string;
  scope: KeyScope;
  method: IdentityTokenContext['method'];
}

export interface IssuedToken {
  accessToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
  scope: KeyScope;
  jti: string;
}

export interface RevocationStatus {
  jti: string;
  revoked: boolean;
  revokedAt?: string;
}

/** How long a cached check trusts the actor's "not revoked" should the bus ever lose an event. */
export const REVOCATION_CACHE_MS = 30_000;
const MAX_CACHED = 100_000;
/** How far a token's `iat` may lead this process's clock: the clock drift between our own processes. */
const MAX_IAT_SKEW_MS = 60_000;

type TokenActors = ActorCollection<IdentityTokenContext, IdentityTokenEvent, IdentityTokenInput>;

export class IdentityTokens {
  private readonly cache = new Map<string, { principal: IdentityTokenPrincipal; checkedAt: number }>();
  private readonly tokenByJti = new Map<string, string>();
  private readonly audience: string;

  constructor(
    private readonly actors: TokenActors,
    private readonly keys: SigningKeys,
    private readonly scheduler: SchedulerPort,
    private readonly clock: ClockPort,
    private readonly bus: EventBusPort,
    /** PUBLIC_URL: the tokens' `iss`; `<PUBLIC_URL>/mcp` their `aud`. */
    private readonly issuer: string,
  ) {
    this.audience = `${issuer}/mcp`;
  }

  /** Subscribes the cache to revocations and expiries of every process. */
  async start(): Promise<void> {
    await this.bus.subscribe(AUTH_STREAM, (event) => {
      const jti = event.data.jti;
      if ((event.type === 'token.revoked' || event.type === 'token.expired') && typeof jti === 'string') this.evict(jti);
    });
  }

  /** Signs a new token and creates its actor; its expiry is scheduled. */
  async issue(input: IssueTokenInput): Promise<IssuedToken> {
    const { kid, privateKey } = await this.keys.active();
    const jti = randomId('jti');
    const lifetime = TOKEN_LIFETIME_S[input.scope];
    // Whole seconds, as `iat`/`exp` are: the actor's expiry is exactly the JWT's.
    const iat = Math.floor(this.clock.now() / 1000);
    const exp = iat + lifetime;
    await this.actors.create(jti, {
      jti,
      agentId: input.agentActorId,
      publicId: input.publicId,
      scope: input.scope,
      kid,
      method: input.method,
      issuedAt: iat * 1000,
      expiresAt: exp * 1000,
    });
    await this.scheduler.scheduleOnce({
      jobId: `token-expire:${jti}`,
      address: { type: this.actors.type, id: jti },
      event: { type: 'token.expire', at: exp * 1000 },
      runAt: exp * 1000,
    });
    const accessToken = await new SignJWT({ scope: input.scope, publicId: input.publicId })
      .setProtectedHeader({ alg: SIGNING_ALG, kid, typ: 'JWT' })
      .setIssuer(this.issuer)
      .setSubject(input.agentId)
      .setAudience(this.audience)
      .setJti(jti)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(privateKey);
    return { accessToken, tokenType: 'Bearer', expiresIn: lifetime, scope: input.scope, jti };
  }

  /**
   * The principal of a valid token; 401 `Token has been revoked` for a revoked one, 401
   * `Identity token validation failed` for anything else that is not a valid token.
   */
  async authenticate(token: string): Promise<IdentityTokenPrincipal> {
    const now = this.clock.now();
    const cached = this.cache.get(token);
    if (cached) {
      if (now >= cached.principal.expiresAt) {
        this.evict(cached.principal.jti);
        throw tokenInvalid('expired');
      }
      if (now - cached.checkedAt < REVOCATION_CACHE_MS) return cached.principal;
    }
    const { principal, view } = cached
      ? { principal: cached.principal, view: await this.actors.get(cached.principal.jti) }
      : await this.verify(token);
    this.checkActor(view, principal, now);
    this.remember(token, principal, now);
    return principal;
  }

  /**
   * `authenticate`'s answer for a token whose cached check is still trusted (unexpired, not
   * evicted by a revocation, its revocation read within `REVOCATION_CACHE_MS`), without a
   * promise; undefined otherwise, and `authenticate` decides.
   */
  peek(token: string): IdentityTokenPrincipal | undefined {
    const cached = this.cache.get(token);
    if (!cached) return undefined;
    const now = this.clock.now();
    return now < cached.principal.expiresAt && now - cached.checkedAt < REVOCATION_CACHE_MS ? cached.principal : undefined;
  }

  /** `tokens/revoke {token}`: 200 once, 400 `Token already revoked` after. */
  async revoke(token: string): Promise<RevocationStatus> {
    const { principal, view } = await this.verify(token);
    const now = this.clock.now();
    if (view.state === 'revoked') throw tokenAlreadyRevoked();
    const { accepted, view: after } = await this.actors.send(principal.jti, { type: 'token.revoke', at: now });
    // Revoked meanwhile by another call: the same answer as a second revoke.
    if (!accepted && after.state === 'revoked') throw tokenAlreadyRevoked();
    if (!accepted) throw tokenInvalid('expired');
    this.evict(principal.jti);
    return this.statusOf(after);
  }

  /**
   * Revokes every live token of an agent (its ERC-8004 identity changed hands): the same
   * transition as `tokens/revoke`, so every process refuses them within a second. How many it revoked.
   */
  async revokeAgent(agentActorId: string): Promise<number> {
    const now = this.clock.now();
    let revoked = 0;
    let cursor: string | undefined;
    do {
      const page = await this.actors.find({ index: 'agentId', eq: agentActorId }, { limit: 200, ...(cursor ? { cursor } : {}) });
      for (const view of page.items) {
        if (identityTokenStatus(view, now) !== 'valid') continue;
        if ((await this.actors.send(view.id, { type: 'token.revoke', at: now })).accepted) revoked++;
        this.evict(view.id);
      }
      cursor = page.nextCursor;
    } while (cursor);
    return revoked;
  }

  /** `tokens/revoke-status {jti}` or `{token}`; 404 `Token not found` for a jti the service never issued. */
  async status(query: { jti: string } | { token: string }): Promise<RevocationStatus> {
    const jti = 'jti' in query ? query.jti : (await this.verified(query.token, { ignoreExpiry: true })).jti;
    const view = await this.actors.get(jti);
    if (!view) throw AppError.notFound('Token not found');
    return this.statusOf(view);
  }

  /** Drops a token from this process's cache. */
  evict(jti: string): void {
    const token = this.tokenByJti.get(jti);
    if (token !== undefined) this.cache.delete(token);
    this.tokenByJti.delete(jti);
  }

  private statusOf(view: ActorView<IdentityTokenContext>): RevocationStatus {
    const { revokedAt } = view.context;
    return {
      jti: view.context.jti,
      revoked: view.state === 'revoked',
      ...(revokedAt === undefined ? {} : { revokedAt: new Date(revokedAt).toISOString() }),
    };
  }

  private checkActor(view: ActorView<IdentityTokenContext> | null, principal: IdentityTokenPrincipal, now: number): void {
    if (!view || view.context.agentId !== principal.ownerId || view.context.scope !== principal.scope)
      throw tokenInvalid('no matching actor');
    const status = identityTokenStatus(view, now);
    if (status === 'revoked') {
      this.evict(principal.jti);
      throw tokenRevoked();
    }
    if (status === 'expired') throw tokenInvalid('expired');
  }

  private remember(token: string, principal: IdentityTokenPrincipal, now: number): void {
    if (this.cache.size >= MAX_CACHED) {
      this.cache.clear();
      this.tokenByJti.clear();
    }
    this.cache.set(token, { principal, checkedAt: now });
    this.tokenByJti.set(principal.jti, token);
  }

  /** Signature, `iss`, `aud`, `exp` and claims; the actor is not consulted. */
  private async verify(token: string): Promise<{ principal: IdentityTokenPrincipal; view: ActorView<IdentityTokenContext> }> {
    const payload = await this.verified(token);
    const actor = await this.actors.get(payload.jti);
    if (!actor) throw tokenInvalid('unknown jti');
    const principal: IdentityTokenPrincipal = {
      type: 'identity-token',
      jti: payload.jti,
      scope: payload.scope,
      ownerId: actor.context.agentId,
      publicId: payload.publicId,
      expiresAt: payload.exp * 1000,
    };
    if (actor.context.publicId !== principal.publicId) throw tokenInvalid('publicId mismatch');
    return { principal, view: actor };
  }

  /**
   * The one check of a token's signature, header, `iss`, `aud` and claims. `ignoreExpiry` is
   * for revoke-status by token: an expired token of ours still names its jti truthfully.
   */
  private async verified(
    token: string,
    options: { ignoreExpiry?: boolean } = {},
  ): Promise<JWTPayload & { jti: string; exp: number; scope: KeyScope; publicId: string }> {
    if (!looksLikeJwt(token)) throw tokenInvalid('malformed');
    const header = safeHeader(token);
    if (!header || header.alg !== SIGNING_ALG || typeof header.kid !== 'string') throw tokenInvalid('bad header');
    const key = await this.keys.verificationKey(header.kid);
    if (!key) throw tokenInvalid('unknown signing key');
    try {
      const { payload } = await jwtVerify(token, key, {
        issuer: this.issuer,
        audience: this.audience,
        algorithms: [SIGNING_ALG],
        currentDate: new Date(this.clock.now()),
        ...(options.ignoreExpiry ? { clockTolerance: Number.MAX_SAFE_INTEGER } : {}),
        requiredClaims: ['jti', 'sub', 'exp', 'iat', 'scope', 'publicId'],
      });
      const { scope, publicId, jti, exp, iat } = payload;
      // jose checks `iat` only against a maximum age: a token dated ahead of our clock was not issued as we issue them.
      if (!options.ignoreExpiry && typeof iat === 'number' && iat * 1000 > this.clock.now() + MAX_IAT_SKEW_MS)
        throw tokenInvalid('issued in the future');
      if (
        (scope !== 'read' && scope !== 'trade' && scope !== 'manage') ||
        typeof publicId !== 'string' ||
        typeof jti !== 'string' ||
        typeof exp !== 'number'
      ) {
        throw tokenInvalid('bad claims');
      }
      return { ...payload, scope, publicId, jti, exp };
    } catch (error) {
      if (error instanceof AppError) throw error;
      if (error instanceof joseErrors.JOSEError) throw tokenInvalid(error.code);
      throw tokenInvalid('invalid');
    }
  }
}

function safeHeader(token: string): ReturnType<typeof decodeProtectedHeader> | undefined {
  try {
    return decodeProtectedHeader(token);
  } catch {
    return undefined;
  }
}
