import { createHash, randomBytes } from 'node:crypto';
import { SignJWT, errors as joseErrors, jwtVerify } from 'jose';
import { z } from 'zod';
import { AppError } from '../../../kernel/errors/app-error.js';
import type { ClockPort } from '../../../kernel/ports/clock.port.js';

/** Lifetimes of sessions. */
const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 60 * 60;

const ALGORITHM = 'HS256';
const AUDIENCE = 'agent-service:operators';

export type SessionTokenType = 'access' | 'refresh';

export interface SessionClaims {
  userId: string;
  sessionId: string;
  walletAddress: string;
  jti: string;
  /** Epoch seconds. */
  exp: number;
}

const claimsSchema = z.object({
  sub: z.string().min(1),
  sid: z.string().min(1),
  wal: z.string().min(1),
  jti: z.string().min(1),
  exp: z.number().int(),
  typ: z.enum(['access', 'refresh']),
});

/**
 * Signs and verifies operator session JWTs. The algorithm is pinned, `iss`, `aud` and
 * the token type are checked, and a refresh token is never accepted where an access
 * token is expected (nor the other way round).
 */
export class SessionTokens {
  private readonly key: Uint8Array;

  constructor(
    secret: string,
    private readonly issuer: string,
    private readonly clock: ClockPort,
  ) {
    // A dedicated key per purpose, so the signing secret is never used raw.
    this.key = createHash('sha256').update(`session-jwt:${secret}`).digest();
  }

  static newJti(): string {
    return randomBytes(16).toString('base64url');
  }

  async sign(type: SessionTokenType, claims: Omit<SessionClaims, 'exp'>): Promise<{ token: string; exp: number }> {
    const now = Math.floor(this.clock.now() / 1000);
    const exp = now + (type === 'access' ? ACCESS_TOKEN_TTL_SECONDS : REFRESH_TOKEN_TTL_SECONDS);
    const token = await new SignJWT({ sid: claims.sessionId, wal: claims.walletAddress, typ: type })
      .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
      .setIssuer(this.issuer)
      .setAudience(AUDIENCE)
      .setSubject(claims.userId)
      .setJti(claims.jti)
      .setIssuedAt(now)
      .setExpirationTime(exp)
      .sign(this.key);
    return { token, exp };
  }

  /** Verifies a token of the given type; 401 `Token expired` or 401 `Unauthorized`. */
  async verify(type: SessionTokenType, token: string): Promise<SessionClaims> {
    let payload: unknown;
    try {
      ({ payload } = await jwtVerify(token, this.key, {
        algorithms: [ALGORITHM],
        issuer: this.issuer,
        audience: AUDIENCE,
        currentDate: new Date(this.clock.now()),
      }));
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw AppError.unauthorized('Token expired');
      throw AppError.unauthorized();
    }
    const parsed = claimsSchema.safeParse(payload);
    if (!parsed.success || parsed.data.typ !== type) throw AppError.unauthorized();
    const { sub, sid, wal, jti, exp } = parsed.data;
    return { userId: sub, sessionId: sid, walletAddress: wal, jti, exp };
  }
}
