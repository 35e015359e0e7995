/**
 * The express application: cross-cutting middleware, health and ops routes, the routers
 * of later features, then the 404 and the one error middleware. No listening here: the
 * composition root owns the HTTP server (WebSocket and MCP share it).
 */
import express, { type Express, type Router } from 'express';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { ActorInspector } from '../runtime/actor-inspector.js';
import { errorMiddleware } from './error.middleware.js';
import { createHealthRouter, type ReadinessCheck } from './health.routes.js';
import { httpMetricsMiddleware } from './http-metrics.middleware.js';
import { DEFAULT_BODY_LIMIT_BYTES, jsonBodyMiddleware } from './json-body.middleware.js';
import { notFoundMiddleware } from './not-found.middleware.js';
import { createOpsRouter } from './ops.routes.js';
import { requestContextMiddleware } from './request-context.middleware.js';

export interface HttpAppDeps {
  logger: Logger;
  metrics: Metrics;
  /** Backs `GET /readyz`; `ready: false` (or a throw) answers 503. */
  readiness: ReadinessCheck;
  inspector: ActorInspector;
  /** Bearer token of the ops inspection routes (and of `/metrics` when it is served here). */
  opsToken: string;
  /** `false` when `/metrics` has a port of its own (config `METRICS_PORT`): then it is not served here. */
  metricsOnMainPort?: boolean;
  /** Feature routers, mounted at the root in order; their paths are absolute (`/api/nest/...`). */
  routers?: Router[];
  /** REST body limit; larger bodies get 413. Default 1 MiB. */
  bodyLimitBytes?: number;
  /**
   * Path prefixes that parse their own bodies; default `['/mcp', '/oauth']` (JSON-RPC errors, the
   * MCP and agent errors; OAuth's form-encoded token requests and its own error shape).
   */
  rawBodyPrefixes?: readonly string[];
  /** express's `trust proxy` (config `TRUST_PROXY`): whom to believe about the client address. */
  trustProxy?: number | string[];
}

/** Builds the app; the caller passes it to `http.createServer` or supertest. */
export function createHttpApp(deps: HttpAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // `req.ip` (per-IP budgets) and `req.secure` (the pre-login cookie's Secure flag) read the
  // forwarded headers of these proxies only.
  if (deps.trustProxy !== undefined) app.set('trust proxy', deps.trustProxy);

  app.use(requestContextMiddleware(deps.logger));
  // API answers are one caller's data, and some carry secrets (tokens, a new key's secret):
  // no cache may keep them (RFC 6749 §5.1 asks this of token responses). Routes that may be
  // cached (the OpenAPI document) set their own header.
  app.use('/api', (_req, res, next) => {
    res.set('Cache-Control', 'no-store');
    next();
  });
  app.use(httpMetricsMiddleware(deps.metrics));
  // Probes and scrapes come before body parsing: they must answer even for odd requests.
  app.use(
    createHealthRouter({
      readiness: deps.readiness,
      metrics: deps.metrics,
      logger: deps.logger,
      ...(deps.metricsOnMainPort === false ? {} : { metricsToken: deps.opsToken }),
    }),
  );
  app.use(
    jsonBodyMiddleware({
      limitBytes: deps.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES,
      skipPrefixes: deps.rawBodyPrefixes ?? ['/mcp', '/oauth'],
    }),
  );
  // Durability and audit are the operations invoker's, which every capability route calls
  // (operation.routes.ts); the sign-in routes have their own (sign-in-record.middleware.ts).
  app.use(createOpsRouter({ inspector: deps.inspector, opsToken: deps.opsToken }));
  for (const router of deps.routers ?? []) app.use(router);

  app.use(notFoundMiddleware());
  app.use(errorMiddleware(deps.logger));
  return app;
}
