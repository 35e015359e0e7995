import { randomBytes } from 'node:crypto';
import { Router, type Request, type RequestHandler } from 'express';
import { z } from 'zod';
import { chosenAgentId } from '../../../machines/agent-id.js';
import type { CredentialResolver, Principal } from '../../auth/credentials/credential-resolver.js';
import type { CsrfTokens } from '../../auth/csrf/csrf-tokens.js';
import type { SessionService } from '../../auth/session/session.service.js';
import type { TotpService } from '../../auth/totp/totp.service.js';
import type { WalletLoginService } from '../../auth/wallet/wallet-login.service.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import { CSRF_HEADER, authenticated, principalOf, sessionOf, type AuthMiddlewareDeps } from '../auth/auth.middleware.js';
import {
  clearRefreshCookie,
  type CookiePolicy,
  readCookie,
  REFRESH_COOKIE,
  REFRESH_PATH,
  refreshCookieSchema,
  secureAttribute,
  setRefreshCookie,
} from '../auth/refresh-cookie.js';
import { objectBody, parseBody, validate } from '../validate.js';
import { codeBodySchema, noBody, noQuery } from './route-schemas.js';

/** The chain family a wallet signs in with. */
type WalletChain = 'solana' | 'evm';

/** What sign-in needs of the users (UsersService), by its shape: Surfaces do not name Accounts. */
export interface SignInUsers {
  ensureByWallet(chain: WalletChain, walletAddress: string): Promise<Parameters<SessionService['login']>[0]>;
}

export interface AuthRoutesDeps {
  auth: AuthMiddlewareDeps;
  resolver: CredentialResolver;
  csrf: CsrfTokens;
  wallet: WalletLoginService;
  users: SignInUsers;
  sessions: SessionService;
  totp: TotpService;
  cookies: CookiePolicy;
}

/** The pre-login CSRF binding lives in this cookie (HttpOnly, SameSite=Strict). */
const PRE_LOGIN_COOKIE = 'csrf_pre';
/** Body of `POST /api/nest/auth/refresh`; the token may come as the bearer instead. */
export const refreshBodySchema = z.object({ refreshToken: z.string().min(1).max(4096).optional() }).strict();

/** Sign-in, sessions, CSRF and TOTP enrolment (the auth routes, sessions). */
export function createAuthRoutes(deps: AuthRoutesDeps): Router {
  const { csrf, wallet, sessions, cookies } = deps;
  const router = Router();
  const operator = authenticated(deps.auth, ['session']);
  // Sign-in has no credential to count against: each route counts against the caller's
  // address (a nonce is a stored record, and a login is a signature check).
  const perIp = deps.auth.publicLimit;

  // After login the token is bound to the session; before it, to a cookie this route sets.
  router.get('/api/nest/auth/csrf', perIp, noQuery, async (req, res) => {
    if (req.get('authorization')) {
      const principal = await deps.resolver.resolve(req.get('authorization'));
      if (principal.type !== 'session') throw AppError.forbidden();
      res.json({ csrfToken: csrf.issue(principal.sessionId) });
      return;
    }
    let binding = readCookie(req, PRE_LOGIN_COOKIE);
    if (!binding || !/^[A-Za-z0-9_-]{22,64}$/.test(binding)) {
      binding = randomBytes(18).toString('base64url');
      res.append(
        'Set-Cookie',
        `${PRE_LOGIN_COOKIE}=${binding}; Path=/api/nest/auth; HttpOnly; SameSite=Strict; Max-Age=3600${secureAttribute(cookies, req)}`,
      );
    }
    res.json({ csrfToken: csrf.issue(`pre:${binding}`) });
  });

  router.post('/api/nest/auth/nonce', perIp, noQuery, async (req, res) => {
    res.json(await wallet.startSolana(objectBody(req)));
  });
  router.post('/api/nest/auth/evm/nonce', perIp, noQuery, async (req, res) => {
    res.json(await wallet.startEvm(objectBody(req)));
  });

  const login =
    (chain: WalletChain, verify: (body: unknown) => Promise<{ walletAddress: string }>): RequestHandler =>
    async (req, res) => {
      requirePreLoginCsrf(req, csrf);
      const { walletAddress } = await verify(objectBody(req));
      const user = await deps.users.ensureByWallet(chain, walletAddress);
      const result = await sessions.login(user);
      setRefreshCookie(res, req, cookies, result.refreshToken);
      res.json(result);
    };
  router.post(
    '/api/nest/auth/login',
    perIp,
    noQuery,
    login('solana', (body) => wallet.loginSolana(body)),
  );
  router.post(
    '/api/nest/auth/evm/login',
    perIp,
    noQuery,
    login('evm', (body) => wallet.loginEvm(body)),
  );

  // The refresh token is the credential here (body, bearer, or else the browser's cookie): the
  // access token may have expired. Every new token replaces the cookie, so a browser that
  // refreshed from the body never keeps a rotated-out token that would read as reuse on reload.
  router.post(REFRESH_PATH, perIp, noQuery, async (req, res) => {
    const { refreshToken } = validate(refreshBodySchema, objectBody(req));
    const given = refreshToken ?? /^Bearer[ ]+(\S+)$/i.exec(req.get('authorization') ?? '')?.[1];
    const cookie = given ? undefined : readCookie(req, REFRESH_COOKIE);
    if (!given && !cookie) throw AppError.unauthorized();
    // The browser attaches the cookie by itself: the pre-login CSRF token shows the console's own page asks.
    if (!given) requirePreLoginCsrf(req, csrf);
    try {
      const token = given ?? refreshCookieSchema.safeParse(cookie).data;
      if (!token) throw AppError.unauthorized();
      const result = await sessions.refresh(token);
      setRefreshCookie(res, req, cookies, result.refreshToken);
      // From the cookie, the new refresh token stays in the cookie: a page script (or an injected
      // one) never reads a 30-day credential, only the 15-minute access token.
      res.json(given ? result : { accessToken: result.accessToken, user: result.user });
    } catch (error) {
      // A refused cookie is dropped, so the browser stops presenting it.
      if (!given && error instanceof AppError && error.kind === 'unauthenticated') clearRefreshCookie(res, req, cookies);
      throw error;
    }
  });
  router.post('/api/nest/auth/logout', ...operator, noQuery, noBody, async (req, res) => {
    await sessions.logout(sessionOf(res));
    clearRefreshCookie(res, req, cookies);
    res.json({ success: true });
  });
  // Read-only: any credential may ask whether it is valid; no CSRF needed.
  const anyCredential = authenticated(deps.auth, ['session', 'agent-key', 'bot-key', 'identity-token'], { csrf: false });
  router.post('/api/nest/auth/verify', ...anyCredential, noQuery, noBody, (_req, res) => {
    res.json({ valid: true, principal: describe(principalOf(res)) });
  });

  router.post('/api/nest/auth/totp/enroll', ...operator, noQuery, noBody, async (_req, res) => {
    const session = sessionOf(res);
    res.json(await deps.totp.enroll(session.userId, session.walletAddress));
  });
  router.post('/api/nest/auth/totp/activate', ...operator, noQuery, async (req, res) => {
    await deps.totp.activate(sessionOf(res).userId, parseBody(codeBodySchema, req).code);
    res.json({ active: true });
  });
  return router;
}

function requirePreLoginCsrf(req: Request, csrf: CsrfTokens): void {
  const token = req.get(CSRF_HEADER);
  if (!token) throw AppError.forbidden('Forbidden');
  const binding = readCookie(req, PRE_LOGIN_COOKIE);
  if (!binding || !csrf.verify(`pre:${binding}`, token)) throw AppError.forbidden('Invalid CSRF token');
}

/** What `verify` tells about a principal: never a secret or hash. */
function describe(principal: Principal): Record<string, unknown> {
  if (principal.type === 'session') return { type: 'session', userId: principal.userId, walletAddress: principal.walletAddress };
  if (principal.type === 'identity-token') {
    return {
      type: principal.type,
      jti: principal.jti,
      scope: principal.scope,
      agentId: chosenAgentId(principal.ownerId),
      expiresAt: new Date(principal.expiresAt).toISOString(),
    };
  }
  // Never here (REST refuses them), but said plainly should a route ever take them.
  if (principal.type === 'oauth-token') {
    return { type: principal.type, grantId: principal.grantId, scope: principal.scope, agentId: chosenAgentId(principal.ownerId) };
  }
  return {
    type: principal.type,
    keyId: principal.keyId,
    scope: principal.scope,
    // The agent as its owner knows it, never its actor id (`<ownerId>~<agentId>`).
    ...(principal.type === 'agent-key' ? { agentId: chosenAgentId(principal.ownerId) } : { botId: principal.ownerId }),
    expiresAt: new Date(principal.expiresAt).toISOString(),
  };
}
