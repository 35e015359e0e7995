/**
 * Due jobs through the catalog: a key's expiry, an order's approval expiry and a
 * DCA tick each run as a `system` operation through the invoker, so each leaves an audit
 * entry with the system principal (the job's id), and each still does what it did. Those
 * operations are the service's own: no REST route, no MCP tool, no other principal may call them.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import type { AuditEntry } from '../../src/operations/audit.types.js';
import type { Viewer } from '../../src/operations/operation-catalog.js';
import type { PrincipalKind } from '../../src/operations/operation.types.js';
import { startFundedOperator } from '../support/dca-service.js';
import { bearer, rawRpc } from '../support/mcp-fixtures.js';
import { Client, signInSolana, type TestService } from '../support/test-service.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const SYSTEM_OPERATIONS = [
  'dca_end',
  'dca_tick',
  'erc8004_ownership_check',
  'identity_token_expire',
  'key_expire',
  'oauth_grant_expire',
  'order_expire',
  'portfolio_value_sample',
];

describe('due jobs as system operations (e2e)', () => {
  // Near real time: a manage key's step-up checks a TOTP code of the real time.
  const clock = new ManualClock(Date.now());
  const running: TestService[] = [];
  let setUp: Awaited<ReturnType<typeof startFundedOperator>>;
  beforeAll(async () => {
    setUp = await startFundedOperator(clock, {}, running);
  });
  afterAll(async () => {
    for (const svc of running.splice(0)) await svc.stop();
  });

  /** The service's own audit entries (due jobs act on no agent or bot: subject `none`), after a flush. */
  async function systemEntries(operation: string): Promise<AuditEntry[]> {
    const audit = setUp.svc.service.operations.audit;
    await audit.flush();
    return (await audit.list('none', { limit: 500 })).items.filter((entry) => entry.operation === operation);
  }

  // First, while the driven clock is still near real time (the step-up of a manage key).
  it('the system operations are the service’s own: only the system principal may call them, on no surface', async () => {
    const { svc, operator, agent } = setUp;
    const { catalog, invoker, bindings } = svc.service.operations;
    const system = catalog.all().filter((operation) => operation.principals.includes('system'));
    expect(system.map((operation) => operation.name).sort()).toEqual(SYSTEM_OPERATIONS);
    for (const operation of system) expect(operation.principals).toEqual(['system']);
    expect(bindings.filter((binding) => SYSTEM_OPERATIONS.includes(binding.operation))).toEqual([]);

    // Through the invoker, as every surface calls it: hidden from every other principal kind, whatever its scope.
    const input = { keyId: 'none', at: 0, dueAt: 0 };
    for (const kind of ['agent', 'bot', 'operator', 'ops'] as PrincipalKind[]) {
      const viewer: Viewer = { kind, scope: 'manage' };
      expect(catalog.visibleTo(viewer).map((operation) => operation.name)).not.toContain('key_expire');
      const ctx = {
        principal: { type: 'ops' as const },
        scope: 'manage' as const,
        surface: 'rest' as const,
        requestId: 'r',
        correlationId: 'r',
      };
      await expect(invoker.invoke({ name: 'key_expire', input, ctx, viewer })).rejects.toMatchObject({
        kind: 'not_found',
        message: 'Tool not found: key_expire',
      });
    }

    // Over MCP with a manage key: not listed, and a call is an unknown tool.
    const manage = await operator.agentKey(agent.agentId, 'manage');
    const list = await rawRpc(svc.url, agent.publicId, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, bearer(manage.secret));
    const names = (list.body.result.tools as Array<{ name: string }>).map((tool) => tool.name);
    expect(names).toContain('agent_keys_list');
    for (const name of SYSTEM_OPERATIONS) expect(names).not.toContain(name);
    // A call answers exactly as a tool that does not exist does, and changes nothing.
    const callTool = (name: string) =>
      rawRpc(
        svc.url,
        agent.publicId,
        {
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name, arguments: { keyId: manage.keyId, at: clock.now(), dueAt: clock.now() } },
        },
        bearer(manage.secret),
      );
    const call = await callTool('key_expire');
    expect(call.body).toEqual((await callTool('no_such_tool')).body);
    expect(call.body.error).toBeDefined();
    expect((await svc.service.runtime.get({ type: 'api-key', id: manage.keyId }))?.state).toBe('active');

    // Over REST with the ops token: no route.
    const ops = await fetch(`${svc.url}/api/nest/ops/key_expire`, { method: 'POST', headers: { authorization: `Bearer ${svc.opsToken}` } });
    expect(ops.status).toBe(404);
  });
  it('a due key expiry, order expiry and DCA tick each leave a system audit entry and do what they did', async () => {
    const { svc, operator, agent, http, orders } = setUp;
    // --- a key, a held order, a strategy ---
    const key = await operator.agentKey(agent.agentId, 'read');
    const verify = (secret: string) => {
      const client = new Client(svc.url);
      client.bearer = secret;
      return client.post('/api/nest/auth/verify');
    };
    expect((await verify(key.secret)).status).toBe(200);
    await http.post(`/api/nest/trading/paper/faucet/${operator.userId}`, { chain: 'solana', token: 'SOL', amount: '10' });
    expect((await http.put(`/api/nest/trading/config/${operator.userId}/default-order-profile`, { autoApprove: false })).status).toBe(200);
    const held = await http.post('/api/nest/trading/command', { message: 'buy 0.1 SOL of BONK' }, { 'x-idempotency-key': randomUUID() });
    expect(held.body.order).toMatchObject({ status: 'pending_approval' });
    const orderId = held.body.order.order_id as string;
    expect((await http.put(`/api/nest/trading/config/${operator.userId}/default-order-profile`, { autoApprove: true })).status).toBe(200);
    const strategy = await http.post(`/api/nest/trading/strategies/${operator.userId}`, {
      name: 'due',
      inputToken: 'USDC',
      outputToken: 'SOL',
      amount: '5',
      interval: 'every 1 minutes',
    });
    expect(strategy.status).toBe(201);
    const strategyId = strategy.body.strategyId as string;

    // --- the DCA tick: one minute on, one filled buy ---
    await clock.advance(MINUTE);
    await expect
      .poll(async () => (await orders()).filter((o) => o.strategy === 'due').map((o) => o.status), { timeout: 5_000 })
      .toEqual(['filled']);
    await expect.poll(async () => (await systemEntries('dca_tick')).length, { timeout: 5_000 }).toBeGreaterThan(0);
    const [tick] = await systemEntries('dca_tick');
    expect(tick).toMatchObject({
      surface: 'system',
      principal: { type: 'system', id: `dca:${strategyId}` },
      scope: 'manage',
      outcome: 'ok',
    });
    expect(tick!.subject).toBeUndefined();

    // --- the order's approval window (15 minutes) ends: expired ---
    clock.jumpTo(clock.now() + 15 * MINUTE);
    await clock.advance(1_000);
    await expect.poll(async () => (await orders()).find((o) => o.order_id === orderId)?.status, { timeout: 5_000 }).toBe('expired');
    // The audit entry is written once the operation answered, a moment after the actor's state: wait for it.
    await expect
      .poll(() => systemEntries('order_expire'), { timeout: 5_000 })
      .toEqual([
        expect.objectContaining({ surface: 'system', principal: { type: 'system', id: `order-expire:${orderId}` }, outcome: 'ok' }),
      ]);

    // --- the key's 90 days end: refused, and its actor expired ---
    await http.delete(`/api/nest/trading/strategies/${operator.userId}/due`); // no more ticks through the jump
    clock.jumpTo(clock.now() + 90 * DAY);
    await clock.advance(1_000);
    await expect
      .poll(async () => (await svc.service.runtime.get({ type: 'api-key', id: key.keyId }))?.state, { timeout: 5_000 })
      .toBe('expired');
    expect((await verify(key.secret)).status).toBe(401);
    await expect
      .poll(() => systemEntries('key_expire'), { timeout: 5_000 })
      .toEqual(
        expect.arrayContaining([
          expect.objectContaining({ surface: 'system', principal: { type: 'system', id: `key-expire:${key.keyId}` }, outcome: 'ok' }),
        ]),
      );
    await signInSolana(http, operator.wallet);
  });

  it('a due job for an actor that no longer exists is dropped with a warning, and audited as refused', async () => {
    const { svc } = setUp;
    await svc.service.dueJobs.deliver({
      id: 'key-expire:gone',
      kind: 'once',
      address: { type: 'api-key', id: 'gone' },
      event: { type: 'key.expire', at: clock.now() },
      dueAt: clock.now(),
    });
    expect(svc.logs.some((line) => line.includes('due job for a missing actor dropped') && line.includes('"gone"'))).toBe(true);
    const entries = await systemEntries('key_expire');
    expect(entries.find((entry) => entry.principal.id === 'key-expire:gone')).toMatchObject({
      outcome: 'error',
      error: 'RESOURCE_NOT_FOUND',
    });
  });
});
