import { timingSafeEqual } from 'node:crypto';
import { grantStatus, type OAuthGrantContext, type OAuthGrantEvent } from '../../../machines/oauth-grant.machine.js';
import { AUTH_STREAM } from '../../../machines/auth-stream.js';
import type { SecretBox } from '../../../kernel/crypto/secret-box.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import type { ActorCollection } from '../../../kernel/ports/actor-collection.port.js';
import type { ClockPort } from '../../../kernel/ports/clock.port.js';
import type { EventBusPort } from '../../../kernel/ports/event-bus.port.js';
import type { KeyScope } from '../../../kernel/vocabulary/scopes.js';
import { grantIdOf, hashOAuthSecret } from './oauth-token-format.js';

/** Who calls with an OAuth access token: the agent its grant is for, with the grant's scope. */
export interface OAuthTokenPrincipal {
  type: 'oauth-token';
  grantId: string;
  scope: KeyScope;
  /** Actor id of the agent. */
  ownerId: string;
  /** The agent whose MCP URL the token is bound to (its resource). */
  publicId: string;
  /** The audit trail's display name of the credential: `oauth:<client name>`. */
  prefix: string;
  /** Epoch ms the access token stops working. */
  expiresAt: number;
}

/** A revocation reaches every process through the bus; this bounds staleness should the bus ever miss one. */
const CACHE_MS = 30_000;
const MAX_CACHED = 100_000;
/** Last use is written at most this often per grant and process: a grant in use is not a write per call. */
const TOUCH_EVERY_MS = 60_000;

export interface OAuthTokenAuthenticatorDeps {
  grants: Pick<ActorCollection<OAuthGrantContext, OAuthGrantEvent>, 'get' | 'send'>;
  /** Purpose `oauth-token`, as the tokens were hashed with when issued. */
  box: Pick<SecretBox, 'keyedHash'>;
  clock: ClockPort;
  bus: EventBusPort;
  /** A failed last-use write is not the caller's problem: it is reported here. */
  onTouchFailed(error: unknown): void;
}

/**
 * Resolves an OAuth access token to its principal: one read of its grant (the id is in the
 * token), a constant-time comparison with the current access token's hash, the grant's state
 * and the token's expiry. Served from a per-process cache that revocations, expiries and
 * rotations evict through the bus, as API keys are.
 */
export class OAuthTokenAuthenticator {
  private readonly cache = new Map<string, { principal: OAuthTokenPrincipal; until: number }>();
  private readonly hashByGrant = new Map<string, string>();
  private readonly touched = new Map<string, number>();

  constructor(private readonly deps: OAuthTokenAuthenticatorDeps) {}

  async start(): Promise<void> {
    await this.deps.bus.subscribe(AUTH_STREAM, (event) => {
      const grantId = event.data.grantId;
      if (typeof grantId === 'string' && event.type.startsWith('grant.')) this.evict(grantId);
    });
  }

  /** Drops a grant's token from this process's cache at once. */
  evict(grantId: string): void {
    const hash = this.hashByGrant.get(grantId);
    if (hash) this.cache.delete(hash);
    this.hashByGrant.delete(grantId);
  }

  /** 401 `Unauthorized` for anything but the current, unexpired access token of an active grant. */
  async authenticate(token: string): Promise<OAuthTokenPrincipal> {
    const grantId = grantIdOf('access', token);
    if (!grantId) throw AppError.unauthorized();
    const hash = hashOAuthSecret(this.deps.box, token);
    const now = this.deps.clock.now();
    const cached = this.cache.get(hash);
    if (cached && cached.until > now && now < cached.principal.expiresAt) {
      this.touch(grantId, now);
      return cached.principal;
    }
    const view = await this.deps.grants.get(grantId);
    const c = view?.context;
    if (!view || !c || grantStatus(view, now) !== 'active' || !c.accessHash || !sameHash(c.accessHash, hash)) throw AppError.unauthorized();
    if (now >= (c.accessExpiresAt ?? 0) || !c.agentId || !c.publicId || !c.scope) throw AppError.unauthorized();
    const principal: OAuthTokenPrincipal = {
      type: 'oauth-token',
      grantId,
      scope: c.scope,
      ownerId: c.agentId,
      publicId: c.publicId,
      prefix: `oauth:${c.clientName}`.slice(0, 120),
      // The stream and the cache stop trusting it at whichever comes first.
      expiresAt: Math.min(c.accessExpiresAt ?? 0, c.expiresAt ?? 0),
    };
    if (this.cache.size >= MAX_CACHED) {
      this.cache.clear();
      this.hashByGrant.clear();
    }
    this.cache.set(hash, { principal, until: now + CACHE_MS });
    this.hashByGrant.set(grantId, hash);
    if (this.touched.get(grantId) === undefined) this.touched.set(grantId, c.lastUsedAt ?? 0);
    this.touch(grantId, now);
    return principal;
  }

  /** Records a use on the grant when the last one written by this process is older than `TOUCH_EVERY_MS`. */
  private touch(grantId: string, now: number): void {
    const last = this.touched.get(grantId) ?? 0;
    if (now - last < TOUCH_EVERY_MS) return;
    if (this.touched.size >= MAX_CACHED) this.touched.clear();
    this.touched.set(grantId, now);
    this.deps.grants.send(grantId, { type: 'grant.touch', at: now }).catch((error: unknown) => this.deps.onTouchFailed(error));
  }
}

function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
