/**
 * The 2026-07-28 revision beside 2025-11-25 and 2025-06-18, chosen per request: the MCP SDK
 * 2 client (which speaks it: `server/discover`, then stateless requests with the `_meta`
 * envelope and routing headers) against the real service, and raw requests for what that
 * client never sends (headers that disagree with the body, a malformed envelope).
 */
import { Client as Sdk2Client, SdkError, StreamableHTTPClientTransport as Sdk2Transport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/test-service.js';
import { bearer, Operator, rawRpc } from '../support/mcp-fixtures.js';

const REVISION = '2026-07-28';
const envelope = {
  'io.modelcontextprotocol/protocolVersion': REVISION,
  'io.modelcontextprotocol/clientInfo': { name: 'raw-e2e', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const routed = (method: string, name?: string) => ({
  'mcp-protocol-version': REVISION,
  'mcp-method': method,
  ...(name === undefined ? {} : { 'mcp-name': name }),
});

describe('MCP 2026-07-28 (e2e)', () => {
  let svc: TestService;
  let operator: Operator;
  let agent: { agentId: string; publicId: string };
  const keys: Record<'read' | 'manage', { keyId: string; secret: string }> = {} as never;
  const open: Sdk2Client[] = [];

  beforeAll(async () => {
    svc = await startTestService();
    operator = await Operator.signIn(svc);
    agent = await operator.agent('rev-2026-agent');
    for (const scope of ['read', 'manage'] as const) keys[scope] = await operator.agentKey(agent.agentId, scope);
  });
  afterAll(async () => {
    await Promise.all(open.map((client) => client.close()));
    await svc.stop();
  });

  async function connect(secret: string, mode: 'auto' | { pin: string } = { pin: REVISION }): Promise<Sdk2Client> {
    const client = new Sdk2Client({ name: 'sdk2-e2e', version: '2.0.0' }, { versionNegotiation: { mode } });
    const transport = new Sdk2Transport(new URL(`${svc.url}/mcp/${agent.publicId}`), {
      requestInit: { headers: { Authorization: `Bearer ${secret}` } },
    });
    await client.connect(transport);
    open.push(client);
    return client;
  }

  it('the SDK 2 client pinned to 2026-07-28 discovers, lists and calls tools statelessly with an agent key', async () => {
    const client = await connect(keys.read.secret);
    expect(client.getNegotiatedProtocolVersion()).toBe(REVISION);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('agent_status');
    expect(tools.map((tool) => tool.name)).not.toContain('agent_pause');
    const result = await client.callTool({ name: 'agent_status', arguments: {} });
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toMatchObject({ agentId: agent.agentId });
    // A scope the key lacks: refused by the server whatever the revision.
    await expect(client.callTool({ name: 'agent_pause', arguments: {} })).rejects.toThrow(/Scope insufficient: required manage, got read/);
  });

  it("the SDK 2 client in 'auto' mode picks 2026-07-28 over initialize", async () => {
    const client = await connect(keys.manage.secret, 'auto');
    expect(client.getNegotiatedProtocolVersion()).toBe(REVISION);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('agent_pause');
  });

  it('server/discover names every revision; tools/list is cacheable per credential (ttlMs, cacheScope private)', async () => {
    const discover = await rawRpc(
      svc.url,
      agent.publicId,
      { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: envelope } },
      { ...bearer(keys.read.secret), ...routed('server/discover') },
    );
    expect(discover.status).toBe(200);
    expect(discover.body.result).toMatchObject({
      supportedVersions: ['2026-07-28', '2025-11-25', '2025-06-18'],
      capabilities: { tools: {} },
      resultType: 'complete',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'agent-runtime-service' } },
    });
    const list = await rawRpc(
      svc.url,
      agent.publicId,
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: envelope } },
      { ...bearer(keys.read.secret), ...routed('tools/list') },
    );
    expect(list.body.result).toMatchObject({ ttlMs: 30_000, cacheScope: 'private', resultType: 'complete' });
    // initialize is not part of the stateless revision.
    const handshake = await rawRpc(
      svc.url,
      agent.publicId,
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'initialize',
        params: { protocolVersion: REVISION, capabilities: {}, clientInfo: { name: 'x', version: '1' }, _meta: envelope },
      },
      { ...bearer(keys.read.secret), ...routed('initialize') },
    );
    expect(handshake.body.error).toEqual({ code: -32601, message: 'Method not found' });
  });

  it('refuses routing headers that disagree with the body (400 -32020) and a malformed envelope (400 -32602)', async () => {
    const call = { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'agent_status', arguments: {}, _meta: envelope } };
    const cases: Array<[Record<string, string>, unknown, number, RegExp]> = [
      [{ 'mcp-method': 'tools/call', 'mcp-name': 'agent_status' }, call, -32020, /^Header mismatch: MCP-Protocol-Version/],
      [{ ...routed('tools/call', 'agent_status'), 'mcp-protocol-version': '2025-11-25' }, call, -32020, /MCP-Protocol-Version/],
      [routed('tools/list', 'agent_status'), call, -32020, /^Header mismatch: Mcp-Method must be "tools\/call"/],
      [routed('tools/call', 'agent_pause'), call, -32020, /^Header mismatch: Mcp-Name must be "agent_status"/],
      [routed('tools/call'), call, -32020, /Mcp-Name/],
      [
        routed('tools/list'),
        { jsonrpc: '2.0', id: 5, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': REVISION } } },
        -32602,
        /^INVALID_PARAMS: _meta\.io\.modelcontextprotocol\/clientCapabilities is required/,
      ],
      [
        routed('tools/list'),
        { jsonrpc: '2.0', id: 5, method: 'tools/list' },
        -32602,
        /protocolVersion is required for protocol revision 2026-07-28/,
      ],
    ];
    for (const [headers, body, code, message] of cases) {
      const answer = await rawRpc(svc.url, agent.publicId, body, { ...bearer(keys.read.secret), ...headers });
      expect(answer.status, JSON.stringify(headers)).toBe(400);
      expect(answer.body.id).toBe(5);
      expect(answer.body.error.code).toBe(code);
      expect(answer.body.error.message).toMatch(message);
    }
    // A name that is not plain ASCII travels base64-encoded in its header.
    const encoded = await rawRpc(
      svc.url,
      agent.publicId,
      { ...call, params: { ...call.params, name: 'agent_statüs' } },
      { ...bearer(keys.read.secret), ...routed('tools/call', `=?base64?${Buffer.from('agent_statüs').toString('base64')}?=`) },
    );
    expect(encoded.status).toBe(200);
    expect(encoded.body.error).toEqual({ code: -32601, message: 'Method not found' });
  });

  it('answers an envelope naming a revision it does not speak with 400 -32022 and the ones it does', async () => {
    const answer = await rawRpc(
      svc.url,
      agent.publicId,
      {
        jsonrpc: '2.0',
        id: 6,
        method: 'tools/list',
        params: { _meta: { ...envelope, 'io.modelcontextprotocol/protocolVersion': '2027-01-01' } },
      },
      { ...bearer(keys.read.secret), 'mcp-protocol-version': '2027-01-01', 'mcp-method': 'tools/list' },
    );
    expect(answer.status).toBe(400);
    expect(answer.body.error).toEqual({
      code: -32022,
      message: 'Unsupported protocol version',
      data: { supported: ['2026-07-28', '2025-11-25', '2025-06-18'], requested: '2027-01-01' },
    });
  });

  it('keeps 2025 requests as they were: no envelope, no routing headers, no cache fields', async () => {
    for (const version of ['2025-11-25', '2025-06-18', undefined]) {
      const answer = await rawRpc(
        svc.url,
        agent.publicId,
        { jsonrpc: '2.0', id: 7, method: 'tools/list' },
        { ...bearer(keys.read.secret), ...(version ? { 'mcp-protocol-version': version } : {}) },
      );
      expect(answer.status).toBe(200);
      expect(answer.body.result.ttlMs).toBeUndefined();
      expect(answer.body.result.resultType).toBeUndefined();
    }
    const initialize = await rawRpc(
      svc.url,
      agent.publicId,
      {
        jsonrpc: '2.0',
        id: 8,
        method: 'initialize',
        params: { protocolVersion: REVISION, capabilities: {}, clientInfo: { name: 'old', version: '1' } },
      },
      bearer(keys.read.secret),
    );
    // A 2025 handshake asking for the stateless revision is offered the latest 2025 one.
    expect(initialize.body.result.protocolVersion).toBe('2025-11-25');
    const discover = await rawRpc(svc.url, agent.publicId, { jsonrpc: '2.0', id: 9, method: 'server/discover' }, bearer(keys.read.secret));
    expect(discover.body.error).toEqual({ code: -32601, message: 'Method not found' });
  });

  it('an unauthenticated 2026-07-28 request is a 401 the SDK 2 client reports as such', async () => {
    const client = new Sdk2Client({ name: 'sdk2-e2e', version: '2.0.0' }, { versionNegotiation: { mode: { pin: REVISION } } });
    const transport = new Sdk2Transport(new URL(`${svc.url}/mcp/${agent.publicId}`));
    const failure = await client.connect(transport).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SdkError);
    expect(String((failure as Error).message)).toMatch(/401/);
  });
  it('tools/list follows the scope cap at once (each request is answered fresh)', async () => {
    const send = async (method: string, params: Record<string, unknown> = {}) =>
      (
        await rawRpc(
          svc.url,
          agent.publicId,
          { jsonrpc: '2.0', id: 4, method, params: { ...params, _meta: envelope } },
          { ...bearer(keys.manage.secret), ...routed(method, params.name as string | undefined) },
        )
      ).body.result;
    const names = async () => (await send('tools/list')).tools.map((tool: { name: string }) => tool.name) as string[];
    const before = await names();
    expect(before).toContain('agent_keys_list');
    expect(await send('tools/call', { name: 'agent_scope_cap_lower', arguments: { maxScope: 'trade' } })).toMatchObject({
      isError: false,
      structuredContent: { maxScope: 'trade' },
    });
    const capped = await names();
    expect(capped).not.toContain('agent_keys_list');
    expect(capped).toContain('agent_status');
    expect(capped.every((name) => before.includes(name))).toBe(true);
  });
});
