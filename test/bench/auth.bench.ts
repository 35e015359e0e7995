/**
 * Authenticated vs unauthenticated requests/s (printed, not asserted). Run: `npm run bench:auth`.
 *
 * One express app of the service's own middleware (request ids, metrics, body parsing,
 * errors) serves the same handler twice: open, and behind an API key (keyed hash, index
 * lookup or cache, scope check, rate-limit counter). Both are loaded with autocannon in
 * the same run on the embedded profile. Target: keyed >= 70% of open.
 * The rate budget is raised so the counter runs on every request without denying any.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Router } from 'express';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { InProcessRateLimiter } from '../../adapters/rate-limit/in-process-rate-limiter.adapter.js';
import { scopeCovers } from '../../kernel/vocabulary/scopes.js';
import { AppError } from '../../kernel/errors/app-error.js';
import { createHttpApp } from '../../src/http/app.js';
import { principalOf } from '../../src/http/auth/auth.middleware.js';
import { createRateLimitMiddleware } from '../../src/http/rate-limit.middleware.js';
import { createLogger } from '../../src/observability/logger.js';
import { Metrics } from '../../src/observability/metrics.js';
import { Client, signInSolana, startTestService } from '../support/test-service.js';
import { loadUrl } from './load-generator.js';

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 8);

const load = (url: string, headers: Record<string, string> = {}) => loadUrl(url, { seconds: DURATION_S, headers });

async function main() {
  const svc = await startTestService({ discardLogs: true });
  const operator = new Client(svc.url);
  await signInSolana(operator);
  const { body: agent } = await operator.post('/api/nest/agents', { name: 'bench' });
  const { body: key } = await operator.post(`/api/nest/agents/${agent.agentId}/keys`, { name: 'bench', scope: 'read' });

  const limiter = new InProcessRateLimiter({ clock: new ManualClock(Date.now()) });
  const { resolver } = svc.service.services;
  const router = Router();
  const handler = (_req: unknown, res: { json: (body: unknown) => void }) => res.json({ ok: true });
  router.get('/bench/open', handler);
  router.get(
    '/bench/keyed',
    async (req, res, next) => {
      try {
        res.locals.principal = await resolver.resolve(req.get('authorization'));
        next();
      } catch (error) {
        next(error);
      }
    },
    createRateLimitMiddleware({
      limiter,
      resolve: (_req, res) => {
        const principal = principalOf(res);
        return {
          key: `apikey:${principal.type === 'session' ? principal.userId : principal.type === 'identity-token' ? principal.jti : principal.type === 'oauth-token' ? principal.grantId : principal.keyId}`,
          windows: [{ name: 'minute', limit: 1e9, windowMs: 60_000 }],
        };
      },
    }),
    (_req, res, next) => {
      const principal = principalOf(res);
      next(principal.type !== 'session' && scopeCovers(principal.scope, 'read') ? undefined : AppError.forbidden());
    },
    handler,
  );
  const app = createHttpApp({
    logger: createLogger({ level: 'silent' }),
    metrics: new Metrics({ defaultMetrics: false }),
    readiness: async () => ({ ready: true, checks: {} }),
    inspector: {
      types: () => [],
      inspect: async () => null,
      journal: async () => ({ items: [] }),
      list: async () => ({ items: [] }),
      machine: () => null,
    },
    opsToken: svc.opsToken,
    routers: [router],
  });
  const server = createServer(app).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  await load(`${base}/bench/open`); // warm-up
  const open = await load(`${base}/bench/open`);
  const keyed = await load(`${base}/bench/keyed`, { authorization: `Bearer ${key.secret}` });
  console.log(`\n## Authenticated vs open requests (${DURATION_S} s each, 50 connections, embedded profile)`);
  console.log('| route | req/s | p50 ms | p99 ms |\n|---|---|---|---|');
  console.log(`| open | ${open.rps.toFixed(0)} | ${open.p50} | ${open.p99} |`);
  console.log(`| API key (hash, lookup, scope, rate counter) | ${keyed.rps.toFixed(0)} | ${keyed.p50} | ${keyed.p99} |`);
  console.log(`keyed / open: ${((keyed.rps / open.rps) * 100).toFixed(1)}% (target >= 70%)`);

  server.close();
  await limiter.close();
  await svc.stop();
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
