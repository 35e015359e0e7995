/**
 * Work the service does in the background says what it did in its logs, one line each with
 * its ids: a DCA buy, skip and hold, and a due job that failed (read from the service's own
 * log output, as an operator would).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFundedOperator } from '../support/dca-service.js';
import { ManualClock } from '../support/manual-clock.adapter.js';
import type { TestService } from '../support/test-service.js';

const MINUTE = 60_000;

interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

describe('background work in the logs (e2e)', () => {
  const clock = new ManualClock(Date.now());
  const running: TestService[] = [];
  let setUp: Awaited<ReturnType<typeof startFundedOperator>>;
  beforeAll(async () => {
    setUp = await startFundedOperator(clock, {}, running);
  });
  afterAll(async () => {
    for (const svc of running.splice(0)) await svc.stop();
  });

  const lines = (): LogLine[] => setUp.svc.logs.map((line) => JSON.parse(line) as LogLine);
  const linesWith = (msg: string, fields: Record<string, unknown>) =>
    lines().filter((line) => line.msg === msg && Object.entries(fields).every(([name, value]) => line[name] === value));

  it('a DCA buy, a skip while the agent is paused and a hold once approval is asked: one line each, with the ids', async () => {
    const { http, operator, agent, orders } = setUp;
    const created = await http.post(`/api/nest/trading/strategies/${operator.userId}`, {
      name: 'logged',
      inputToken: 'USDC',
      outputToken: 'SOL',
      amount: '5',
      interval: 'every 1 minutes',
    });
    expect(created.status).toBe(201);
    const strategyId = created.body.strategyId as string;

    await clock.advance(MINUTE);
    await expect.poll(async () => (await orders()).filter((o) => o.strategy === 'logged').length, { timeout: 5_000 }).toBe(1);
    const [order] = (await orders()).filter((o) => o.strategy === 'logged');
    await expect.poll(() => linesWith('dca buy filled', { strategyId }).length, { timeout: 5_000 }).toBe(1);
    const [bought] = linesWith('dca buy filled', { strategyId });
    expect(bought).toMatchObject({ level: 30, orderId: order!.order_id, agentId: expect.stringContaining(agent.agentId) });

    expect((await http.post(`/api/nest/agents/${agent.agentId}/pause`)).status).toBe(200);
    await clock.advance(MINUTE);
    await expect.poll(() => linesWith('dca tick skipped', { strategyId }).length, { timeout: 5_000 }).toBe(1);
    expect(linesWith('dca tick skipped', { strategyId })[0]).toMatchObject({ level: 30, reason: 'the agent is paused' });
    expect((await http.post(`/api/nest/agents/${agent.agentId}/resume`)).status).toBe(200);

    const profile = await http.put(`/api/nest/trading/config/${operator.userId}/default-order-profile`, { autoApprove: false });
    expect(profile.status).toBe(200);
    await clock.advance(MINUTE);
    const held = 'dca buy held for approval; the strategy waits for its owner';
    await expect.poll(() => linesWith(held, { strategyId }).length, { timeout: 5_000 }).toBe(1);
    expect(linesWith(held, { strategyId })[0]).toMatchObject({ level: 40, state: 'pending_approval', reason: expect.any(String) });
    // One line per outcome: the buy was logged once, not per delivery or per reader.
    expect(linesWith('dca buy filled', { strategyId })).toHaveLength(1);
    await http.put(`/api/nest/trading/config/${operator.userId}/default-order-profile`, { autoApprove: true });
  });

  it('a due job that fails says which job, for which actor and event, at warn', async () => {
    const { svc } = setUp;
    // A job whose event time is not a time: its operation refuses the input, so the delivery fails.
    await svc.service.adapters.scheduler.scheduleOnce({
      jobId: 'key-expire:broken',
      address: { type: 'api-key', id: 'broken' },
      event: { type: 'key.expire', at: 'never' },
      runAt: clock.now(),
    });
    await clock.advance(1_000);
    const failed = () => lines().filter((line) => line.jobId === 'key-expire:broken' && line.level === 40);
    await expect.poll(() => failed().length, { timeout: 5_000 }).toBeGreaterThan(0);
    expect(failed()[0]).toMatchObject({ address: { type: 'api-key', id: 'broken' }, event: 'key.expire' });
    await svc.service.adapters.scheduler.cancel('key-expire:broken');
  });
});
