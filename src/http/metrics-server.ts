/**
 * `/metrics` on a port of its own (config `METRICS_PORT`): reachable by the scraper on the
 * private network and by nobody the main port serves, so it asks for no token. Everything
 * else on that port is a 404.
 */
import { createServer, type Server } from 'node:http';
import express from 'express';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { errorMiddleware } from './error.middleware.js';
import { metricsHandler } from './health.routes.js';
import { notFoundMiddleware } from './not-found.middleware.js';
import { requestContextMiddleware } from './request-context.middleware.js';

/** Listens on `host:port` (`0`: a free port) and resolves with the server once it does. */
export async function startMetricsServer(options: { host: string; port: number; metrics: Metrics; logger: Logger }): Promise<Server> {
  const app = express();
  app.disable('x-powered-by');
  app.use(requestContextMiddleware(options.logger));
  app.get('/metrics', metricsHandler(options.metrics));
  app.use(notFoundMiddleware());
  app.use(errorMiddleware(options.logger));
  const server = createServer(app);
  // A scraper calls every few seconds; its keep-alive connection is no reason to hold a stop up.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return server;
}
