import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { Client, signInSolana, startTestService, type TestService } from '../support/test-service.js';

/**
 * Every documented REST route, called by a signed-in operator with random and malformed
 * bodies, query strings and path parameters: the answer is always an envelope of
 * interface 7.1 with a status below 500, and the service keeps serving.
 */
describe('REST routes under random input (e2e)', () => {
  const clock = new ManualClock(Date.now());
  let svc: TestService;
  let operator: Client;
  let routes: Array<{ method: string; path: string }>;

  beforeAll(async () => {
    svc = await startTestService({ clock });
    operator = new Client(svc.url);
    await signInSolana(operator);
    const { body: doc } = await operator.get('/api/nest/openapi.json');
    routes = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, methods]) =>
      Object.keys(methods)
        .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        // Logging out would end the session the rest of the run uses.
        .filter(() => path !== '/api/nest/auth/logout')
        .map((method) => ({ method: method.toUpperCase(), path })),
    );
  });
  afterAll(() => svc.stop());

  const segment = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('..', '%00', 'pub_x', 'agt_x', '-1', '1e309', ' '));
  const body = fc.oneof(
    fc.json().map((text) => text),
    fc.string({ maxLength: 200 }),
    fc.constantFrom('{', '[]', 'null', '{"name":', '{"scope":"manage","name":"x","stepUpToken":{}}', '{"limit":-1}'),
    fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue()).map((value) => JSON.stringify(value)),
  );

  it('never answers 5xx and always with an envelope', async () => {
    const statuses = new Map<number, number>();
    expect(routes.length).toBeGreaterThan(20);
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 10_000 }),
        fc.array(segment, { minLength: 3, maxLength: 3 }),
        body,
        fc.string({ maxLength: 30 }),
        async (pick, params, raw, query) => {
          const route = routes[pick % routes.length]!;
          let i = 0;
          const path = route.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(params[i++ % params.length]!));
          const response = await fetch(`${svc.url}${path}?${encodeURIComponent(query)}=${encodeURIComponent(query)}`, {
            method: route.method,
            headers: {
              authorization: `Bearer ${operator.bearer}`,
              'x-csrf-token': operator.csrf!,
              ...(route.method === 'GET' ? {} : { 'content-type': 'application/json' }),
            },
            ...(route.method === 'GET' ? {} : { body: raw }),
          });
          const text = await response.text();
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          // Stay inside the session's 300 requests a minute, so the routes themselves answer.
          await clock.advance(250);
          expect(response.status, `${route.method} ${path} -> ${text.slice(0, 200)}`).toBeLessThan(500);
          if (response.status >= 400) {
            const envelope = JSON.parse(text) as Record<string, unknown>;
            expect(envelope.statusCode ?? (envelope.error as { code?: unknown } | undefined)?.code).toBeDefined();
          }
        },
      ),
      { numRuns: 600 },
    );
    expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
    expect(statuses.get(429) ?? 0).toBe(0);
    expect([...statuses.keys()].filter((status) => status < 300).length).toBeGreaterThan(0);
  }, 120_000);
});
