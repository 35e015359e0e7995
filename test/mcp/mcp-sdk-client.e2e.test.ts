/**
 * The official MCP SDK client against the real service: connect (initialize + initialized),
 * list tools per scope, call a tool, and a revoked key's refusal.
 */
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION as SDK_LATEST } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LATEST_PROTOCOL_VERSION } from '../../src/mcp/mcp-wire.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { Operator, rawRpc } from '../support/mcp-fixtures.js';

describe('MCP endpoint with the official SDK client (e2e)', () => {
  let svc: TestService;
  let operator: Operator;
  let agent: { agentId: string; publicId: string };
  const keys: Record<'read' | 'trade' | 'manage', { keyId: string; secret: string }> = {} as never;
  const open: McpClient[] = [];

  beforeAll(async () => {
    svc = await startTestService();
    operator = await Operator.signIn(svc);
    agent = await operator.agent('sdk-agent');
    for (const scope of ['read', 'trade', 'manage'] as const) keys[scope] = await operator.agentKey(agent.agentId, scope);
  });
  afterAll(async () => {
    await Promise.all(open.map((client) => client.close()));
    await svc.stop();
  });

  async function connect(secret: string, publicId = agent.publicId): Promise<McpClient> {
    const client = new McpClient({ name: 'sdk-e2e', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp/${publicId}`), {
      requestInit: { headers: { Authorization: `Bearer ${secret}` } },
    });
    await client.connect(transport);
    open.push(client);
    return client;
  }

  it('pins the SDK latest protocol revision', () => {
    expect(LATEST_PROTOCOL_VERSION).toBe(SDK_LATEST);
  });

  it('connects with an agent key and negotiates the latest revision', async () => {
    const client = await connect(keys.read.secret);
    expect(client.getServerVersion()).toMatchObject({ name: 'agent-runtime-service' });
    expect(client.getServerCapabilities()).toEqual({
      tools: { listChanged: false },
      resources: { listChanged: false },
      extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
    });
    await expect(client.ping()).resolves.toEqual({});
  });

  it('lists only the tools the key may call: read sees fewer than trade and manage', async () => {
    const names = async (scope: 'read' | 'trade' | 'manage') => {
      const client = await connect(keys[scope].secret);
      const all: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : {});
        all.push(...page.tools.map((tool) => tool.name));
        cursor = page.nextCursor;
      } while (cursor);
      return all;
    };
    const [read, trade, manage] = [await names('read'), await names('trade'), await names('manage')];
    expect(read).toContain('agent_status');
    expect(read).not.toContain('agent_pause');
    expect(read.some((name) => name.startsWith('agent_keys_'))).toBe(false);
    expect(manage).toEqual(
      expect.arrayContaining(['agent_status', 'agent_pause', 'agent_keys_list', 'agent_keys_create', 'agent_keys_revoke']),
    );
    expect(read.length).toBeLessThan(manage.length);
    expect(read.every((name) => trade.includes(name))).toBe(true);
    expect(trade.every((name) => manage.includes(name))).toBe(true);
  });

  it('describes tools with JSON Schemas from the operations (input, output, annotations)', async () => {
    const { tools } = await (await connect(keys.manage.secret)).listTools();
    const status = tools.find((tool) => tool.name === 'agent_status')!;
    expect(status.inputSchema).toMatchObject({ type: 'object', properties: {} });
    // A successful result or a refusal (`isError`): the client checks both against it.
    expect(status.outputSchema).toMatchObject({
      type: 'object',
      anyOf: [
        { type: 'object', required: expect.arrayContaining(['agentId', 'publicId', 'status']) },
        { type: 'object', required: ['code', 'message', 'retryable'] },
      ],
    });
    expect(status.annotations).toEqual({ readOnlyHint: true, idempotentHint: true });
    const list = tools.find((tool) => tool.name === 'agent_keys_list')!;
    expect(list.inputSchema).toMatchObject({ type: 'object', properties: { limit: { type: 'integer', default: 50 } } });
  });

  it('calls agent_status: text content, structured content, isError false', async () => {
    const result = await (await connect(keys.read.secret)).callTool({ name: 'agent_status', arguments: {} });
    expect(result.isError).toBe(false);
    const content = result.content as { type: string; text: string }[];
    expect(content).toHaveLength(1);
    expect(content[0]!.type).toBe('text');
    expect(JSON.parse(content[0]!.text)).toMatchObject({ agentId: agent.agentId, publicId: agent.publicId, status: 'active' });
    expect(result.structuredContent).toMatchObject({ agentId: agent.agentId, status: 'active', tradingEnabled: expect.any(Boolean) });
  });

  it('a manage key calls a manage tool through the SDK', async () => {
    const result = await (await connect(keys.manage.secret)).callTool({ name: 'agent_keys_list', arguments: { limit: 10 } });
    expect(result.isError).toBe(false);
    const items = (result.structuredContent as { items: { keyId: string }[] }).items;
    expect(items.map((item) => item.keyId)).toEqual(expect.arrayContaining([keys.read.keyId, keys.manage.keyId]));
  });

  it('a refusal of a tool with an output schema reaches the SDK client as a result, not a schema error', async () => {
    const client = await connect(keys.manage.secret);
    await client.listTools(); // the client checks results against the output schemas it has listed
    const result = await client.callTool({ name: 'agent_keys_revoke', arguments: { keyId: 'key_doesnotexist0000' } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({ code: 'RESOURCE_NOT_FOUND', message: expect.any(String), retryable: false });
    expect((result.content as { text: string }[])[0]!.text).toBe((result.structuredContent as { message: string }).message);
  });

  it('a revoked key gets 401 at once, for the SDK and for raw requests', async () => {
    const doomed = await operator.agentKey(agent.agentId, 'read', 'doomed');
    const client = await connect(doomed.secret);
    await operator.revokeAgentKey(agent.agentId, doomed.keyId);
    const refused = await client.listTools().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StreamableHTTPError);
    expect((refused as StreamableHTTPError).code).toBe(401);
    const fresh = await connect(doomed.secret).catch((error: unknown) => error);
    expect((fresh as StreamableHTTPError).code).toBe(401);
    const raw = await rawRpc(
      svc.url,
      agent.publicId,
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { authorization: `Bearer ${doomed.secret}` },
    );
    expect(raw).toMatchObject({ status: 401, body: { jsonrpc: '2.0', id: 1, error: { code: -32001, message: 'Unauthorized' } } });
    // The bearer scheme, and where an OAuth client finds the agent's authorization server.
    expect(raw.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="http://agents.test/.well-known/oauth-protected-resource/mcp/${agent.publicId}"`,
    );
  });

  it('GET (standalone SSE stream) and DELETE (session end) are 405; the SDK takes the GET refusal and sends no DELETE without a session', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${svc.url}/mcp/${agent.publicId}`, {
        method,
        headers: { authorization: `Bearer ${keys.read.secret}` },
      });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST, OPTIONS');
      expect(await response.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32005, message: 'Method not allowed' } });
    }
    const client = await connect(keys.read.secret);
    await expect((client.transport as StreamableHTTPClientTransport).terminateSession()).resolves.toBeUndefined();
  });
});
