import { randomBytes } from 'node:crypto';
import { AUTH_STREAM } from '../../../machines/auth-stream.js';
import type { SessionContext, SessionEvent, SessionInput } from '../../../machines/session.machine.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import type { ActorCollection } from '../../../kernel/ports/actor-collection.port.js';
import type { ClockPort } from '../../../kernel/ports/clock.port.js';
import type { EventBusPort } from '../../../kernel/ports/event-bus.port.js';
import { SessionTokens, type SessionClaims } from './session-tokens.js';

/** The session login result of interface section 2. */
export interface LoginResult {
  accessToken: string;
  refreshToken: string;
  user: { id: string; walletAddress: string };
}

/** Who signs in: what a session needs of the operator (the account service's `User` has more). */
export interface SessionUser {
  id: string;
  walletAddress: string;
}

export interface SessionPrincipal {
  type: 'session';
  userId: string;
  sessionId: string;
  walletAddress: string;
  accessJti: string;
}

/** How long a process trusts its cached "session is active" before re-reading it. */
const ACTIVE_CACHE_MS = 30_000;
const MAX_CACHED = 100_000;

/**
 * Operator sessions: each is a `session` actor (one refresh-token family). Access tokens
 * are checked against the session's state, so logout and reuse detection take effect
 * at once; a per-process cache, invalidated through the event bus, keeps that cheap.
 */
export class SessionService {
  private readonly activeUntil = new Map<string, number>();

  constructor(
    private readonly sessions: ActorCollection<SessionContext, SessionEvent, SessionInput>,
    private readonly tokens: SessionTokens,
    private readonly clock: ClockPort,
    private readonly bus: EventBusPort,
  ) {}

  /** Subscribes to revocations so every process drops a revoked session at once. */
  async start(): Promise<void> {
    await this.bus.subscribe(AUTH_STREAM, (event) => {
      if (event.type === 'session.revoked' && typeof event.data.sessionId === 'string') this.activeUntil.delete(event.data.sessionId);
    });
  }

  async login(user: SessionUser): Promise<LoginResult> {
    const sessionId = `ses_${randomBytes(16).toString('base64url')}`;
    const refreshJti = SessionTokens.newJti();
    await this.sessions.create(sessionId, {
      sessionId,
      userId: user.id,
      walletAddress: user.walletAddress,
      refreshJti,
      createdAt: this.clock.now(),
    });
    return this.issuePair({ userId: user.id, sessionId, walletAddress: user.walletAddress }, refreshJti);
  }

  /** Rotates the refresh token; a reused one revokes the family and answers 401. */
  async refresh(refreshToken: string): Promise<LoginResult> {
    const claims = await this.tokens.verify('refresh', refreshToken);
    const nextJti = SessionTokens.newJti();
    const { accepted, view } = await this.sessions
      .send(claims.sessionId, { type: 'session.refresh', presentedJti: claims.jti, nextJti, at: this.clock.now() })
      .catch((error: unknown) => {
        if (error instanceof AppError && error.kind === 'not_found') throw AppError.unauthorized();
        throw error;
      });
    const { context } = view;
    if (!accepted || view.state !== 'active' || context.refreshJti !== nextJti) {
      this.activeUntil.delete(claims.sessionId);
      throw AppError.unauthorized();
    }
    return this.issuePair(claims, nextJti);
  }

  async logout(principal: SessionPrincipal): Promise<void> {
    this.activeUntil.delete(principal.sessionId);
    await this.sessions.send(principal.sessionId, { type: 'session.logout', at: this.clock.now() });
  }

  /** Resolves a bearer access token to its principal; 401 `Token expired` / `Unauthorized`. */
  async authenticate(accessToken: string): Promise<SessionPrincipal> {
    const claims = await this.tokens.verify('access', accessToken);
    if (!(await this.isActive(claims.sessionId))) throw AppError.unauthorized();
    return {
      type: 'session',
      userId: claims.userId,
      sessionId: claims.sessionId,
      walletAddress: claims.walletAddress,
      accessJti: claims.jti,
    };
  }

  private async isActive(sessionId: string): Promise<boolean> {
    const now = this.clock.now();
    if ((this.activeUntil.get(sessionId) ?? 0) > now) return true;
    const view = await this.sessions.get(sessionId);
    if (view?.state !== 'active') return false;
    if (this.activeUntil.size >= MAX_CACHED) this.activeUntil.clear();
    this.activeUntil.set(sessionId, now + ACTIVE_CACHE_MS);
    return true;
  }

  private async issuePair(claims: Pick<SessionClaims, 'userId' | 'sessionId' | 'walletAddress'>, refreshJti: string): Promise<LoginResult> {
    const base = { userId: claims.userId, sessionId: claims.sessionId, walletAddress: claims.walletAddress };
    const [access, refresh] = await Promise.all([
      this.tokens.sign('access', { ...base, jti: SessionTokens.newJti() }),
      this.tokens.sign('refresh', { ...base, jti: refreshJti }),
    ]);
    return { accessToken: access.token, refreshToken: refresh.token, user: { id: claims.userId, walletAddress: claims.walletAddress } };
  }
}
