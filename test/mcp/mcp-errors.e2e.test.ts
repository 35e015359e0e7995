/**
 * Every row of the MCP and agent errors that the MCP endpoint answers, word for word, against the real
 * service (the failing-handler row is in mcp-handler.test.ts, over a catalog with a failing
 * tool), plus the HTTP-level decisions of src/mcp/mcp-errors.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/test-service.js';
import { bearer, Operator, rawRpc } from '../support/mcp-fixtures.js';

interface Row {
  row: string;
  /** Which credential and publicId: the agent's read key unless said otherwise. */
  as?: 'read' | 'manage' | 'none' | 'other-agent-key' | 'bot-default' | 'bot-granular' | 'session';
  publicId?: 'agent' | 'unknown' | 'malformed' | 'bot-default' | 'bot-granular';
  body: unknown;
  status: number;
  id?: string | number | null;
  error: { code: number; message: string; data?: unknown };
}

const call = (name: string, args: unknown = {}) => ({ jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name, arguments: args } });

const ROWS: Row[] = [
  { row: 'malformed JSON', body: '{"jsonrpc":"2.0","id":1,', status: 400, id: null, error: { code: -32700, message: 'Parse error' } },
  { row: 'empty body', body: '', status: 400, id: null, error: { code: -32700, message: 'Parse error' } },
  { row: 'missing jsonrpc', body: { id: 1, method: 'ping' }, status: 400, id: 1, error: { code: -32600, message: 'Invalid request' } },
  {
    row: 'wrong jsonrpc',
    body: { jsonrpc: '1.0', id: 1, method: 'ping' },
    status: 400,
    id: 1,
    error: { code: -32600, message: 'Invalid request' },
  },
  { row: 'missing method', body: { jsonrpc: '2.0', id: 2 }, status: 400, id: 2, error: { code: -32600, message: 'Invalid request' } },
  {
    row: 'missing id (not a notification method)',
    body: { jsonrpc: '2.0', method: 'tools/list' },
    status: 400,
    id: null,
    error: { code: -32600, message: 'Invalid request' },
  },
  {
    row: 'null id',
    body: { jsonrpc: '2.0', id: null, method: 'ping' },
    status: 400,
    id: null,
    error: { code: -32600, message: 'Invalid request' },
  },
  {
    row: 'batch',
    body: [{ jsonrpc: '2.0', id: 1, method: 'ping' }],
    status: 400,
    id: null,
    error: { code: -32600, message: 'Invalid request' },
  },
  {
    row: 'unknown method',
    body: { jsonrpc: '2.0', id: 'm', method: 'prompts/list' },
    status: 200,
    id: 'm',
    error: { code: -32601, message: 'Method not found' },
  },
  {
    row: 'unknown tool (default mode)',
    body: call('no_such_tool'),
    status: 200,
    id: 11,
    error: { code: -32601, message: 'Method not found' },
  },
  {
    row: 'hidden tool (default mode, bot)',
    as: 'bot-default',
    publicId: 'bot-default',
    body: call('agent_status'),
    status: 200,
    id: 11,
    error: { code: -32601, message: 'Method not found' },
  },
  {
    row: 'hidden tool (granular mode, bot)',
    as: 'bot-granular',
    publicId: 'bot-granular',
    body: call('agent_status'),
    status: 200,
    id: 11,
    error: { code: -32601, message: 'Tool not found: agent_status' },
  },
  {
    row: 'unknown tool (granular mode, bot)',
    as: 'bot-granular',
    publicId: 'bot-granular',
    body: call('no_such_tool'),
    status: 200,
    id: 11,
    error: { code: -32601, message: 'Tool not found: no_such_tool' },
  },
  {
    row: 'missing argument',
    as: 'manage',
    body: call('agent_trading_set', {}),
    status: 200,
    id: 11,
    error: { code: -32602, message: 'INVALID_PARAMS: enabled is required' },
  },
  {
    row: 'missing argument of fixed values',
    as: 'manage',
    body: call('trading_evm_approval_record', {
      token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      spender: '0x000000000000000000000000000000000000dEaD',
      amount: '1',
      idempotencyKey: '0b7a4c62-2d0e-4b8e-9a51-5c1f3f6d2a10',
    }),
    status: 200,
    id: 11,
    error: { code: -32602, message: 'INVALID_PARAMS: chain is required' },
  },
  {
    row: 'wrongly typed argument',
    as: 'manage',
    body: call('agent_trading_set', { enabled: 'yes' }),
    status: 200,
    id: 11,
    error: { code: -32602, message: 'INVALID_PARAMS: enabled must be boolean' },
  },
  {
    row: 'missing tool name',
    body: { jsonrpc: '2.0', id: 3, method: 'tools/call', params: {} },
    status: 200,
    id: 3,
    error: { code: -32602, message: 'INVALID_PARAMS: name is required' },
  },
  {
    row: 'unknown publicId',
    publicId: 'unknown',
    body: call('agent_status'),
    status: 404,
    id: 11,
    error: { code: -32004, message: 'Agent not found' },
  },
  {
    row: 'malformed publicId',
    publicId: 'malformed',
    body: call('agent_status'),
    status: 404,
    id: 11,
    error: { code: -32004, message: 'Agent not found' },
  },
  {
    row: 'key of another agent',
    as: 'other-agent-key',
    body: call('agent_status'),
    status: 404,
    id: 11,
    error: { code: -32004, message: 'Agent not found' },
  },
  {
    row: 'operator session token (valid, not served here)',
    as: 'session',
    body: call('agent_status'),
    status: 403,
    id: 11,
    error: { code: -32003, message: 'Forbidden' },
  },
  {
    row: 'no Authorization header',
    as: 'none',
    body: call('agent_status'),
    status: 401,
    id: 11,
    error: { code: -32001, message: 'Unauthorized' },
  },
  {
    row: 'scope too low',
    body: call('agent_pause'),
    status: 403,
    id: 11,
    error: { code: -32003, message: 'Scope insufficient: required manage, got read' },
  },
];

describe('MCP and agent errors (e2e)', () => {
  let svc: TestService;
  let agent: { agentId: string; publicId: string };
  const secrets: Record<string, string> = {};
  const publicIds: Record<string, string> = { unknown: 'pub_doesNotExist000', malformed: 'not-a-public-id' };

  beforeAll(async () => {
    svc = await startTestService();
    const alice = await Operator.signIn(svc);
    agent = await alice.agent('errors');
    publicIds.agent = agent.publicId;
    secrets.read = (await alice.agentKey(agent.agentId, 'read')).secret;
    secrets.manage = (await alice.agentKey(agent.agentId, 'manage')).secret;
    secrets.session = alice.client.bearer!;
    const other = await alice.agent('other');
    secrets['other-agent-key'] = (await alice.agentKey(other.agentId, 'read')).secret;
    for (const [name, mcp] of [
      ['bot-default', {}],
      ['bot-granular', { granularErrors: true }],
    ] as const) {
      const bot = await alice.botWithKey(mcp);
      secrets[name] = bot.secret;
      publicIds[name] = bot.publicId;
    }
  });
  afterAll(() => svc.stop());

  it.each(ROWS)('$row → $status $error.code $error.message', async (row) => {
    const auth = row.as === 'none' ? {} : bearer(secrets[row.as ?? 'read']!);
    const answer = await rawRpc(svc.url, publicIds[row.publicId ?? 'agent']!, row.body, auth);
    expect(answer.status).toBe(row.status);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.body).toEqual({ jsonrpc: '2.0', id: row.id ?? null, error: row.error });
  });

  it('Request entity too large: a body over 1 MiB is 400 and the connection stays usable', async () => {
    const huge = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(1024 * 1024) } });
    const answer = await rawRpc(svc.url, agent.publicId, huge, bearer(secrets.read!));
    expect(answer).toMatchObject({
      status: 400,
      body: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Request entity too large' } },
    });
    const chunked = await fetch(`${svc.url}/mcp/${agent.publicId}`, {
      method: 'POST',
      headers: bearer(secrets.read!),
      body: new Blob([huge]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(400);
    expect((await chunked.json()).error.message).toBe('Request entity too large');
    const justUnder = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping', params: { pad: 'x'.repeat(1024 * 1024 - 100) } });
    expect((await rawRpc(svc.url, agent.publicId, justUnder, bearer(secrets.read!))).body).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });

  it('a domain failure of a real tool is a result with isError true: the message as text, the refusal as structured content', async () => {
    const answer = await rawRpc(svc.url, agent.publicId, call('agent_resume'), bearer(secrets.manage!));
    expect(answer.status).toBe(200);
    expect(answer.body.result).toEqual({
      content: [{ type: 'text', text: 'Agent cannot be resumed (agent is active)' }],
      structuredContent: { code: 'RESOURCE_CONFLICT', message: 'Agent cannot be resumed (agent is active)', retryable: false },
      isError: true,
    });
  });

  it('notifications get 202 without a body, whatever their name', async () => {
    for (const method of ['notifications/initialized', 'notifications/cancelled', 'notifications/whatever']) {
      const answer = await rawRpc(svc.url, agent.publicId, { jsonrpc: '2.0', method }, bearer(secrets.read!));
      expect(answer.status).toBe(202);
      expect(answer.text).toBe('');
    }
  });

  it('stateless: tools/list and tools/call work without initialize, and answers carry ids and rate-limit headers', async () => {
    const answer = await rawRpc(svc.url, agent.publicId, call('agent_status'), { ...bearer(secrets.read!), 'x-request-id': 'trace-1' });
    expect(answer.status).toBe(200);
    expect(answer.body.result.structuredContent).toMatchObject({ agentId: agent.agentId });
    expect(answer.headers.get('x-request-id')).toBe('trace-1');
    for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'])
      expect(answer.headers.get(name)).toMatch(/^\d+$/);
    expect(answer.headers.get('x-ratelimit-limit')).toBe('120');
  });

  it('a read key over 120 requests a minute gets 429 with Retry-After (budget shared with REST)', async () => {
    const alice = await Operator.signIn(svc);
    const { agentId, publicId } = await alice.agent('limited');
    const { secret } = await alice.agentKey(agentId, 'read');
    const ping = () => rawRpc(svc.url, publicId, { jsonrpc: '2.0', id: 1, method: 'ping' }, bearer(secret));
    // Fixed one-minute windows: start well inside one, so the 121st hit lands in the same window.
    const toBoundary = 60_000 - (Date.now() % 60_000);
    if (toBoundary < 5_000) await new Promise((resolve) => setTimeout(resolve, toBoundary + 100));
    const answers = await Promise.all(Array.from({ length: 120 }, ping));
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    const refused = await ping();
    expect(refused).toMatchObject({ status: 429, body: { jsonrpc: '2.0', id: 1, error: { code: -32029, message: 'Too Many Requests' } } });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const rest = await fetch(`${svc.url}/api/nest/auth/verify`, { method: 'POST', headers: bearer(secret) });
    expect(rest.status).toBe(429);
  });

  it('GET /.well-known/mcp.json describes the endpoint, transport, auth and scopes', async () => {
    const response = await fetch(`${svc.url}/.well-known/mcp.json`);
    expect(response.status).toBe(200);
    const doc = await response.json();
    expect(doc).toMatchObject({
      endpoint: 'http://agents.test/mcp/{publicId}',
      transport: { type: 'streamable-http', stateless: true },
      protocolVersions: expect.arrayContaining(['2025-11-25', '2025-06-18']),
      capabilities: { tools: { listChanged: false } },
      // Only what the service accepts today: identity access tokens come with ERC-8004 onboarding.
      authentication: {
        scheme: 'bearer',
        credentials: [
          { type: 'agent-api-key', prefix: 'mcpk_' },
          {
            type: 'identity-access-token',
            jwksUri: 'http://agents.test/.well-known/jwks.json',
            audience: 'http://agents.test/mcp',
            lifetimeSeconds: { read: 3600, trade: 300 },
          },
        ],
      },
      scopes: { read: { rateLimit: { perMinute: 120, perHour: 3000 } }, trade: {}, manage: {} },
      events: { sse: 'http://agents.test/mcp/{publicId}/events/sse', websocket: 'ws://agents.test/mcp/{publicId}/events/ws' },
    });
    // The per-IP budget of public routes (raised by the test service; see public-rate-limit.e2e.test.ts).
    expect(response.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
  });
});
