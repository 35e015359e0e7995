import { Router } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../kernel/errors/app-error.js';
import { Metrics } from '../../src/observability/metrics.js';
import { OPS_TOKEN, createTestApp } from '../support/http-harness.js';

/** A router mounted under a prefix inside another router, failing after an await. */
function nestedRouter(): Router {
  const inner = Router();
  inner.get('/items/:itemId', async (req, res) => {
    await Promise.resolve();
    if (req.params.itemId === 'missing') throw AppError.notFound('Item not found');
    res.json({ id: req.params.itemId });
  });
  const outer = Router();
  outer.use('/api/nest/things', inner);
  return outer;
}

describe('health endpoints', () => {
  it('GET /healthz answers ok', async () => {
    const { app } = createTestApp();
    const res = await request(app).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('GET /readyz answers ready or not_ready with the checks', async () => {
    const { app, setReadiness } = createTestApp();
    const ready = await request(app).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { store: 'ok' } });

    setReadiness({ ready: false, checks: { store: 'ok', scheduler: 'connecting' } });
    const notReady = await request(app).get('/readyz');
    expect(notReady.status).toBe(503);
    expect(notReady.body).toEqual({ status: 'not_ready', checks: { store: 'ok', scheduler: 'connecting' } });
  });

  it('GET /readyz treats a throwing check as not ready without leaking its message', async () => {
    const { app, setReadiness } = createTestApp();
    setReadiness(new Error('ECONNREFUSED mongodb://user:pw@db'));
    const res = await request(app).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'not_ready', checks: { readiness: 'check failed' } });
    expect(res.text).not.toContain('mongodb');
  });
});

describe('GET /metrics', () => {
  it('serves Prometheus text with route templates, not raw URLs', async () => {
    const { app, metrics } = createTestApp({ routers: [nestedRouter()] });
    metrics.setActorStatsSource(() => ({ live: 7, passivations: 40, mailboxDepth: 3 }));
    metrics.observeStore('put', 0.002);

    await request(app).get('/api/nest/things/items/a1').expect(200);
    await request(app).get('/api/nest/things/items/b2').expect(200);
    await request(app).get('/api/nest/things/items/missing').expect(404);
    await request(app).get('/api/nest/ops/actors/order/o-1').set('Authorization', `Bearer ${OPS_TOKEN}`).expect(200);
    await request(app).get('/no/such/route/123').expect(404);

    expect((await request(app).get('/metrics')).status).toBe(401);
    const res = await request(app).get('/metrics').set('Authorization', `Bearer ${OPS_TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    const text = res.text;
    expect(text).toContain('http_requests_total{method="GET",route="/api/nest/things/items/:itemId",status="200"} 2');
    // The error left the mounted router; the template must still carry its prefix.
    expect(text).toContain('http_requests_total{method="GET",route="/api/nest/things/items/:itemId",status="404"} 1');
    expect(text).toContain('http_requests_total{method="GET",route="/api/nest/ops/actors/:type/:id",status="200"} 1');
    expect(text).toContain('http_requests_total{method="GET",route="unmatched",status="404"} 1');
    expect(text).toMatch(
      /http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/api\/nest\/things\/items\/:itemId"\} \d+$/m,
    );
    expect(text).not.toContain('items/a1');
    expect(text).not.toContain('/no/such/route');
    expect(text).toContain('runtime_actors_live 7');
    expect(text).toContain('runtime_actor_passivations 40');
    expect(text).toContain('runtime_mailbox_depth 3');
    expect(text).toContain('store_operation_duration_seconds_count{operation="put"} 1');
  });
});

describe('Metrics', () => {
  it('keeps registries separate and includes process metrics by default', async () => {
    const a = new Metrics();
    const b = new Metrics({ prefix: 'svc_' });
    a.observeHttp('GET', '/x', 200, 0.01);
    expect(await a.render()).toContain('process_cpu_user_seconds_total');
    expect(await a.render()).toContain('http_requests_total{method="GET",route="/x",status="200"} 1');
    expect(await b.render()).not.toContain('route="/x"');
    expect(await b.render()).toContain('svc_http_requests_total');
  });

  it('bounds the request series: past the cap new routes count under `other`', async () => {
    const m = new Metrics({ defaultMetrics: false });
    for (let i = 0; i < 1_200; i += 1) m.observeHttp('GET', `/r${i}`, 200, 0.01);
    m.observeHttp('GET', '/r0', 200, 0.01);
    const text = await m.render();
    expect(text).toContain('http_requests_total{method="GET",route="/r0",status="200"} 2');
    expect(text).toContain('http_requests_total{method="GET",route="other",status="200"} 200');
    expect(text).not.toContain('route="/r1100"');
  });

  it('survives a throwing stats source', async () => {
    const m = new Metrics({ defaultMetrics: false });
    m.setActorStatsSource(() => {
      throw new Error('runtime stopped');
    });
    const text = await m.render();
    expect(text).toContain('runtime_actors_live');
  });
});
