/**
 * The families each scope is promised over MCP: `read`
 * reads the agent's own MCP call log; `manage` lists, creates (read and trade only), revokes and
 * rotates the agent's keys, lowers its scope cap and configures trading. Lower scopes do not
 * see these tools and are refused with the scope error; every call is audited.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, Operator, rawRpc } from '../support/mcp-fixtures.js';
import { Client, evmWallet, startTestService, type TestService } from '../support/test-service.js';

type Scope = 'read' | 'trade' | 'manage';
const MANAGE_KEY_OWNER_ONLY = "A manage key can only be created or rotated by the agent's owner";

describe('MCP scope families: call logs (read), keys and agent management (manage)', () => {
  let svc: TestService;
  let operator: Operator;
  let agent: { agentId: string; publicId: string };
  let other: { agentId: string; publicId: string; secret: string };
  const keys = {} as Record<Scope, { keyId: string; secret: string }>;
  let id = 0;

  const rpc = (secret: string, method: string, params: Record<string, unknown> = {}, publicId = agent.publicId) =>
    rawRpc(svc.url, publicId, { jsonrpc: '2.0', id: ++id, method, params }, bearer(secret));
  const call = (secret: string, name: string, args: Record<string, unknown> = {}, publicId = agent.publicId) =>
    rpc(secret, 'tools/call', { name, arguments: args }, publicId);
  /** The structured result of a successful call (fails the test otherwise). */
  const ok = async (secret: string, name: string, args: Record<string, unknown> = {}) => {
    const answer = await call(secret, name, args);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.result?.isError, answer.text).toBe(false);
    return answer.body.result.structuredContent;
  };
  const toolNames = async (secret: string): Promise<string[]> => {
    const answer = await rpc(secret, 'tools/list');
    expect(answer.status).toBe(200);
    return answer.body.result.tools.map((tool: { name: string }) => tool.name);
  };
  /** The agent's audit trail as its owner reads it, once the entries so far were written. */
  const ownerLog = async () => {
    await svc.service.operations.audit.flush();
    const { status, body } = await operator.client.get(`/api/nest/agents/${agent.agentId}/logs?limit=200`);
    expect(status).toBe(200);
    return body.items as { operation: string; outcome: string; error?: string; surface: string; credentialPrefix?: string }[];
  };

  beforeAll(async () => {
    svc = await startTestService();
    operator = await Operator.signIn(svc);
    agent = await operator.agent('families');
    for (const scope of ['read', 'trade', 'manage'] as const) keys[scope] = await operator.agentKey(agent.agentId, scope);
    const second = await operator.agent('neighbour');
    other = { ...second, secret: (await operator.agentKey(second.agentId, 'read', 'neighbour-read')).secret };
  });
  afterAll(async () => {
    await svc.stop();
  });

  it('tools/list: read sees the call log and the risk checks, only manage sees key rotation and the scope cap', async () => {
    const [read, trade, manage] = [
      await toolNames(keys.read.secret),
      await toolNames(keys.trade.secret),
      await toolNames(keys.manage.secret),
    ];
    for (const names of [read, trade, manage])
      expect(names).toEqual(expect.arrayContaining(['agent_mcp_logs_list', 'trading_preflight', 'trading_token_risk_report']));
    const manageOnly = ['agent_keys_list', 'agent_keys_create', 'agent_keys_revoke', 'agent_keys_rotate', 'agent_scope_cap_lower'];
    expect(manage).toEqual(expect.arrayContaining([...manageOnly, 'trading_config_risk_policy_set', 'agent_trading_set']));
    for (const names of [read, trade]) for (const name of manageOnly) expect(names).not.toContain(name);
    // Operator-only tools stay off MCP.
    expect(manage).not.toContain('audit_log_list');
    expect(manage).not.toContain('agent_control_scopes_set');
  });

  it('lower scopes calling a manage tool get the scope error', async () => {
    for (const scope of ['read', 'trade'] as const) {
      for (const [name, args] of [
        ['agent_keys_rotate', {}],
        ['agent_scope_cap_lower', { maxScope: 'read' }],
        ['agent_keys_create', { name: 'x', scope: 'read' }],
      ] as const) {
        const answer = await call(keys[scope].secret, name, args);
        expect(answer.status).toBe(403);
        expect(answer.body.error).toEqual({ code: -32003, message: `Scope insufficient: required manage, got ${scope}` });
      }
    }
  });

  it("a read key reads its agent's MCP calls, and only those: not another agent's, not the owner's REST calls", async () => {
    await ok(keys.read.secret, 'agent_status');
    await call(keys.read.secret, 'agent_pause'); // refused for its scope: in the log too
    await call(other.secret, 'agent_status', {}, other.publicId); // another agent's call
    expect((await operator.client.get(`/api/nest/agents/${agent.agentId}/keys`)).status).toBe(200); // the owner, over REST
    expect(await ownerLog()).toEqual(expect.arrayContaining([expect.objectContaining({ operation: 'agent_keys_list', surface: 'rest' })]));
    const log = await ok(keys.read.secret, 'agent_mcp_logs_list', { limit: 200 });
    const items = log.items as {
      operation: string;
      surface: string;
      subject: string;
      outcome: string;
      error?: string;
      credentialPrefix?: string;
    }[];
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((entry) => entry.surface === 'mcp' && entry.subject === `agent:${agent.agentId}`)).toBe(true);
    expect(items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ operation: 'agent_status', outcome: 'ok', credentialPrefix: keys.read.secret.slice(0, 13) }),
        expect.objectContaining({ operation: 'agent_pause', outcome: 'error', error: 'AUTHORIZATION_FAILED' }),
      ]),
    );
    // The neighbour's log holds its own calls and none of this agent's keys.
    const theirs = await rpc(other.secret, 'tools/call', { name: 'agent_mcp_logs_list', arguments: {} }, other.publicId);
    const prefixes = new Set(
      theirs.body.result.structuredContent.items.map((entry: { credentialPrefix?: string }) => entry.credentialPrefix),
    );
    expect(prefixes.has(keys.read.secret.slice(0, 13))).toBe(false);
    expect(prefixes.has(other.secret.slice(0, 13))).toBe(true);
  });

  it('a call to a tool named with control or bidi characters is logged with them escaped, never quoted back', async () => {
    await call(keys.read.secret, 'no\u001bc\u202etool');
    const log = await ok(keys.read.secret, 'agent_mcp_logs_list', { limit: 20 });
    const operations = (log.items as { operation: string }[]).map((entry) => entry.operation);
    expect(operations).toContain('no\\u001bc\\u202etool');
    expect(operations.some((name) => name.includes(String.fromCharCode(0x1b, 0x63)) || name.includes(String.fromCharCode(0x202e)))).toBe(
      false,
    );
  });

  it("an identity token reads its own agent's MCP calls, and no other agent's", async () => {
    const anon = new Client(svc.url);
    const wallet = evmWallet();
    const { body: nonce } = await anon.post('/api/nest/auth/evm/nonce', {});
    const message = wallet.message(nonce.nonce, new Date());
    const onboarded = await anon.post('/api/public/erc8004/onboarding/siwe', {
      message,
      signature: await wallet.sign(message),
      scope: 'read',
    });
    expect(onboarded.status).toBe(201);
    const { accessToken, publicId, agentId, jti } = onboarded.body;
    await call(accessToken, 'agent_status', {}, publicId);
    const log = await call(accessToken, 'agent_mcp_logs_list', {}, publicId);
    const items = log.body.result.structuredContent.items as {
      operation: string;
      subject: string;
      principal: { type: string; id: string };
    }[];
    expect(items.map((entry) => entry.operation)).toContain('agent_status');
    expect(items.every((entry) => entry.subject === `agent:${agentId}`)).toBe(true);
    expect(items.every((entry) => entry.principal.type === 'identity-token' && entry.principal.id === jti)).toBe(true);
    // Another agent's publicId is not its to read.
    expect((await call(accessToken, 'agent_mcp_logs_list', {}, agent.publicId)).status).toBe(404);
  });

  it('pages the call log with a cursor, newest first, without repeating an entry', async () => {
    const first = await ok(keys.read.secret, 'agent_mcp_logs_list', { limit: 2 });
    expect(first.items).toHaveLength(2);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await ok(keys.read.secret, 'agent_mcp_logs_list', { limit: 2, cursor: first.nextCursor });
    const ids = [...first.items, ...second.items].map((entry: { requestId: string; at: string }) => `${entry.requestId}|${entry.at}`);
    expect(new Set(ids).size).toBe(ids.length);
    expect(Date.parse(first.items[0].at)).toBeGreaterThanOrEqual(Date.parse(second.items[0].at));
  });

  it('a manage key lists keys and creates read and trade keys (secret once), never a manage key', async () => {
    const listed = await ok(keys.manage.secret, 'agent_keys_list', { limit: 50 });
    expect(listed.items.map((item: { keyId: string }) => item.keyId)).toEqual(
      expect.arrayContaining([keys.read.keyId, keys.trade.keyId, keys.manage.keyId]),
    );
    expect(JSON.stringify(listed)).not.toContain(keys.read.secret);

    const created = await ok(keys.manage.secret, 'agent_keys_create', { name: 'made-over-mcp', scope: 'trade' });
    expect(created).toMatchObject({ scope: 'trade', status: 'active', secret: expect.stringMatching(/^mcpk_[A-Za-z0-9_-]{43}$/) });
    expect(await toolNames(created.secret)).toContain('trading_preflight');

    for (const stepUpToken of [undefined, 'forged-step-up-token']) {
      const refused = await call(keys.manage.secret, 'agent_keys_create', {
        name: 'escalation',
        scope: 'manage',
        ...(stepUpToken ? { stepUpToken } : {}),
      });
      expect(refused.status).toBe(200);
      expect(refused.body.result.isError).toBe(true);
      expect(refused.body.result.content[0].text).toBe(MANAGE_KEY_OWNER_ONLY);
      expect(refused.body.result.structuredContent).toEqual({
        code: 'AUTHORIZATION_FAILED',
        message: MANAGE_KEY_OWNER_ONLY,
        retryable: false,
      });
    }
    const after = await ok(keys.manage.secret, 'agent_keys_list', { limit: 50 });
    expect(after.items.some((item: { name: string }) => item.name === 'escalation')).toBe(false);

    const revoked = await ok(keys.manage.secret, 'agent_keys_revoke', { keyId: created.keyId });
    expect(revoked).toMatchObject({ keyId: created.keyId, status: 'revoked' });
    expect((await rpc(created.secret, 'tools/list')).status).toBe(401);
  });

  it('a manage key rotates read and trade keys (new secrets once, old keys stop), never a manage key', async () => {
    const named = await call(keys.manage.secret, 'agent_keys_rotate', { keyId: keys.manage.keyId });
    expect(named.body.result.isError).toBe(true);
    expect(named.body.result.content[0].text).toBe(MANAGE_KEY_OWNER_ONLY);
    expect(named.body.result.structuredContent).toEqual({ code: 'AUTHORIZATION_FAILED', message: MANAGE_KEY_OWNER_ONLY, retryable: false });

    const one = await ok(keys.manage.secret, 'agent_keys_rotate', { keyId: keys.read.keyId });
    expect(one.keys).toHaveLength(1);
    expect(one.keys[0]).toMatchObject({ replaces: keys.read.keyId, scope: 'read', name: 'read-key', secret: expect.any(String) });
    expect((await rpc(keys.read.secret, 'tools/list')).status).toBe(401);
    expect(await toolNames(one.keys[0].secret)).toContain('agent_mcp_logs_list');
    keys.read = { keyId: one.keys[0].keyId, secret: one.keys[0].secret };

    const all = await ok(keys.manage.secret, 'agent_keys_rotate', { graceSeconds: 60 });
    expect(all.keys.map((key: { scope: string }) => key.scope).sort()).toEqual(['read', 'trade']);
    expect(all.keys.map((key: { replaces: string }) => key.replaces).sort()).toEqual([keys.read.keyId, keys.trade.keyId].sort());
    // The grace period: the replaced keys still work for a minute; the manage key was left alone.
    expect((await rpc(keys.trade.secret, 'tools/list')).status).toBe(200);
    expect(await toolNames(keys.manage.secret)).toContain('agent_keys_rotate');
  });

  it('a manage key configures trading; a trade key may not change the risk policy', async () => {
    const policy = await ok(keys.manage.secret, 'trading_config_risk_policy_set', { maxOrderUsd: 500 });
    expect(policy).toMatchObject({ maxOrderUsd: 500 });
    const refused = await call(keys.trade.secret, 'trading_config_risk_policy_set', { maxOrderUsd: 5000 });
    expect(refused.body.error).toEqual({ code: -32003, message: 'Scope insufficient: required manage, got trade' });
    expect(await ok(keys.manage.secret, 'agent_trading_set', { enabled: true })).toMatchObject({ tradingEnabled: true });
  });

  it('a manage key lowers the scope cap: from then on it acts as trade, and cannot raise it back', async () => {
    const raised = await call(keys.manage.secret, 'agent_scope_cap_lower', { maxScope: 'manage' });
    expect(raised.body.error).toMatchObject({ code: -32602 });
    expect(await ok(keys.manage.secret, 'agent_scope_cap_lower', { maxScope: 'trade' })).toEqual({
      agentId: agent.agentId,
      maxScope: 'trade',
    });
    const names = await toolNames(keys.manage.secret);
    expect(names).not.toContain('agent_scope_cap_lower');
    expect(names).toContain('trading_preflight');
    const refused = await call(keys.manage.secret, 'agent_scope_cap_lower', { maxScope: 'read' });
    expect(refused.body.error).toEqual({ code: -32003, message: 'Scope insufficient: required manage, got trade' });
  });

  it('every management call is in the audit trail, refusals with their code', async () => {
    const log = await ownerLog();
    const manage = keys.manage.secret.slice(0, 13);
    const byManage = log.filter((entry) => entry.credentialPrefix === manage && entry.surface === 'mcp');
    const outcome = (operation: string, result: string, error?: string) =>
      expect(byManage).toEqual(
        expect.arrayContaining([expect.objectContaining({ operation, outcome: result, ...(error ? { error } : {}) })]),
      );
    outcome('agent_keys_list', 'ok');
    outcome('agent_keys_create', 'ok');
    outcome('agent_keys_create', 'error', 'AUTHORIZATION_FAILED');
    outcome('agent_keys_revoke', 'ok');
    outcome('agent_keys_rotate', 'ok');
    outcome('agent_keys_rotate', 'error', 'AUTHORIZATION_FAILED');
    outcome('trading_config_risk_policy_set', 'ok');
    outcome('agent_scope_cap_lower', 'ok');
    outcome('agent_scope_cap_lower', 'error', 'AUTHORIZATION_FAILED');
  });
});
