/**
 * Liveness and readiness, unauthenticated by design (orchestrators call them without
 * credentials, and they reveal no data), and the Prometheus scrape endpoint: behind the ops
 * token on the main port, or alone on its own port (`metrics-server.ts`). Its text names every
 * route and counts every answer, and rendering it costs far more than a probe: not for anyone.
 */
import { Router, type RequestHandler } from 'express';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { requireBearerToken } from './ops-auth.middleware.js';

export interface ReadinessReport {
  ready: boolean;
  /** `ok`, or a short description of what is not ready. */
  checks: Record<string, 'ok' | string>;
}

export type ReadinessCheck = () => Promise<ReadinessReport>;

export interface HealthRoutesDeps {
  readiness: ReadinessCheck;
  metrics: Metrics;
  logger: Logger;
  /** Bearer token `/metrics` asks for; absent, `/metrics` is not served here (it has its own port). */
  metricsToken?: string;
}

export function createHealthRouter(deps: HealthRoutesDeps): Router {
  const router = Router();

  // Liveness: the process serves requests; dependencies do not matter here.
  router.get('/healthz', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });

  // Readiness: 503 until every adapter is connected (running).
  router.get('/readyz', async (req, res) => {
    let report: ReadinessReport;
    try {
      report = await deps.readiness();
    } catch (err) {
      // A throwing check means not ready; its message stays in the log, not the response.
      (req.log ?? deps.logger).warn({ err }, 'readiness check threw');
      report = { ready: false, checks: { readiness: 'check failed' } };
    }
    res
      .status(report.ready ? 200 : 503)
      .set('Cache-Control', 'no-store')
      .json({ status: report.ready ? 'ready' : 'not_ready', checks: report.checks });
  });

  if (deps.metricsToken !== undefined) router.get('/metrics', requireBearerToken(deps.metricsToken), metricsHandler(deps.metrics));

  return router;
}

/** `GET /metrics`: the Prometheus text of `metrics`. */
export function metricsHandler(metrics: Metrics): RequestHandler {
  return async (_req, res) => {
    const text = await metrics.render();
    res.set({ 'Content-Type': metrics.contentType, 'Cache-Control': 'no-store' }).send(text);
  };
}
