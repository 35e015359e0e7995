/**
 * Trading events on the agent's stream (events): wallet.updated,
 * order.created, order.updated, position.updated and risk.blocked reach an SSE client.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentFixture, openSse, until, type SseStream } from '../support/events-harness.js';
import { Client, signInSolana, startTestService, type TestService } from '../support/test-service.js';

describe('trading events on the SSE stream (e2e)', () => {
  let svc: TestService;
  let stream: SseStream | undefined;
  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(async () => {
    stream?.close();
    await svc.stop();
  });

  const key = () => ({ 'x-idempotency-key': randomUUID() });

  /** A new operator's agent with trading on, a funded custodial wallet, and its event stream open. */
  async function tradingAgent() {
    stream?.close();
    const operator = new Client(svc.url);
    const { user } = await signInSolana(operator);
    const agent = await agentFixture(svc.url, operator);
    await operator.put(`/api/nest/agents/${agent.agentId}/trading`, { enabled: true });
    const { secret } = await agent.newKey();
    const sse = await openSse(svc.url, agent.publicId, { secret });
    stream = sse; // closed by the next test or afterAll
    await operator.post(`/api/nest/trading/wallets/custodial/${user.id}`, {}, key());
    await operator.post(`/api/nest/trading/paper/faucet/${user.id}`, { chain: 'solana', token: 'SOL', amount: '2' });
    return { operator, user, agent, sse };
  }

  it('streams wallet, order, position and risk events of a trade', async () => {
    const { operator, user, agent, sse } = await tradingAgent();
    const trade = await operator.post('/api/nest/trading/command', { message: 'buy 0.5 SOL of BONK' }, key());
    expect(trade.body.order.status).toBe('filled');
    const refused = await operator.post('/api/nest/trading/command', { message: 'buy 50 SOL of BONK' }, key());
    expect(refused.status).toBe(400);

    const types = () => sse.events().map((e) => e.event);
    await until(() => types().includes('risk.blocked'), 'risk.blocked');
    expect(types()).toEqual(
      expect.arrayContaining(['wallet.updated', 'order.created', 'order.updated', 'position.updated', 'risk.blocked']),
    );
    const events = sse.events();
    const created = events.find((e) => e.event === 'order.created')!;
    expect(created.data).toMatchObject({
      type: 'order.created',
      agentId: agent.agentId,
      order: { order_id: trade.body.order.order_id, status: 'submitting' },
    });
    const filled = events.filter((e) => e.event === 'order.updated').at(-1)!;
    expect(filled.data).toMatchObject({ state: 'filled', order: { status: 'filled', filledOut: trade.body.order.filledOut } });
    expect(events.find((e) => e.event === 'risk.blocked')!.data).toMatchObject({
      check: 'balance',
      code: 'INSUFFICIENT_BALANCE',
      message: 'Insufficient balance for requested swap amount',
      channel: 'command',
    });
    // One type per field on every surface: position.updated writes USD as the position routes do.
    const positions = events.filter((e) => e.event === 'position.updated').map((e) => e.data as Record<string, unknown>);
    for (const position of positions) {
      expect(position).toMatchObject({
        amount: expect.any(String),
        costBasisUsd: expect.stringMatching(/^-?\d+\.\d{2}$/),
        realizedPnlUsd: expect.stringMatching(/^-?\d+\.\d{2}$/),
      });
    }
    const bonk = positions.filter((p) => p.symbol === 'BONK').at(-1)!;
    const rest = (await operator.get(`/api/nest/trading/positions/${user.id}/pnl`)).body.positions.find(
      (p: { symbol: string }) => p.symbol === 'BONK',
    );
    expect({ amount: bonk.amount, costBasisUsd: bonk.costBasisUsd, realizedPnlUsd: bonk.realizedPnlUsd }).toEqual({
      amount: rest.amount,
      costBasisUsd: rest.costBasisUsd,
      realizedPnlUsd: rest.realizedPnlUsd,
    });
    // Wallet events never carry key material.
    expect(JSON.stringify(events.filter((e) => e.event === 'wallet.updated'))).not.toMatch(/sealed|secret|privateKey/i);
  });

  it('an approval refused by a check (here the kill switch) is a risk.blocked too, naming the check', async () => {
    const { operator, user, sse } = await tradingAgent();
    await operator.put(`/api/nest/trading/config/${user.id}/default-order-profile`, { autoApprove: false });
    const held = await operator.post('/api/nest/trading/command', { message: 'buy 0.1 SOL of BONK' }, key());
    expect(held.body.order.status).toBe('pending_approval');

    const killSwitch = (active: boolean) =>
      fetch(`${svc.url}/api/nest/ops/trading/kill-switch`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${svc.opsToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ chain: 'solana', active }),
      });
    await killSwitch(true);
    try {
      await sleep(1_100); // the switch is read through a one-second cache
      const refused = await operator.post(`/api/nest/trading/orders/${user.id}/${held.body.order.order_id}/approve`, {}, key());
      expect(refused).toMatchObject({ status: 503, body: { message: 'Trading kill switch is active for chain: solana' } });
    } finally {
      await killSwitch(false);
    }
    await until(() => sse.events().some((e) => e.event === 'risk.blocked'), 'risk.blocked');
    expect(sse.events().find((e) => e.event === 'risk.blocked')!.data).toMatchObject({
      check: 'kill_switch',
      code: 'KILL_SWITCH_ACTIVE',
      message: 'Trading kill switch is active for chain: solana',
      channel: 'command',
      chain: 'solana',
    });
  });

  it('a cancelled order is an order.updated in state cancelled', async () => {
    const { operator, user, sse } = await tradingAgent();
    await operator.put(`/api/nest/trading/config/${user.id}/default-order-profile`, { autoApprove: false });
    const held = await operator.post('/api/nest/trading/command', { message: 'buy 0.1 SOL of BONK' }, key());
    const orderId: string = held.body.order.order_id;
    expect((await operator.post(`/api/nest/trading/orders/${user.id}/${orderId}/cancel`, {})).status).toBe(200);
    const cancelled = () =>
      sse.events().find((e) => e.event === 'order.updated' && (e.data as { order: { order_id: string } }).order.order_id === orderId);
    await until(() => cancelled() !== undefined, 'order.updated');
    expect(cancelled()!.data).toMatchObject({
      type: 'order.updated',
      state: 'cancelled',
      order: { order_id: orderId, status: 'cancelled' },
    });
  });
});
