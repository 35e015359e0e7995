/**
 * Counts and times every HTTP request by method, matched route template and status.
 * The template (not the raw URL) keeps label cardinality bounded.
 */
import type { Request, RequestHandler, Response } from 'express';
import { UNMATCHED_ROUTE, type Metrics } from '../observability/metrics.js';

/** A route declared with several paths or a pattern: one label, not the paths joined (routes declare one path each). */
const PATTERN_ROUTE = '(pattern)';

/** `baseUrl + route.path`, e.g. `/api/nest/ops/actors/:type`. */
function templateOf(baseUrl: string, route: unknown): string | undefined {
  const path = (route as { path?: unknown } | undefined)?.path;
  if (path === undefined) return undefined;
  const routePath = typeof path === 'string' ? path : PATTERN_ROUTE;
  // A router mounted at `/x` with `router.get('/')` should read `/x`, not `/x/`.
  if (routePath === '/' && baseUrl !== '') return baseUrl;
  return `${baseUrl}${routePath}`;
}

/**
 * Records the route template at the moment the router matches a route. Reading
 * `req.baseUrl + req.route.path` when the response finishes is wrong after an error left a
 * mounted router (the router restores `baseUrl` on the way out), so we capture it when the
 * router assigns `req.route`, where `baseUrl` is still the mount path.
 */
function captureRouteTemplate(req: Request, res: Response): void {
  let current: unknown = req.route;
  Object.defineProperty(req, 'route', {
    configurable: true,
    enumerable: true,
    get: () => current,
    set: (route: unknown) => {
      current = route;
      const template = templateOf(req.baseUrl, route);
      if (template !== undefined) res.locals.routeTemplate = template;
    },
  });
}

/** The matched route template of a request, or `unmatched`. */
function routeTemplate(res: Response): string {
  return res.locals.routeTemplate ?? UNMATCHED_ROUTE;
}

/** Observes each request when its response has been handed to the OS. */
export function httpMetricsMiddleware(metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    captureRouteTemplate(req, res);
    // 'finish' only: a request the client aborted has no status worth counting.
    res.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.observeHttp(req.method, routeTemplate(res), res.statusCode, seconds);
    });
    next();
  };
}
