/**
 * The MCP handler over its own catalog (see mcp-unit-harness.ts): failing tools, scope,
 * argument validation, hidden tools in both error modes, output shaping, paging, ids,
 * routing, protocol negotiation and rate limiting.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TOOLS_PAGE_SIZE } from '../../src/mcp/mcp-tools.js';
import { SECURITY_HEADERS } from '../../src/surface-common/security-headers.js';
import { CORRELATION_ID_HEADER, REQUEST_ID_HEADER } from '../../src/surface-common/request-ids.js';
import { defineOperation } from '../../src/operations/operation-definition.js';
import { rawRpc } from '../support/mcp-fixtures.js';
import { PUBLIC_ID, startUnitHarness, type UnitHarness } from '../support/mcp-unit-harness.js';

describe('MCP handler (own catalog)', () => {
  let h: UnitHarness;
  beforeAll(async () => {
    h = await startUnitHarness({ fillers: 120 });
  });
  afterAll(() => h.close());

  const call = (name: string, args: unknown = {}, auth = 'read', headers: Record<string, string> = {}) =>
    rawRpc(
      h.url,
      PUBLIC_ID,
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: args } },
      { authorization: `Bearer ${auth}`, ...headers },
    );
  const rpc = (method: string, params?: unknown, auth = 'read', headers: Record<string, string> = {}) =>
    rawRpc(
      h.url,
      PUBLIC_ID,
      { jsonrpc: '2.0', id: 'r1', method, ...(params === undefined ? {} : { params }) },
      { authorization: `Bearer ${auth}`, ...headers },
    );

  it('a handler that throws unexpectedly is -32603 Tool execution failed, revealing nothing', async () => {
    const answer = await call('crash_tool');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32603,
        message: 'Tool execution failed: Internal server error',
        data: { tool: 'crash_tool', reason: 'Internal server error' },
      },
    });
    expect(answer.text).not.toContain('exploded');
    expect(h.logs.some((line) => line.includes('exploded'))).toBe(true);
  });

  it('a 5xx fault is -32603 with its message as the reason', async () => {
    const reason = 'Provider unavailable: jupiter';
    expect((await call('provider_down_tool')).body.error).toEqual({
      code: -32603,
      message: `Tool execution failed: ${reason}`,
      data: { tool: 'provider_down_tool', reason },
    });
  });

  it('a 5xx refusal (kill switch, open breaker) is a result with isError true, with retryAfter when the error has one', async () => {
    const killSwitch = 'Trading kill switch is active for chain: solana';
    expect((await call('kill_switch_tool')).body.result).toEqual({
      content: [{ type: 'text', text: killSwitch }],
      structuredContent: { code: 'KILL_SWITCH_ACTIVE', message: killSwitch, retryable: false },
      isError: true,
    });
    const breaker = 'Circuit breaker open for provider: jupiter';
    expect((await call('breaker_tool')).body.result).toEqual({
      content: [{ type: 'text', text: breaker }],
      structuredContent: { code: 'CIRCUIT_BREAKER_OPEN', message: breaker, retryable: true, retryAfter: 42 },
      isError: true,
    });
  });

  it('a domain failure is a result with isError true: the message as text, {code, message, retryable} as structured content', async () => {
    const { status, body } = await call('conflict_tool');
    expect(status).toBe(200);
    expect(body.result).toEqual({
      content: [{ type: 'text', text: 'Agent cannot be paused (agent is paused)' }],
      structuredContent: { code: 'RESOURCE_CONFLICT', message: 'Agent cannot be paused (agent is paused)', retryable: false },
      isError: true,
    });
  });

  it('scope too low is HTTP 403 with the interface wording, and the request id', async () => {
    const answer = await call('trade_tool');
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32003, message: 'Scope insufficient: required trade, got read' },
    });
    expect((await call('trade_tool', {}, 'trade')).body.result.isError).toBe(false);
  });

  it('bad arguments are -32602 INVALID_PARAMS with the shared validation wording', async () => {
    expect((await call('order_approve_tool', {})).body.error).toEqual({ code: -32602, message: 'INVALID_PARAMS: order_id is required' });
    expect((await call('order_approve_tool', { order_id: 5 })).body.error.message).toBe('INVALID_PARAMS: order_id must be string');
    expect((await call('order_approve_tool', { order_id: 'o1', extra: 1 })).body.error.message).toBe(
      'INVALID_PARAMS: extra is not a known field',
    );
    expect((await call('order_approve_tool', ['o1'])).body.error.message).toBe('INVALID_PARAMS: arguments must be object');
    expect((await rpc('tools/call', { arguments: {} })).body.error).toEqual({ code: -32602, message: 'INVALID_PARAMS: name is required' });
    expect((await rpc('tools/call', ['crash_tool'])).body.error.message).toBe('INVALID_PARAMS: params must be object');
  });

  it('a hidden or unknown tool is Method not found, or Tool not found: <name> in granular mode', async () => {
    for (const name of ['bot_only_tool', 'no_such_tool']) {
      expect((await call(name)).body.error).toEqual({ code: -32601, message: 'Method not found' });
      expect((await call(name, {}, 'read:granular')).body.error).toEqual({ code: -32601, message: `Tool not found: ${name}` });
    }
  });

  it('structuredContent is the output schema’s view of the result; a result off its schema is sent as text only', async () => {
    const shaped = (await call('shape_tool')).body.result;
    expect(shaped.structuredContent).toEqual({ kept: 1 });
    expect(JSON.parse(shaped.content[0].text)).toEqual({ kept: 1, extra: 'dropped from structuredContent' });
    const wrong = (await call('wrong_output_tool')).body.result;
    expect(wrong).toEqual({ content: [{ type: 'text', text: '{"kept":"not a number"}' }], isError: false });
  });

  it('pages tools/list by an opaque cursor, TOOLS_PAGE_SIZE at a time, in name order', async () => {
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const { body } = await rpc('tools/list', cursor === undefined ? {} : { cursor });
      expect(body.result.tools.length).toBeLessThanOrEqual(TOOLS_PAGE_SIZE);
      names.push(...body.result.tools.map((tool: { name: string }) => tool.name));
      cursor = body.result.nextCursor;
      pages++;
    } while (cursor !== undefined);
    const visible = h.catalog.visibleTo({ kind: 'agent', scope: 'read' }).map((operation) => operation.name);
    expect(names).toEqual(visible);
    expect(pages).toBe(Math.max(1, Math.ceil(visible.length / TOOLS_PAGE_SIZE)));
    expect(names).not.toContain('trade_tool');
    expect((await rpc('tools/list', { cursor: 'not-a-cursor' })).body.error).toEqual({
      code: -32602,
      message: 'INVALID_PARAMS: cursor is invalid',
    });
  });

  it('hands the call context to the operation: ids, surface, idempotency key; and audits it', async () => {
    h.catalog.register(
      defineOperation({
        name: 'ctx_tool',
        description: 'echoes its context',
        family: 'agents',
        minScope: 'read',
        principals: ['agent'],
        input: z.object({ idempotencyKey: z.string().optional() }).strict(),
        handler: async (ctx) => ({
          surface: ctx.surface,
          requestId: ctx.requestId,
          correlationId: ctx.correlationId,
          key: ctx.idempotencyKey,
          subject: ctx.subject,
          userId: ctx.userId,
        }),
      }),
    );
    const answer = await call('ctx_tool', { idempotencyKey: 'k-1' }, 'read', { 'x-request-id': 'req-42', 'x-correlation-id': 'corr-9' });
    expect(answer.headers.get('x-request-id')).toBe('req-42');
    expect(answer.headers.get('x-correlation-id')).toBe('corr-9');
    // As on the REST API: no cache keeps an answer (a key's secret comes back this way).
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(JSON.parse(answer.body.result.content[0].text)).toEqual({
      surface: 'mcp',
      requestId: 'req-42',
      correlationId: 'corr-9',
      key: 'k-1',
      subject: { type: 'agent', id: 'agent_1' },
      userId: 'user_1',
    });
    expect(h.audit.find((entry) => entry.requestId === 'req-42')).toMatchObject({
      surface: 'mcp',
      operation: 'ctx_tool',
      outcome: 'ok',
      credentialPrefix: 'mcpk_unit',
    });
    const generated = await call('ctx_tool', {}, 'read', { 'x-request-id': 'bad id\twith tab' });
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('negotiates the protocol revision and refuses a revision header it does not speak', async () => {
    expect(
      (await rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } })).body.result
        .protocolVersion,
    ).toBe('2025-06-18');
    expect((await rpc('initialize', { protocolVersion: '2024-11-05' })).body.result.protocolVersion).toBe('2025-11-25');
    expect((await rpc('initialize', {})).body.error).toEqual({ code: -32602, message: 'INVALID_PARAMS: protocolVersion is required' });
    const refused = await rpc('ping', undefined, 'read', { 'mcp-protocol-version': '1999-01-01' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: -32600, message: 'Unsupported protocol version' });
    expect((await rpc('ping', undefined, 'read', { 'mcp-protocol-version': '2025-06-18' })).body.result).toEqual({});
  });

  it('takes only /mcp/<publicId> (any query string); everything else falls through', async () => {
    const statusOf = async (path: string, method = 'POST') =>
      (await fetch(`${h.url}${path}`, { method, body: method === 'POST' ? '{}' : null })).status;
    expect(await statusOf(`/mcp/${PUBLIC_ID}/events/sse`, 'GET')).toBe(418);
    expect(await statusOf('/mcp/')).toBe(418);
    expect(await statusOf('/mcpx')).toBe(418);
    expect(await statusOf(`/mcp/${PUBLIC_ID}/`)).toBe(418);
    expect(await statusOf(`/mcp/${PUBLIC_ID}?trace=1`)).toBe(401);
    const preflight = await fetch(`${h.url}/mcp/${PUBLIC_ID}`, { method: 'OPTIONS', headers: { origin: 'https://inspector.example' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('Authorization');
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('every answer, result or refusal, carries each of the security headers, the ids and no-store', async () => {
    const answers = [
      await rpc('ping'),
      await rpc('ping', undefined, 'not-a-key'),
      await rpc('ping', undefined, 'read', { 'x-request-id': 'req-1', 'x-correlation-id': 'corr-1' }),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 401, 200]);
    for (const { headers } of answers) {
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(headers.get(name)).toBe(value);
      expect(headers.get(REQUEST_ID_HEADER)).toMatch(/^[\w.:-]+$/);
      expect(headers.get('cache-control')).toBe('no-store');
    }
    expect(answers[2]!.headers.get(REQUEST_ID_HEADER)).toBe('req-1');
    expect(answers[2]!.headers.get(CORRELATION_ID_HEADER)).toBe('corr-1');
    expect(answers[0]!.headers.get(CORRELATION_ID_HEADER)).toBe(answers[0]!.headers.get(REQUEST_ID_HEADER));
  });
});

describe('MCP handler rate limiting', () => {
  let h: UnitHarness;
  beforeAll(async () => {
    h = await startUnitHarness({ perMinute: 3 });
  });
  afterAll(() => h.close());

  it('every answer carries X-RateLimit-*; over budget is 429 with Retry-After', async () => {
    const ping = () => rawRpc(h.url, PUBLIC_ID, { jsonrpc: '2.0', id: 1, method: 'ping' }, { authorization: 'Bearer trade' });
    for (let remaining = 2; remaining >= 0; remaining--) {
      const ok = await ping();
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-ratelimit-limit')).toBe('3');
      expect(ok.headers.get('x-ratelimit-remaining')).toBe(String(remaining));
      expect(Number(ok.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
    }
    const refused = await ping();
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32029, message: 'Too Many Requests' } });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
  });
});
