import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import type { AuditEntry } from '../../src/operations/audit.types.js';
import { digestArguments } from '../../src/operations/operation-invoker.js';
import { Client, signInSolana, startTestService, type HttpResult, type TestService } from '../support/test-service.js';
import { codeAt } from '../support/totp-codes.js';
import { bearer, rawRpc } from '../support/mcp-fixtures.js';

describe('audit trail (e2e)', () => {
  const clock = new ManualClock(Date.now());
  let svc: TestService;
  let alice: Client;
  let bob: Client;
  let aliceId: string;
  let bobId: string;
  let agentId: string;
  /** Every secret the calls below handle; none may appear in an audit entry. */
  const secrets: string[] = [];

  beforeAll(async () => {
    svc = await startTestService({ clock });
    alice = new Client(svc.url);
    const session = await signInSolana(alice);
    aliceId = session.user.id;
    secrets.push(session.accessToken, session.refreshToken, alice.csrf!);
    bob = new Client(svc.url);
    bobId = (await signInSolana(bob)).user.id;
    agentId = (await alice.post('/api/nest/agents', { name: 'Audited' })).body.agentId;
  });
  afterAll(() => svc.stop());

  /** One clock second per call, so newest-first order is exact. */
  const tick = () => clock.advance(1000);
  /** Entries are recorded when the response closes and written in batches. */
  async function entries(subject: string): Promise<AuditEntry[]> {
    await new Promise((resolve) => setImmediate(resolve));
    await svc.service.operations.audit.flush();
    const all: AuditEntry[] = [];
    let cursor: string | undefined;
    do {
      const page = await svc.service.operations.audit.list(subject, cursor ? { limit: 200, cursor } : { limit: 200 });
      all.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    return all;
  }
  const of = (list: AuditEntry[], response: HttpResult) => list.filter((entry) => entry.requestId === response.headers.get('x-request-id'));
  const everywhere = async () => [...(await entries(`agent:${agentId}`)), ...(await entries('none'))];

  it('records a catalog call through REST once, from the invoker, with subject, scope and ids', async () => {
    await tick();
    const paused = await alice.post(`/api/nest/agents/${agentId}/pause`, {}, { 'x-correlation-id': 'corr-pause-1' });
    expect(paused.status).toBe(200);
    expect(of(await everywhere(), paused)).toEqual([
      {
        at: clock.now(),
        surface: 'rest',
        operation: 'agent_pause',
        principal: { type: 'session', id: aliceId },
        scope: 'manage',
        subject: `agent:${agentId}`,
        argsDigest: digestArguments({}),
        outcome: 'ok',
        latencyMs: expect.any(Number),
        requestId: paused.headers.get('x-request-id'),
        correlationId: 'corr-pause-1',
      },
    ]);
  });

  it('keeps secrets out: step-up and a manage key leave only digests, the token not even in those', async () => {
    const enrolled = await alice.post('/api/nest/auth/totp/enroll');
    secrets.push(enrolled.body.secret);
    await alice.post('/api/nest/auth/totp/activate', { code: await codeAt(enrolled.body.secret, clock) });
    await clock.advance(30_000);
    const stepUp = await alice.post(`/api/nest/agents/${agentId}/control/mcp/step-up`, { code: await codeAt(enrolled.body.secret, clock) });
    const stepUpToken: string = stepUp.body.stepUpToken;
    await tick();
    const key = await alice.post(`/api/nest/agents/${agentId}/keys`, { name: 'admin', scope: 'manage', stepUpToken });
    expect(key.status).toBe(201);
    secrets.push(stepUpToken, key.body.secret);

    const all = await everywhere();
    expect(of(all, stepUp)).toEqual([expect.objectContaining({ operation: 'step_up_issue', subject: `agent:${agentId}`, outcome: 'ok' })]);
    const [created] = of(all, key);
    expect(created).toMatchObject({ operation: 'agent_keys_create', outcome: 'ok', subject: `agent:${agentId}` });
    // The token is removed before digesting: any other token gives the same digest.
    expect(created!.argsDigest).toBe(digestArguments({ name: 'admin', scope: 'manage', stepUpToken: 'something else' }));
    const json = JSON.stringify(all);
    for (const secret of secrets) expect(json).not.toContain(secret);
  });

  it('records sign-in calls outside the catalog and every catalog call, refused ones included: principal, key prefix and scope, outcome; never unmatched paths', async () => {
    const key = (await alice.post(`/api/nest/agents/${agentId}/keys`, { name: 'runtime', scope: 'trade' })).body;
    secrets.push(key.secret);
    const software = new Client(svc.url);
    software.bearer = key.secret;
    const verified = await software.post('/api/nest/auth/verify');
    const madeDefault = await alice.put(`/api/nest/agents/${agentId}/default`);
    const badNonce = await new Client(svc.url).post('/api/nest/auth/nonce', { walletAddress: 'not-a-wallet' });
    const intruder = await bob.post(`/api/nest/agents/${agentId}/pause`);
    const read = await alice.get(`/api/nest/agents/${agentId}`);
    const unmatched = await alice.post('/api/nest/nothing-here');
    expect([verified.status, madeDefault.status, badNonce.status, intruder.status, unmatched.status]).toEqual([200, 200, 400, 404, 404]);

    const all = await everywhere();
    expect(of(all, verified)).toEqual([
      expect.objectContaining({
        operation: 'POST /api/nest/auth/verify',
        principal: { type: 'agent-key', id: key.keyId },
        credentialPrefix: key.prefix,
        scope: 'trade',
        outcome: 'ok',
        argsDigest: digestArguments({}),
      }),
    ]);
    expect(of(all, madeDefault)).toEqual([
      expect.objectContaining({ operation: 'agent_default_set', subject: `agent:${agentId}`, scope: 'manage', outcome: 'ok' }),
    ]);
    expect(of(all, badNonce)).toEqual([
      expect.objectContaining({
        operation: 'POST /api/nest/auth/nonce',
        principal: { type: 'anonymous', id: expect.any(String) },
        outcome: 'error',
        error: '400',
      }),
    ]);
    // Refused before the operation ran (not bob's agent): recorded, but not in the owner's log (no subject).
    const [refused] = of(all, intruder);
    expect(refused).toMatchObject({
      operation: 'agent_pause',
      principal: { type: 'session', id: bobId },
      outcome: 'error',
      error: 'RESOURCE_NOT_FOUND',
    });
    expect(refused!.subject).toBeUndefined();
    // A catalog read is recorded as its MCP twin is; a path no route serves is not.
    expect(of(all, read)).toEqual([expect.objectContaining({ operation: 'agent_get', subject: `agent:${agentId}`, outcome: 'ok' })]);
    expect(of(all, unmatched)).toEqual([]);
  });

  it('records every MCP call, protocol methods included, with their JSON-RPC error code when refused', async () => {
    await tick();
    const agent = (await alice.post('/api/nest/agents', { name: 'Chatty' })).body as { agentId: string; publicId: string };
    const { secret } = (await alice.post(`/api/nest/agents/${agent.agentId}/keys`, { name: 'reader', scope: 'read' })).body as {
      secret: string;
    };
    const call = (message: Record<string, unknown>) => rawRpc(svc.url, agent.publicId, { jsonrpc: '2.0', ...message }, bearer(secret));
    const answers = [
      await call({
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
      }),
      await call({ method: 'notifications/initialized' }),
      await call({ id: 2, method: 'tools/list' }),
      await call({ id: 3, method: 'ping' }),
      await call({ id: 4, method: 'prompts/list' }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 202, 200, 200, 200]);
    const logged = await entries(`agent:${agent.agentId}`);
    const byRequest = (answer: (typeof answers)[number]) =>
      logged.filter((entry) => entry.requestId === answer.headers.get('x-request-id'));
    expect(
      answers.map((answer) => byRequest(answer).map((entry) => [entry.surface, entry.operation, entry.outcome, entry.error, entry.scope])),
    ).toEqual([
      [['mcp', 'initialize', 'ok', undefined, 'read']],
      [['mcp', 'notifications/initialized', 'ok', undefined, 'read']],
      [['mcp', 'tools/list', 'ok', undefined, 'read']],
      [['mcp', 'ping', 'ok', undefined, 'read']],
      [['mcp', 'prompts/list', 'error', '-32601', 'read']],
    ]);
  });

  it('records an MCP tools/call refused for its rate budget, with the code, before anything ran', async () => {
    await tick();
    const agent = (await alice.post('/api/nest/agents', { name: 'Thrifty' })).body as { agentId: string; publicId: string };
    const { secret } = (await alice.post(`/api/nest/agents/${agent.agentId}/keys`, { name: 'reader', scope: 'read' })).body as {
      secret: string;
    };
    for (let i = 0; i < 120; i++)
      expect((await rawRpc(svc.url, agent.publicId, { jsonrpc: '2.0', id: i, method: 'ping' }, bearer(secret))).status).toBe(200);
    const refused = await rawRpc(
      svc.url,
      agent.publicId,
      { jsonrpc: '2.0', id: 'x', method: 'tools/call', params: { name: 'agent_status', arguments: {} } },
      bearer(secret),
    );
    expect(refused.status).toBe(429);
    const logged = (await entries(`agent:${agent.agentId}`)).filter((entry) => entry.requestId === refused.headers.get('x-request-id'));
    expect(logged).toEqual([
      expect.objectContaining({
        surface: 'mcp',
        operation: 'agent_status',
        outcome: 'error',
        error: 'RATE_LIMITED',
        scope: 'read',
        argsDigest: digestArguments({}),
      }),
    ]);
  });

  it('serves a bot’s MCP logs to its owner only, marked deprecated, paged newest first', async () => {
    const botId: string = (await alice.post('/api/nest/bots', { name: 'Logged bot' })).body.id;
    const calls: Array<[string, string, unknown?]> = [
      ['PATCH', `/api/nest/bots/${botId}`, { description: 'one' }],
      ['PUT', `/api/nest/bots/${botId}/mcp`, { granularErrors: true }],
      ['POST', `/api/nest/bots/${botId}/mcp/keys`, { name: 'reader', scope: 'read' }],
      ['POST', `/api/nest/bots/${botId}/mcp/token`, {}],
    ];
    let keyId = '';
    for (const [method, path, body] of calls) {
      await tick();
      const response = await alice.request(method, path, body);
      expect(response.status).toBeLessThan(300);
      if (response.body.secret) secrets.push(response.body.secret);
      keyId ||= response.body.keyId ?? '';
    }
    await tick();
    await alice.delete(`/api/nest/bots/${botId}/mcp/keys/${keyId}`);
    expect((await alice.patch(`/api/nest/bots/${botId}`, {})).status).toBe(400);
    await entries('none');

    const operations: string[] = [];
    const times: number[] = [];
    let path = `/api/nest/bots/${botId}/mcp/logs?limit=2`;
    for (;;) {
      const page = await alice.get(path);
      expect(page).toMatchObject({ status: 200, body: { items: expect.any(Array) } });
      expect(page.headers.get('deprecation')).toBe('true');
      expect(page.headers.get('link')).toBe('</api/nest/agents>; rel="successor-version"');
      for (const item of page.body.items) {
        expect(item).toMatchObject({
          surface: 'rest',
          principal: { type: 'session', id: aliceId },
          subject: `bot:${botId}`,
          outcome: 'ok',
          argsDigest: expect.stringMatching(/^[0-9a-f]{64}$/),
        });
        operations.push(item.operation);
        times.push(Date.parse(item.at));
      }
      expect(JSON.stringify(page.body)).not.toMatch(new RegExp(secrets.map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')));
      if (!page.body.nextCursor) break;
      expect(page.body.items).toHaveLength(2);
      path = `/api/nest/bots/${botId}/mcp/logs?limit=2&cursor=${encodeURIComponent(page.body.nextCursor)}`;
    }
    expect(operations).toEqual(['agent_keys_revoke', 'bot_token_rotate', 'agent_keys_create', 'bot_mcp_config_set', 'bot_update']);
    expect(times).toEqual([...times].sort((a, b) => b - a));

    expect(await bob.get(`/api/nest/bots/${botId}/mcp/logs`)).toMatchObject({ status: 404, body: { message: 'Bot not found' } });
    expect((await new Client(svc.url).get(`/api/nest/bots/${botId}/mcp/logs`)).status).toBe(401);
    expect((await alice.get(`/api/nest/bots/${botId}/mcp/logs?limit=0`)).status).toBe(400);
  });

  it('serves an agent’s log to its owner only, newest first', async () => {
    const log = await alice.get(`/api/nest/agents/${agentId}/logs?limit=200`);
    expect(log.status).toBe(200);
    const operations = log.body.items.map((item: { operation: string }) => item.operation);
    expect(operations).toEqual(expect.arrayContaining(['agent_pause', 'agent_keys_create', 'agent_default_set']));
    expect(operations.indexOf('agent_keys_create')).toBeLessThan(operations.indexOf('agent_pause'));
    expect(log.body.items[0].at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await bob.get(`/api/nest/agents/${agentId}/logs`)).toMatchObject({ status: 404, body: { message: 'Agent not found' } });
  });
});
