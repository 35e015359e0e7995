/**
 * The agent id a client sees is the one its owner chose, on every surface:
 * two users each own agent `alpha`, whose actor ids are `<userId>~alpha`. REST,
 * MCP answers, the verify answer, the SSE and WebSocket events, orders and audit entries all
 * say `alpha`, and nothing a client receives holds the `~` of an actor id (which would leak
 * the owner's user id).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, Operator, rawRpc } from '../support/mcp-fixtures.js';
import { openSse, openWs, until, type SseStream, type WsClient } from '../support/events-harness.js';
import { startTestService, type TestService } from '../support/test-service.js';

describe('the chosen agent id on every surface (e2e)', () => {
  let svc: TestService;
  const streams: Array<{ close(): void }> = [];
  /** The text of every answer and event a client received, checked for `~` at the end. */
  const received: string[] = [];
  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(async () => {
    for (const stream of streams) stream.close();
    await svc.stop();
  });

  const seen = <T extends { body: unknown }>(answer: T): T => {
    received.push(JSON.stringify(answer.body));
    return answer;
  };
  const tool = async (publicId: string, secret: string, name: string, args: Record<string, unknown> = {}) => {
    const answer = seen(
      await rawRpc(svc.url, publicId, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }, bearer(secret)),
    );
    expect(answer.body.result?.isError, JSON.stringify(answer.body)).toBeFalsy();
    return answer.body.result.structuredContent as Record<string, any>;
  };

  /** An operator's agent `alpha` with its event streams open, then trading and funded. */
  async function alphaOf(operator: Operator) {
    const { client } = operator;
    const created = seen(await client.post('/api/nest/agents', { name: 'alpha', agentId: 'alpha' }));
    expect(created).toMatchObject({ status: 201, body: { agentId: 'alpha' } });
    const trade = seen({ body: await operator.agentKey('alpha', 'trade') }).body;
    const spare = seen({ body: await operator.agentKey('alpha', 'read', 'spare') }).body;
    const publicId = created.body.publicId as string;
    const sse: SseStream = await openSse(svc.url, publicId, { secret: trade.secret });
    streams.push(sse);
    const ws = await openWs(svc.url, publicId, { secret: trade.secret });
    if (!ws.ok) throw new Error(`ws refused: ${ws.status}`);
    streams.push({ close: () => ws.client.ws.close() });
    seen(await client.put('/api/nest/agents/alpha/trading', { enabled: true }));
    seen(
      await client.post(`/api/nest/trading/wallets/custodial/${operator.userId}?agentId=alpha`, {}, { 'x-idempotency-key': randomUUID() }),
    );
    seen(
      await client.post(`/api/nest/trading/paper/faucet/${operator.userId}?agentId=alpha`, { chain: 'solana', token: 'SOL', amount: '2' }),
    );
    return { publicId, trade, spare, sse, ws: ws.client as WsClient };
  }

  it('two users each own `alpha`: events, verify, portfolio, orders and audit entries say `alpha`, and nothing holds a `~`', async () => {
    const users = [await Operator.signIn(svc), await Operator.signIn(svc)];
    for (const operator of users) {
      const { client, userId } = operator;
      const { publicId, trade, spare, sse, ws } = await alphaOf(operator);

      // Events of a trade, of the agent itself and of a key revocation.
      const bought = seen(
        await client.post('/api/nest/trading/command', { message: 'buy 0.1 SOL of BONK' }, { 'x-idempotency-key': randomUUID() }),
      );
      expect(bought.body.order).toMatchObject({ status: 'filled', agentId: 'alpha' });
      seen(await client.post('/api/nest/agents/alpha/pause'));
      seen(await client.post('/api/nest/agents/alpha/resume'));
      seen(await client.delete(`/api/nest/agents/alpha/keys/${spare.keyId}`));
      const wanted = ['order.created', 'order.updated', 'position.updated', 'wallet.updated', 'agent.updated', 'key.revoked'];
      await until(() => wanted.every((type) => sse.events().some((e) => e.event === type)), 'the SSE events');
      await until(() => wanted.every((type) => ws.messages.some((m: any) => m.event === type)), 'the WebSocket events');
      const events = [...sse.events().map((e) => e.data), ...ws.messages.map((m: any) => m.data as Record<string, any>)];
      for (const data of events) expect(data.agentId, JSON.stringify(data)).toBe('alpha');
      for (const data of events.filter((d) => d.order)) expect(data.order.agentId).toBe('alpha');
      expect(events.find((d) => d.type === 'key.revoked')).toMatchObject({ keyId: spare.keyId, ownerType: 'agent', ownerId: 'alpha' });
      received.push(...events.map((data) => JSON.stringify(data)));

      // The verify answer names the key's agent as its owner knows it.
      const verified = seen(await client.request('POST', '/api/nest/auth/verify', undefined, bearer(trade.secret)));
      expect(verified).toMatchObject({ status: 200, body: { valid: true, principal: { type: 'agent-key', agentId: 'alpha' } } });

      // MCP answers: status, portfolio summary, orders, ask_bot.
      expect(await tool(publicId, trade.secret, 'agent_status')).toMatchObject({ agentId: 'alpha' });
      expect(await tool(publicId, trade.secret, 'trading_portfolio_summary')).toMatchObject({ subjectType: 'agent', subjectId: 'alpha' });
      const mcpOrders = (await tool(publicId, trade.secret, 'trading_orders_list')).items as Array<{ agentId: string }>;
      expect(mcpOrders.length).toBeGreaterThan(0);
      for (const order of mcpOrders) expect(order.agentId).toBe('alpha');
      await tool(publicId, trade.secret, 'ask_bot', { message: 'status', chat_id: 'c1' });

      // REST: orders and the agent's audit log.
      const orders = seen(await client.get(`/api/nest/trading/orders/${userId}?agentId=alpha`)).body.items as Array<{ agentId: string }>;
      expect(orders.map((o) => o.agentId)).toEqual(['alpha']);
      seen(await client.get(`/api/nest/trading/positions/${userId}/pnl?agentId=alpha`));
      seen(await client.get(`/api/nest/trading/approvals/${userId}?agentId=alpha`));
      const subjects = async () =>
        (seen(await client.get('/api/nest/agents/alpha/logs')).body.items as Array<{ subject?: string }>).map((e) => e.subject);
      await expect.poll(subjects).toContain('agent:alpha');
      expect(new Set((await subjects()).filter((s) => s !== undefined))).toEqual(new Set(['agent:alpha']));
      seen(await client.get('/api/nest/agents/alpha'));
      seen(await client.get('/api/nest/agents'));
    }
    const leaks = received.filter((text) => text.includes('~'));
    expect(leaks).toEqual([]);
    // The two users' ids appear nowhere the other could be shown them.
    for (const operator of users) expect(received.filter((text) => text.includes(`${operator.userId}~`))).toEqual([]);
  });
});
