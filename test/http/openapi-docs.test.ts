import { describe, expect, it } from 'vitest';
import type { ApiKeysService } from '../../src/accounts/api-keys.service.js';
import type { BotsService } from '../../src/accounts/bots.service.js';
import { DOCS_ASSET_PATH, DocsPage } from '../../src/http/openapi/docs-page.js';
import { serviceOpenApiDocument } from '../../src/http/openapi/service-openapi.js';
import type { AgentsService } from '../../src/accounts/agents.service.js';
import { agentAdminOperations } from '../../src/operations/definitions/agent-admin.ops.js';
import { agentOperations } from '../../src/operations/definitions/agent.ops.js';
import { auditLogOperations } from '../../src/operations/definitions/audit-log.ops.js';
import { stepUpOperations } from '../../src/operations/definitions/step-up.ops.js';
import { botOperations } from '../../src/operations/definitions/bot.ops.js';
import { keyOperations } from '../../src/operations/definitions/key.ops.js';
import { OperationCatalog } from '../../src/operations/operation-catalog.js';
import { ACCOUNT_BINDINGS } from '../support/account-bindings.js';
import { openApiProblems } from '../support/openapi-lint.js';

type Doc = { paths: Record<string, Record<string, any>>; tags: { name: string }[]; 'x-mcp': { tools: any[] } };

function documentOf(catalog: OperationCatalog): Doc {
  return serviceOpenApiDocument(catalog, ACCOUNT_BINDINGS) as unknown as Doc;
}

/** Handlers never run here. */
function catalog(): OperationCatalog {
  return new OperationCatalog().register(
    ...agentOperations({} as Parameters<typeof agentOperations>[0]),
    ...keyOperations({} as ApiKeysService),
    ...botOperations({} as BotsService, {} as ApiKeysService),
    ...agentAdminOperations({} as AgentsService),
    ...stepUpOperations({} as never),
    ...auditLogOperations({} as never),
  );
}

describe('MCP tools in the OpenAPI document', () => {
  const doc = documentOf(catalog());

  it('lists every tool as a documented tools/call under its own tag, with the tool’s input schema as arguments', () => {
    expect(doc.tags.map((tag) => tag.name)).toContain('MCP tools');
    const tools = doc['x-mcp'].tools;
    expect(tools.length).toBeGreaterThan(5);
    for (const tool of tools) {
      const operation = doc.paths[`/mcp/{publicId}#${tool.name}`]?.post;
      expect(operation?.tags, tool.name).toEqual(['MCP tools']);
      expect(operation['x-mcp-tool']).toBe(tool.name);
      expect(operation.security).toEqual([{ apiKeyBearer: [] }, { identityTokenBearer: [] }]);
      const call = operation.requestBody.content['application/json'].schema;
      expect(call.properties.method).toMatchObject({ const: 'tools/call' });
      expect(call.properties.params.properties.name).toMatchObject({ const: tool.name });
      expect(Object.keys(call.properties.params.properties.arguments.properties ?? {})).toEqual(
        Object.keys(tool.inputSchema.properties ?? {}),
      );
      expect(operation.responses['401'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/McpJsonRpcError' });
    }
    expect(doc.paths['/mcp/{publicId}']?.post?.operationId).toBe('mcp_endpoint');
    expect(openApiProblems(doc as never)).toEqual([]);
  });

  it('leaves out a tool switched off, as tools/list does', () => {
    const switchedOff = catalog();
    switchedOff.configure({ disabledFamilies: [], disabledOperations: ['agent_pause'] });
    const paths = Object.keys(documentOf(switchedOff).paths);
    expect(paths).not.toContain('/mcp/{publicId}#agent_pause');
    expect(paths).toContain('/mcp/{publicId}#agent_resume');
  });
});

describe('docs page shell', () => {
  it('loads only its own scripts and styles, runs no inline script and carries no data of the document', () => {
    const { html } = new DocsPage();
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(sources.filter((source) => !source.startsWith(`${DOCS_ASSET_PATH}/`) && source !== '/api/nest/openapi.json')).toEqual([]);
    expect(html).not.toMatch(/<script>(?!<)/);
    expect(html).not.toMatch(/\son\w+=/);
    expect(new DocsPage().asset('../package.json')).toBeUndefined();
    expect(new DocsPage().asset('swagger-ui-bundle.js')?.body.length).toBeGreaterThan(100_000);
  });
});
