/**
 * `/metrics` from outside: on the main port only with the ops token; with `METRICS_PORT`, on
 * that port alone (no token) and not on the main port. Its route labels are route templates.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/test-service.js';

/** Every `route` label of the request counter. */
function routeLabels(text: string): string[] {
  return [...text.matchAll(/^http_requests_total\{[^}]*route="([^"]*)"/gm)].map((match) => match[1]!);
}

describe('/metrics on the main port', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(() => svc.stop());

  it('answers only with the ops token', async () => {
    const anonymous = await fetch(`${svc.url}/metrics`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ statusCode: 401, message: 'Unauthorized' });
    const wrong = await fetch(`${svc.url}/metrics`, { headers: { authorization: 'Bearer not-the-ops-token-0123456789abcdef' } });
    expect(wrong.status).toBe(401);
    const ops = await fetch(`${svc.url}/metrics`, { headers: { authorization: `Bearer ${svc.opsToken}` } });
    expect(ops.status).toBe(200);
    expect(await ops.text()).toContain('runtime_actors_live');
  });

  it("labels the console's pages by their templates, not one label of every page", async () => {
    for (const page of ['/', '/agents', '/agents/a-1/dca', '/agents/a-2/dca', '/agents/a-1/trading']) await fetch(`${svc.url}${page}`);
    const text = await (await fetch(`${svc.url}/metrics`, { headers: { authorization: `Bearer ${svc.opsToken}` } })).text();
    const labels = routeLabels(text);
    expect(labels).toEqual(expect.arrayContaining(['/', '/agents', '/agents/:agentId/dca', '/agents/:agentId/trading']));
    expect(text).toContain('http_requests_total{method="GET",route="/agents/:agentId/dca",status="200"} 2');
    for (const label of labels) expect(label).not.toContain(',');
    expect(text).not.toContain('a-1');
  });
});

describe('/metrics with METRICS_PORT', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ env: { METRICS_PORT: '0' } });
  });
  afterAll(() => svc.stop());

  it('is served on its own port without a token, and not on the main port even with the token', async () => {
    const metricsUrl = svc.service.metricsUrl;
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(metricsUrl).not.toBe(svc.url);
    const scraped = await fetch(`${metricsUrl}/metrics`);
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get('content-type')).toContain('text/plain');
    expect(await scraped.text()).toContain('runtime_actors_live');
    // Nothing else on that port: not the API, not the probes.
    expect((await fetch(`${metricsUrl}/api/nest/docs`)).status).toBe(404);
    const main = await fetch(`${svc.url}/metrics`, { headers: { authorization: `Bearer ${svc.opsToken}` } });
    expect(main.status).toBe(404);
    expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
  });
});
