/**
 * REST rate limiting (interface section 8): every limited response carries
 * `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (seconds until the
 * window resets), and a hit over budget becomes 429 with `Retry-After` via the one error
 * middleware. Which budget applies is the caller's choice (`resolve`), so one middleware
 * serves API keys, identity tokens, sessions, widgets and public routes.
 */
import type { Request, RequestHandler, Response } from 'express';
import { RATE_POLICIES, type RateLimiterPort, type RateWindow } from '../../kernel/ports/rate-limiter.port.js';
import { rateLimitHeaders, tooManyRequests } from '../surface-common/rate-limit-answers.js';

/** The budget of one request: whose counter (`key`) and which windows. */
export interface RateLimitTarget {
  key: string;
  windows: readonly RateWindow[];
}

export interface RateLimitMiddlewareOptions {
  limiter: RateLimiterPort;
  /**
   * Picks the budget, typically from what auth put on `res.locals`; `null` means this
   * request is not limited. Runs after authentication for per-credential limits.
   */
  resolve: (req: Request, res: Response) => RateLimitTarget | null;
}

/**
 * Counts the request against its budget. Denied → `RATE_LIMITED` (429, standard envelope,
 * `Retry-After`). A limiter failure goes to `next(err)` as it is (503 for
 * `DEPENDENCY_UNAVAILABLE`): without a working limiter requests are refused, not let through.
 */
export function createRateLimitMiddleware(options: RateLimitMiddlewareOptions): RequestHandler {
  const { limiter, resolve } = options;
  return async (req, res, next) => {
    try {
      const target = resolve(req, res);
      if (target === null) {
        next();
        return;
      }
      const decision = await limiter.hit(target.key, target.windows);
      // Set before deciding, so the 429 written by the error middleware carries them too.
      res.set(rateLimitHeaders(decision));
      next(decision.allowed ? undefined : tooManyRequests(decision));
    } catch (err) {
      next(err);
    }
  };
}

/**
 * The budget of public routes (limits not shown: 60 a minute per IP): sign-in,
 * the OpenAPI document and docs page, `/.well-known/mcp.json`. One counter per client
 * address, shared by all of them, so a client cannot multiply its budget by route.
 */
export function publicRateLimit(limiter: RateLimiterPort, windows: readonly RateWindow[] = RATE_POLICIES.public): RequestHandler {
  return createRateLimitMiddleware({ limiter, resolve: (req) => ({ key: `ip:${clientIp(req)}`, windows }) });
}

/**
 * The client address to count per-IP budgets (`public`, `.well-known`) against.
 *
 * It is `req.ip`, which honours express's `trust proxy` setting (config `TRUST_PROXY`): behind
 * a load balancer set it to the proxy hop count or addresses, or every client shares the
 * proxy's budget; never `true` in front of the open internet (the config refuses it), because
 * `X-Forwarded-For` is client-written and would let anyone pick a fresh address per request.
 * IPv4-mapped IPv6 addresses are unwrapped, and IPv6 addresses are grouped by their /64,
 * because one subscriber usually holds a whole /64 and could otherwise rotate through it.
 */
export function clientIp(req: Request): string {
  const raw = req.ip ?? req.socket.remoteAddress ?? 'unknown';
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(raw);
  if (mapped?.[1] !== undefined) return mapped[1];
  if (!raw.includes(':')) return raw;
  return ipv6Slash64(raw) ?? raw;
}

/** `2001:db8:0:1::5` → `2001:db8:0:1::/64`; `undefined` when it is not a well-formed IPv6. */
function ipv6Slash64(address: string): string | undefined {
  const bare = address.replace(/%.*$/, '');
  const halves = bare.split('::');
  if (halves.length > 2) return undefined;
  const split = (part: string | undefined): string[] =>
    // An embedded IPv4 tail (`::ffff:1.2.3.4` style) fills two groups.
    part ? part.split(':').flatMap((group) => (group.includes('.') ? ['0', '0'] : [group])) : [];
  const head = split(halves[0]);
  const tail = split(halves[1]);
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...Array<string>(missing).fill('0'), ...tail];
  if (!groups.every((group) => /^[0-9a-f]{1,4}$/i.test(group))) return undefined;
  return `${groups
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}
