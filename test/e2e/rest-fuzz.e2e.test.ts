import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, rawRpc } from '../support/mcp-fixtures.js';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { Client, signInSolana, startTestService, type TestService } from '../support/test-service.js';

/**
 * Every documented REST route, called by a signed-in operator with random and malformed
 * bodies, query strings and path parameters: the answer is always an envelope of
 * the error envelopes with a status below 500, the service keeps serving, and no control or
 * bidirectional formatting character sent in comes back unescaped.
 */

/** Characters input may carry and an answer must never quote back as they are (tab and line feed aside). */
const HOSTILE = ['\u202e', '\u2066', '\u200e', '\u200b', '\u2028', '\u0007', '\u001b', '\u0000', '\r', '\u007f', '\u0085', '\ufeff'];
const HOSTILE_CHAR = new RegExp(`[${HOSTILE.join('')}]`, 'u');
/** A string of ASCII with one of them inside. */
const hostileString = fc
  .tuple(fc.string({ maxLength: 12 }), fc.constantFrom(...HOSTILE), fc.string({ maxLength: 12 }))
  .map(([head, char, tail]) => `${head}${char}${tail}`);

/** The first string (key or value) of a parsed answer holding one of the characters above, if any. */
function leaked(value: unknown): string | undefined {
  if (typeof value === 'string') return HOSTILE_CHAR.test(value) ? value : undefined;
  if (Array.isArray(value)) return value.map(leaked).find((found) => found !== undefined);
  if (value !== null && typeof value === 'object')
    return Object.entries(value)
      .flatMap(([key, inner]) => [leaked(key), leaked(inner)])
      .find((found) => found !== undefined);
  return undefined;
}

/** The OAuth authorization server's own routes (their errors take OAuth's shape, not the REST envelope). */
function oauthRoute(path: string): boolean {
  return path.startsWith('/oauth/') || path.startsWith('/.well-known/oauth');
}

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

  const segment = fc.oneof(fc.string({ maxLength: 40 }), hostileString, fc.constantFrom('..', '%00', 'pub_x', 'agt_x', '-1', '1e309', ' '));
  const body = fc.oneof(
    fc.json().map((text) => text),
    fc.string({ maxLength: 200 }),
    fc.constantFrom('{', '[]', 'null', '{"name":', '{"scope":"manage","name":"x","stepUpToken":{}}', '{"limit":-1}'),
    fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue()).map((value) => JSON.stringify(value)),
    // Unknown field names and string values with control and bidi characters.
    fc
      .dictionary(fc.oneof(hostileString, fc.string({ maxLength: 12 })), fc.oneof(hostileString, fc.jsonValue()))
      .map((value) => JSON.stringify(value)),
  );

  it('never answers 5xx and always with an envelope', async () => {
    const statuses = new Map<number, number>();
    expect(routes.length).toBeGreaterThan(20);
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 10_000 }),
        fc.array(segment, { minLength: 3, maxLength: 3 }),
        body,
        fc.oneof(fc.string({ maxLength: 30 }), hostileString),
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
          if (response.status >= 400 && oauthRoute(route.path) && !response.headers.get('content-type')?.includes('json')) {
            // The authorization endpoint answers a person: an error page, never a redirect to an unchecked client.
            expect(response.headers.get('content-type'), `${route.method} ${path}`).toContain('text/html');
          } else if (response.status >= 400) {
            const envelope = JSON.parse(text) as Record<string, unknown>;
            // OAuth endpoints answer errors in OAuth's own shape ({error, error_description}), as OAuth clients parse them.
            const code = oauthRoute(route.path)
              ? typeof envelope.error === 'string' && envelope.error
              : (envelope.statusCode ?? (envelope.error as { code?: unknown } | undefined)?.code);
            expect(code, `${route.method} ${path} -> ${text.slice(0, 200)}`).toBeTruthy();
          }
          if (response.headers.get('content-type')?.includes('json'))
            expect(leaked(JSON.parse(text)), `${route.method} ${path} -> ${text.slice(0, 300)}`).toBeUndefined();
        },
      ),
      { numRuns: 600 },
    );
    expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
    expect(statuses.get(429) ?? 0).toBe(0);
    expect([...statuses.keys()].filter((status) => status < 300).length).toBeGreaterThan(0);
  }, 120_000);

  it('MCP tools called with control and bidi characters in names and values never quote them back, chat replies included', async () => {
    const { body: agent } = await operator.post('/api/nest/agents', { name: 'fuzz-mcp' });
    const { body: key } = await operator.post(`/api/nest/agents/${agent.agentId}/keys`, { name: 'fuzz', scope: 'trade' });
    const call = (body: unknown) => rawRpc(svc.url, agent.publicId, body, bearer(key.secret));
    const listed = (await call({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).body.result.tools as Array<{
      name: string;
      inputSchema: { properties?: Record<string, unknown> };
    }>;
    expect(listed.length).toBeGreaterThan(10);
    const value = fc.oneof(hostileString, fc.jsonValue({ maxDepth: 1 }));
    // Either the tool's own argument names (reaching its handler) or any names (reaching its validation).
    const args = (tool: (typeof listed)[number]) =>
      fc.oneof(
        fc.record(Object.fromEntries(Object.keys(tool.inputSchema.properties ?? {}).map((name) => [name, hostileString])), {
          requiredKeys: [],
        }),
        fc.dictionary(fc.oneof(hostileString, fc.string({ maxLength: 12 })), value, { maxKeys: 4 }),
      );
    const chat = fc.record({ message: hostileString.map((text) => `buy 1 SOL of ${text}`), chat_id: hostileString });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.nat({ max: 10_000 }).chain((pick) => {
            const tool = listed[pick % listed.length]!;
            return args(tool).map((argumentsSent) => ({ name: tool.name, arguments: argumentsSent as Record<string, unknown> }));
          }),
          chat.map((argumentsSent) => ({ name: 'ask_bot', arguments: argumentsSent })),
          hostileString.map((name) => ({ name, arguments: {} })),
        ),
        async (params) => {
          const answer = await call({ jsonrpc: '2.0', id: 2, method: 'tools/call', params });
          // Within the key's budget, so every call reaches its tool.
          await clock.advance(2_000);
          expect(answer.status, answer.text.slice(0, 200)).toBeLessThan(500);
          expect(leaked(answer.body), `${params.name} -> ${answer.text.slice(0, 300)}`).toBeUndefined();
        },
      ),
      { numRuns: 300 },
    );
  }, 120_000);
});
