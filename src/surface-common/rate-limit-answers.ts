/**
 * What a rate budget looks like on the wire, for every surface (REST middleware, MCP,
 * event streams): whose budget a request spends, the `X-RateLimit-*` headers and the 429.
 */
import type { Principal } from '../auth/credentials/credential-resolver.js';
import { AppError } from '../../kernel/errors/app-error.js';
import type { RateLimitDecision } from '../../kernel/ports/rate-limiter.port.js';

/**
 * Whose rate budget a request spends, whichever surface (REST, MCP, events) it comes by: a
 * session's user, an API key, or for identity tokens the agent and scope (an agent can mint a
 * token whenever it likes, so a budget per token would be no budget).
 */
export function budgetKeyOf(principal: Principal): string {
  if (principal.type === 'session') return `session:${principal.userId}`;
  if (principal.type === 'identity-token') return `idtoken:${principal.ownerId}:${principal.scope}`;
  // A grant's tokens share one budget, as a key's requests do: refreshing is no way around it.
  if (principal.type === 'oauth-token') return `oauth:${principal.grantId}`;
  return `apikey:${principal.keyId}`;
}

/** `X-RateLimit-*` of a decision (the limits: on every limited response, 429 included). */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(decision.resetSeconds),
  };
}

/**
 * The 429 of a spent budget, for every surface (standard envelope, `Retry-After`; DECISIONS
 * "HTTP"). `headers` go on answers written without the REST error middleware's response.
 */
export function tooManyRequests(decision: RateLimitDecision, headers?: Record<string, string>): AppError {
  return new AppError('RATE_LIMITED', 'Too Many Requests', {
    envelope: 'standard',
    retryAfterSeconds: decision.retryAfterSeconds ?? decision.resetSeconds,
    ...(headers ? { headers } : {}),
  });
}
