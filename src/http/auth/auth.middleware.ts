import type { Request, RequestHandler } from 'express';
import type { CsrfTokens } from '../../auth/csrf/csrf-tokens.js';
import type { CredentialResolver, Principal, PrincipalType } from '../../auth/credentials/credential-resolver.js';
import type { ActorView } from '../../../kernel/ports/actor-collection.port.js';
import type { AgentContext } from '../../../machines/agent.machine.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import { RATE_POLICIES, type RateLimiterPort } from '../../../kernel/ports/rate-limiter.port.js';
import { budgetKeyOf } from '../../surface-common/rate-limit-answers.js';
import { createRateLimitMiddleware } from '../rate-limit.middleware.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      principal?: Principal;
      /** The credential's agent as resolving the credential read it in this request (for its scope cap), if it did. */
      credentialAgent?: ActorView<AgentContext>;
    }
  }
}

const MUTATING = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);
export const CSRF_HEADER = 'x-csrf-token';

export interface AuthMiddlewareDeps {
  resolver: CredentialResolver;
  csrf: CsrfTokens;
  limiter: RateLimiterPort;
  /** The per-IP budget of routes without a credential (`publicRateLimit`). */
  publicLimit: RequestHandler;
}

/**
 * The chain every authenticated route runs: resolve the credential (401), refuse
 * principal types the route does not serve (403), count it against its rate budget
 * (429 with headers), and for session callers check CSRF on mutating methods (403).
 */
export function authenticated(
  deps: AuthMiddlewareDeps,
  accept: readonly PrincipalType[],
  options: { csrf?: boolean } = {},
): RequestHandler[] {
  // An agent's routes answer a broken JWT as an identity token; a route operators use too answers it as a session.
  const identityTokenRoute = accept.includes('identity-token') && !accept.includes('session');
  const resolve: RequestHandler = async (req, res, next) => {
    try {
      const { principal, agent } = await deps.resolver.resolveWithAgent(req.get('authorization'), { identityTokenRoute });
      if (!accept.includes(principal.type)) throw AppError.forbidden();
      res.locals.principal = principal;
      if (agent) res.locals.credentialAgent = agent;
      next();
    } catch (error) {
      next(error);
    }
  };
  const rateLimit = createRateLimitMiddleware({
    limiter: deps.limiter,
    resolve: (_req, res) => {
      const principal = res.locals.principal!;
      return {
        key: budgetKeyOf(principal),
        windows: principal.type === 'session' ? RATE_POLICIES.session : RATE_POLICIES.apiKey[principal.scope],
      };
    },
  });
  const csrf: RequestHandler = (req, res, next) => {
    const principal = res.locals.principal!;
    if (principal.type === 'session' && MUTATING.has(req.method)) {
      const token = req.get(CSRF_HEADER);
      if (!token) return next(AppError.forbidden('Forbidden'));
      if (!deps.csrf.verify(principal.sessionId, token)) return next(AppError.forbidden('Invalid CSRF token'));
    }
    next();
  };
  return options.csrf === false ? [resolve, rateLimit] : [resolve, rateLimit, csrf];
}

/** The principal of an authenticated request. */
export function principalOf(res: { locals: { principal?: Principal } }): Principal {
  const principal = res.locals.principal;
  if (!principal) throw AppError.unauthorized();
  return principal;
}

/** The session principal, for routes that serve operators only. */
export function sessionOf(res: { locals: { principal?: Principal } }) {
  const principal = principalOf(res);
  if (principal.type !== 'session') throw AppError.forbidden();
  return principal;
}

const USER_NOT_FOUND = 'User not found';

/**
 * `:userId` must be the signed-in user: these are not admin routes. Another user's id is a
 * 404 `User not found`, the one rule for whatever is not the caller's (another user's agent,
 * bot, key or order is a 404 too), so a path never tells "exists, not yours" from "absent".
 */
export function assertSameUser(req: Request, res: { locals: { principal?: Principal } }): string {
  const session = sessionOf(res);
  if (req.params.userId !== session.userId) throw AppError.notFound(USER_NOT_FOUND);
  return session.userId;
}
