/**
 * The driven-clock DCA suites' start: a real service on a ManualClock, an operator with an
 * agent whose trading is on, a custodial wallet and paper USDC, and a reader of the orders.
 */
import { randomUUID } from 'node:crypto';
import type { ManualClock } from './manual-clock.adapter.js';
import { Operator } from './mcp-fixtures.js';
import { signInSolana, startTestService, type TestService } from './test-service.js';

export async function startFundedOperator(clock: ManualClock, env: Record<string, string>, running: TestService[]) {
  const svc = await startTestService({ clock, env });
  running.push(svc);
  const operator = await Operator.signIn(svc);
  const agent = await operator.agent('dca');
  const http = operator.client;
  await http.put(`/api/nest/agents/${agent.agentId}/trading`, { enabled: true });
  await http.post(`/api/nest/trading/wallets/custodial/${operator.userId}`, {}, { 'x-idempotency-key': randomUUID() });
  await http.post(`/api/nest/trading/paper/faucet/${operator.userId}`, { chain: 'solana', token: 'USDC', amount: '100000' });
  /** Every order of the account (signing in again: the driven clock outlives 15-minute sessions). */
  const orders = async () => {
    await signInSolana(http, operator.wallet);
    const page = await http.get(`/api/nest/trading/orders/${operator.userId}?limit=200`);
    return page.body.items as Array<{ order_id: string; status: string; strategy?: string; channel: string }>;
  };
  return { svc, operator, agent, http, orders };
}
