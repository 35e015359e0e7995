import type { Express, RequestHandler, Router } from 'express';
import type { ApiKeysService } from '../../src/accounts/api-keys.service.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthMiddlewareDeps } from '../../src/http/auth/auth.middleware.js';
import { openApiProblems } from '../support/openapi-lint.js';
import { createOpenApiRoutes } from '../../src/http/openapi/openapi.routes.js';
import { serviceOpenApiDocument } from '../../src/http/openapi/service-openapi.js';
import { CATALOG_SETTINGS_BINDINGS } from '../../src/http/routes/catalog-settings.bindings.js';
import { createAuthRoutes } from '../../src/http/routes/auth.routes.js';
import { OAUTH_BINDINGS } from '../../src/http/routes/oauth.bindings.js';
import { createOAuthRoutes } from '../../src/http/routes/oauth.routes.js';
import { oauthOperations } from '../../src/operations/definitions/oauth.ops.js';
import { createOperationRoutes } from '../../src/http/routes/operation.routes.js';
import { ACCOUNT_BINDINGS } from '../support/account-bindings.js';
import type { AgentsService } from '../../src/accounts/agents.service.js';
import type { BotsService } from '../../src/accounts/bots.service.js';
import { agentAdminOperations } from '../../src/operations/definitions/agent-admin.ops.js';
import { agentOperations } from '../../src/operations/definitions/agent.ops.js';
import { auditLogOperations } from '../../src/operations/definitions/audit-log.ops.js';
import { botOperations } from '../../src/operations/definitions/bot.ops.js';
import { keyOperations } from '../../src/operations/definitions/key.ops.js';
import { catalogSettingsOperations } from '../../src/operations/definitions/catalog-settings.ops.js';
import { stepUpOperations } from '../../src/operations/definitions/step-up.ops.js';
import { OperationCatalog } from '../../src/operations/operation-catalog.js';
import { Client, startTestService, type TestService } from '../support/test-service.js';
import { createTestApp } from '../support/http-harness.js';

type Doc = { paths: Record<string, Record<string, any>> };

describe('OpenAPI and docs routes (service)', () => {
  let svc: TestService;
  let doc: Doc;
  beforeAll(async () => {
    svc = await startTestService({ env: { PUBLIC_RATE_LIMIT_PER_MINUTE: '60' } });
    doc = (await new Client(svc.url).get('/api/nest/openapi.json')).body;
  });
  afterAll(() => svc.stop());

  it('serves a valid OpenAPI 3.1 document with every catalog binding, as a public rate-limited route', async () => {
    const response = await new Client(svc.url).get('/api/nest/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('x-ratelimit-limit')).toBe('60');
    expect(openApiProblems(response.body)).toEqual([]);
    for (const binding of ACCOUNT_BINDINGS) {
      // An operation bound twice (a key of an agent or of a bot) gets a numbered id the second time.
      expect(doc.paths[binding.path.replace(/:(\w+)/g, '{$1}')]?.[binding.method]?.operationId).toMatch(
        new RegExp(`^${binding.operation}(_\\d+)?$`),
      );
    }
  });

  it('describes the OAuth endpoints in the RFCs’ shapes, and an agent’s grants beside its keys', () => {
    const token = doc.paths['/oauth/token']?.post;
    expect(Object.keys(token?.requestBody.content ?? {})).toEqual(['application/x-www-form-urlencoded']);
    expect(Object.keys(token?.responses['400'].content['application/json'].schema.properties)).toEqual(['error', 'error_description']);
    expect(Object.keys(doc.paths['/oauth/authorize']?.get.responses ?? {})).toEqual(['302', '400', '429']);
    for (const [path, method] of [
      ['/.well-known/oauth-authorization-server', 'get'],
      ['/.well-known/oauth-protected-resource/mcp/{publicId}', 'get'],
      ['/oauth/register', 'post'],
      ['/oauth/revoke', 'post'],
      ['/api/nest/agents/{agentId}/oauth-grants', 'get'],
      ['/api/nest/agents/{agentId}/oauth-grants/{grantId}', 'delete'],
    ] as const)
      expect(doc.paths[path]?.[method]?.responses, `${method} ${path}`).toBeDefined();
  });

  it('serves the docs page: the renderer from this service only, under a CSP that allows nothing else', async () => {
    const response = await fetch(`${svc.url}/api/nest/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).not.toContain('unsafe');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const page = await response.text();
    for (const src of [...page.matchAll(/<script src="([^"]+)"/g)].map((match) => match[1]!)) {
      expect((await fetch(`${svc.url}${src}`)).status).toBe(200);
    }
    expect(page).toContain('src="/api/nest/docs/assets/swagger-ui-bundle.js"');
  });

  it('documents only routes the service serves: none of them falls through to “Cannot METHOD /path”', async () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of Object.keys(item)) {
        const concrete = path.replace(/\{(\w+)\}/g, 'x');
        // The ops router answers 401 to strangers on any path under it, so ops routes are probed with the token.
        const headers: Record<string, string> = path.startsWith('/api/nest/ops/') ? { authorization: `Bearer ${svc.opsToken}` } : {};
        const response = await fetch(`${svc.url}${concrete}`, {
          method: method.toUpperCase(),
          headers: method === 'get' ? headers : { ...headers, 'content-type': 'application/json' },
          ...(method === 'get' ? {} : { body: '{}' }),
        });
        const text = await response.text();
        const message = response.headers.get('content-type')?.includes('json')
          ? (JSON.parse(text) as { message?: unknown }).message
          : undefined;
        expect({ method, path, message }).not.toEqual({ method, path, message: `Cannot ${method.toUpperCase()} ${concrete}` });
      }
    }
  });
});

describe('OpenAPI coverage of the REST routers', () => {
  /** Method and OpenAPI path of every route mounted in an express 5 app, nested routers included. */
  function servedRoutes(app: Express): string[] {
    const found: string[] = [];
    const walk = (stack: any[]) => {
      for (const layer of stack) {
        if (layer.route)
          for (const method of Object.keys(layer.route.methods))
            found.push(`${method} ${String(layer.route.path).replace(/:(\w+)/g, '{$1}')}`);
        else if (Array.isArray(layer.handle?.stack)) walk(layer.handle.stack);
      }
    };
    walk((app as unknown as { router: { stack: any[] } }).router.stack);
    return found;
  }

  it('documents every route of the auth and OAuth routers and every catalog binding (agents, bots, audit logs, OAuth grants, ops)', () => {
    // Building routers only wires middleware; nothing here is called.
    const none = {} as never;
    const pass: RequestHandler = (_req, _res, next) => next();
    const auth = { resolver: none, csrf: none, limiter: none, publicLimit: pass } as AuthMiddlewareDeps;
    const catalog = svcCatalog();
    const routers: Router[] = [
      createAuthRoutes({ auth, resolver: none, csrf: none, wallet: none, users: none, sessions: none, totp: none, cookies: none }),
      createOAuthRoutes({ issuer: 'http://127.0.0.1', grants: none, tokens: none, clients: none, agents: none, publicLimit: pass }),
      createOperationRoutes({ auth, invoker: none, accounts: none, bindings: BINDINGS, opsToken: 'ops' }),
      createOpenApiRoutes({ catalog, bindings: BINDINGS, publicLimit: pass }),
    ];
    const served = servedRoutes(createTestApp({ routers }).app);
    expect(served.length).toBeGreaterThan(40);
    const documented = serviceOpenApiDocument(catalog, BINDINGS) as Doc;
    expect(served).toContain('post /oauth/token');
    const missing = served.filter((route) => {
      const [method, path] = route.split(' ') as [string, string];
      // CORS preflights of the OAuth endpoints answer browsers, not API clients.
      if (method === 'options') return false;
      return documented.paths[path]?.[method] === undefined;
    });
    expect(missing).toEqual([]);
  });
});

const BINDINGS = [...ACCOUNT_BINDINGS, ...CATALOG_SETTINGS_BINDINGS, ...OAUTH_BINDINGS];

/** The service's operations, with handlers that never run here. */
function svcCatalog(): OperationCatalog {
  const catalog = new OperationCatalog().register(
    ...agentOperations({} as Parameters<typeof agentOperations>[0]),
    ...keyOperations({} as ApiKeysService),
    ...agentAdminOperations({} as AgentsService),
    ...botOperations({} as BotsService, {} as ApiKeysService),
    ...stepUpOperations({} as never),
    ...auditLogOperations({} as never),
    ...oauthOperations({} as never),
  );
  return catalog.register(...catalogSettingsOperations(catalog, {} as never));
}
