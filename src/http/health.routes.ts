/**
 * Liveness, readiness and the Prometheus scrape endpoint. Unauthenticated by design:
 * orchestrators and scrapers call them without credentials, and they reveal no data.
 */
import { Router } from 'express';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';

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
}

export function createHealthRouter(deps: HealthRoutesDeps): Router {
  const router = Router();

  // Liveness: the process serves requests; dependencies do not matter here.
  router.get('/healthz', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });

  // Readiness: 503 until every adapter is connected (CONTRACT "Running").
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

  router.get('/metrics', async (_req, res) => {
    const text = await deps.metrics.render();
    res.set('Content-Type', deps.metrics.contentType).send(text);
  });

  return router;
}
