/**
 * A manage key's `agent_scope_cap_lower` only ever lowers the cap. Its scope check reads a
 * per-process cache: when the owner lowered the cap further on another process whose change
 * has not reached this one yet, the call still passes, and must not raise the cap back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentDefinition } from '../../machines/agent.machine.js';
import { bearer, Operator, rawRpc } from '../support/mcp-fixtures.js';
import { startTestService, type TestService } from '../support/test-service.js';

describe('agent_scope_cap_lower against a cap lowered elsewhere', () => {
  let svc: TestService;
  let operator: Operator;
  let agent: { agentId: string; publicId: string };
  let id = 0;

  const rpc = (secret: string, method: string, params: Record<string, unknown> = {}) =>
    rawRpc(svc.url, agent.publicId, { jsonrpc: '2.0', id: ++id, method, params }, bearer(secret));

  beforeAll(async () => {
    svc = await startTestService();
    operator = await Operator.signIn(svc);
    agent = await operator.agent('race');
  });
  afterAll(async () => {
    await svc.stop();
  });

  it('a stale manage call asking for trade leaves the cap the owner set at read', async () => {
    const manage = await operator.agentKey(agent.agentId, 'manage');
    const trade = await operator.agentKey(agent.agentId, 'trade');
    // This process reads (and caches) the agent uncapped: the manage key sees the tool.
    const before = await rpc(manage.secret, 'tools/list');
    expect(before.body.result.tools.map((tool: { name: string }) => tool.name)).toContain('agent_scope_cap_lower');

    // The owner's `read` as another process stores it: durable on the agent, not yet heard here.
    const actorId = (await svc.service.services.agents.ownedView(operator.userId, agent.agentId)).id;
    const agents = svc.service.runtime.collection(agentDefinition);
    expect((await agents.send(actorId, { type: 'agent.scopes.set', maxScope: 'read' })).accepted).toBe(true);

    const lowered = await rpc(manage.secret, 'tools/call', { name: 'agent_scope_cap_lower', arguments: { maxScope: 'trade' } });
    expect(lowered.body.result?.isError, lowered.text).toBe(false);
    expect(lowered.body.result.structuredContent).toEqual({ agentId: agent.agentId, maxScope: 'read' });
    expect((await agents.get(actorId))?.context.maxScope).toBe('read');

    // The answer's eviction made this process read the stored cap: every key of the agent acts as read.
    const balance = await rpc(trade.secret, 'tools/call', { name: 'agent_wallet_balance', arguments: {} });
    expect(balance.body.error).toEqual({ code: -32003, message: 'Scope insufficient: required trade, got read' });
  });
});
