import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ApiKeysService } from '../../src/accounts/api-keys.service.js';
import { createKeySchema } from '../../src/accounts/api-keys.service.js';
import { patchBotSchema } from '../../src/accounts/bots.service.js';
import { SchemaConverter } from '../../src/http/openapi/json-schema.js';
import { serviceOpenApiDocument } from '../../src/http/openapi/service-openapi.js';
import { AGENT_BINDINGS } from '../../src/http/routes/agent.bindings.js';
import { KEY_BINDINGS } from '../../src/http/routes/key.bindings.js';
import type { RestBinding } from '../../src/http/routes/operation.routes.js';
import type { AgentsService } from '../../src/accounts/agents.service.js';
import type { BotsService } from '../../src/accounts/bots.service.js';
import { agentAdminOperations } from '../../src/operations/definitions/agent-admin.ops.js';
import { auditLogOperations } from '../../src/operations/definitions/audit-log.ops.js';
import { botOperations } from '../../src/operations/definitions/bot.ops.js';
import { stepUpOperations } from '../../src/operations/definitions/step-up.ops.js';
import { agentOperations } from '../../src/operations/definitions/agent.ops.js';
import { keyOperations } from '../../src/operations/definitions/key.ops.js';
import { OperationCatalog } from '../../src/operations/operation-catalog.js';
import { defineOperation } from '../../src/operations/operation-definition.js';
import { ACCOUNT_BINDINGS } from '../support/account-bindings.js';
import { openApiProblems, resolvePointer } from '../support/openapi-lint.js';

/** The service's catalog; handlers never run here, so their dependencies are empty stand-ins. */
function serviceCatalog(): OperationCatalog {
  return new OperationCatalog().register(
    ...agentOperations({} as Parameters<typeof agentOperations>[0]),
    ...keyOperations({} as ApiKeysService),
  );
}

/** What the document should embed for a schema: zod's own conversion, without the dialect line. */
function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): any {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return rest;
}

type Doc = { paths: Record<string, Record<string, any>>; components: Record<string, any>; [key: string]: any };
/** The operator-only operations of the routes that joined the catalog (agents, bots, logs, step-up). */
function accountCatalog(catalog = serviceCatalog()): OperationCatalog {
  return catalog.register(
    ...agentAdminOperations({} as AgentsService),
    ...botOperations({} as BotsService, {} as ApiKeysService),
    ...stepUpOperations({} as never),
    ...auditLogOperations({} as never),
  );
}
const documentOf = (catalog = accountCatalog(), bindings: readonly RestBinding<string>[] = ACCOUNT_BINDINGS) =>
  serviceOpenApiDocument(catalog, bindings) as Doc;
/** The routes of `serviceCatalog`'s operations. */
const SERVICE_BINDINGS = [...AGENT_BINDINGS, ...KEY_BINDINGS];
const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

describe('OpenAPI document', () => {
  it('is structurally valid OpenAPI 3.1: responses everywhere, declared path parameters, unique ids, every $ref resolves', () => {
    const doc = documentOf();
    expect(doc.openapi).toBe('3.1.0');
    expect(openApiProblems(doc)).toEqual([]);
    // The checker does catch what it claims to.
    const broken = structuredClone(doc);
    broken.paths['/api/nest/bots/{botId}/mcp']!.get.responses = {};
    broken.paths['/api/nest/bots/{botId}/mcp']!.put.parameters = [];
    broken.components.responses.Extra = { $ref: '#/components/schemas/Missing' };
    expect(openApiProblems(broken)).toEqual([
      'GET /api/nest/bots/{botId}/mcp: no responses',
      'PUT /api/nest/bots/{botId}/mcp: path parameters  differ from template botId',
      '$ref #/components/schemas/Missing does not resolve',
    ]);
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
  });

  it('describes every catalog REST binding from the operation’s own input and output schemas', () => {
    const catalog = serviceCatalog();
    const doc = documentOf(catalog, SERVICE_BINDINGS);
    for (const binding of SERVICE_BINDINGS) {
      const operation = catalog.get(binding.operation)!;
      const described = doc.paths[openApiPath(binding.path)]?.[binding.method];
      expect(described, `${binding.method} ${binding.path}`).toBeDefined();
      expect(described).toMatchObject({ operationId: operation.name, 'x-mcp-tool': operation.name, 'x-min-scope': operation.minScope });

      // Path parameters other than agentId are fields of the input; the rest is body or query.
      const fromPath = [...binding.path.matchAll(/:(\w+)/g)].map((m) => m[1]!).filter((name) => name !== 'agentId');
      const input = jsonSchemaOf(operation.input as z.ZodObject, 'input');
      const rest = Object.keys(input.properties ?? {}).filter((name) => !fromPath.includes(name));
      if (binding.method === 'post' || binding.method === 'put') {
        const body = described.requestBody.content['application/json'].schema;
        expect(Object.keys(body.properties ?? {}).sort()).toEqual(rest.sort());
        for (const name of rest) expect(body.properties[name]).toEqual(input.properties[name]);
      } else {
        const query = (described.parameters ?? []).filter((p: { in: string }) => p.in === 'query');
        expect(query.map((p: { name: string }) => p.name).sort()).toEqual(rest.sort());
      }
      for (const name of fromPath) {
        const parameter = described.parameters.find((p: { name: string; in: string }) => p.name === name && p.in === 'path');
        // The field's description is the parameter's (beside its schema, not inside it).
        const { description, ...schema } = input.properties[name];
        expect(parameter.schema).toEqual(schema);
        expect(parameter.description).toEqual(description);
      }
      const success = described.responses[String(binding.status ?? 200)];
      expect(success.content['application/json'].schema).toEqual(jsonSchemaOf(operation.output!, 'output'));
      // Operator routes: a session, and CSRF on mutating methods.
      expect(described.security).toEqual([binding.method === 'get' ? { sessionBearer: [] } : { sessionBearer: [], csrfToken: [] }]);
    }
  });

  it('describes hand-written routes from their exported schemas, with auth, legacy and error details', () => {
    const doc = documentOf();
    const createKey = doc.paths['/api/nest/bots/{botId}/mcp/keys']!.post;
    expect(createKey.requestBody.content['application/json'].schema).toMatchObject(jsonSchemaOf(createKeySchema, 'input'));
    expect(createKey).toMatchObject({ deprecated: true, security: [{ sessionBearer: [], csrfToken: [] }] });
    expect(Object.keys(createKey.responses['201'].headers)).toEqual(expect.arrayContaining(['Deprecation', 'Link', 'X-RateLimit-Limit']));
    expect(createKey.responses['400']).toEqual({ $ref: '#/components/responses/BadRequest' });
    expect(doc.paths['/api/nest/bots/{id}']!.patch.requestBody.content['application/json'].schema).toEqual(
      jsonSchemaOf(patchBotSchema, 'input'),
    );

    expect(doc.paths['/api/nest/auth/login']!.post.security).toEqual([{ csrfToken: [], preLoginCsrfCookie: [] }]);
    expect(doc.paths['/api/nest/auth/nonce']!.post.security).toEqual([]);
    expect(doc.paths['/api/nest/auth/verify']!.post.security).toEqual([{ sessionBearer: [] }, { apiKeyBearer: [] }]);
    expect(doc.paths['/api/nest/ops/catalog']!.put.security).toEqual([{ opsBearer: [] }]);
    expect(doc.paths['/api/nest/agents/{agentId}/logs']!.get.deprecated).toBeUndefined();
    const botLogs = doc.paths['/api/nest/bots/{botId}/mcp/logs']!.get;
    expect(botLogs).toMatchObject({ deprecated: true, security: [{ sessionBearer: [] }] });
    expect(botLogs.parameters.map((p: { name: string }) => p.name)).toEqual(['botId', 'limit', 'cursor']);

    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(['StandardError', 'ValidationError', 'DomainError', 'CanonicalFailure']),
    );
    expect(doc.components.schemas.ValidationError.properties.message).toEqual({ type: 'array', items: { type: 'string' } });
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual([
      'apiKeyBearer',
      'csrfToken',
      'identityTokenBearer',
      'opsBearer',
      'preLoginCsrfCookie',
      'refreshCookie',
      'refreshToken',
      'sessionBearer',
    ]);
    expect(doc.components.parameters.IdempotencyKey).toMatchObject({ name: 'X-Idempotency-Key', in: 'header' });
  });

  it('lists the MCP tools with their input schemas, and follows the runtime catalog settings', () => {
    const catalog = serviceCatalog();
    const tools = documentOf(catalog, SERVICE_BINDINGS)['x-mcp'].tools as Array<{ name: string; inputSchema: unknown }>;
    expect(tools.map((tool) => tool.name)).toEqual(
      catalog
        .all()
        .map((op) => op.name)
        .sort(),
    );
    expect(tools.find((tool) => tool.name === 'agent_trading_set')!.inputSchema).toEqual(
      jsonSchemaOf(catalog.get('agent_trading_set')!.input, 'input'),
    );

    catalog.configure({ disabledFamilies: ['keys'], disabledOperations: ['agent_pause'] });
    const doc = documentOf(catalog, SERVICE_BINDINGS);
    expect(doc.paths['/api/nest/agents/{agentId}/pause']).toBeUndefined();
    expect(doc.paths['/api/nest/agents/{agentId}/keys']).toBeUndefined();
    expect(doc['x-mcp'].tools.map((tool: { name: string }) => tool.name)).toEqual(['agent_resume', 'agent_status', 'agent_trading_set']);
    expect(openApiProblems(doc)).toEqual([]);
  });

  it('documents a binding whose operation takes `idempotencyKey` as guarded by X-Idempotency-Key', () => {
    const catalog = serviceCatalog().register(
      defineOperation({
        name: 'test_swap',
        description: 'Swap.',
        family: 'trading',
        minScope: 'trade',
        principals: ['agent', 'operator'],
        input: z.object({ amount: z.string(), idempotencyKey: z.uuid().optional() }).strict(),
        handler: async () => ({}),
      }),
    );
    const doc = serviceOpenApiDocument(catalog, [
      ...AGENT_BINDINGS,
      ...KEY_BINDINGS,
      { method: 'post', path: '/api/nest/agents/:agentId/swap', operation: 'test_swap' },
    ]) as Doc;
    const swap = doc.paths['/api/nest/agents/{agentId}/swap']!.post;
    expect(swap.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
    expect(Object.keys(swap.requestBody.content['application/json'].schema.properties)).toEqual(['amount']);
    expect(swap.responses['200'].headers['Idempotent-Replayed']).toBeDefined();
    expect(openApiProblems(doc)).toEqual([]);
  });

  it('hoists recursive and shared zod definitions into components so their refs resolve', () => {
    const converter = new SchemaConverter();
    const node: z.ZodType<unknown> = z.lazy(() => z.object({ name: z.string(), children: z.array(node) }));
    const cat = z.object({
      name: z.string(),
      get kids() {
        return z.array(cat);
      },
    });
    const doc = {
      components: { schemas: {} as Record<string, unknown> },
      a: converter.convert(z.object({ x: node, y: node }), 'input'),
      b: converter.convert(cat, 'output'),
    };
    doc.components.schemas = converter.definitions;
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(2);
    for (const ref of refs) expect(resolvePointer(doc, JSON.parse(`{${ref}}`).$ref), ref).toBeDefined();
  });
});
