/**
 * DCA strategies against the owner's approval policy and the agent's state, over
 * HTTP and MCP with a driven clock: a trade key cannot buy through a strategy what the
 * approval policy would hold (the audit's scenario), the command route holds it the same
 * way, a paused agent's ticks are skipped rather than failed, one interval grammar with a
 * one-minute floor, and a per-user cap on strategies.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { startFundedOperator } from '../support/dca-service.js';
import { bearer, rawRpc } from '../support/mcp-fixtures.js';
import { scrapeMetrics, signInSolana, type TestService } from '../support/test-service.js';

const MINUTE = 60_000;
const T0 = Date.parse('2026-11-21T12:00:30Z');
const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

describe('DCA strategies and the approval policy (e2e)', () => {
  const running: TestService[] = [];
  afterEach(async () => {
    for (const svc of running.splice(0)) await svc.stop();
  });

  async function setUp(clock: ManualClock, env: Record<string, string> = {}) {
    const { svc, operator, agent, http, orders } = await startFundedOperator(clock, env, running);
    const trade = (await operator.agentKey(agent.agentId, 'trade')).secret;
    let id = 0;
    /** A tool call with the trade key: the structured result, or the error text of a tool that failed. */
    const tool = async (name: string, args: Record<string, unknown>) => {
      const answer = await rawRpc(
        svc.url,
        agent.publicId,
        { jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: args } },
        bearer(trade),
      );
      const result = answer.body.result as { isError?: boolean; structuredContent?: any; content: Array<{ text: string }> } | undefined;
      if (!result) return { error: answer.body.error.message as string };
      return result.isError
        ? { error: result.content[0]!.text }
        : { value: result.structuredContent ?? JSON.parse(result.content[0]!.text) };
    };
    const strategy = async (name: string) => {
      const page = await svc.service.runtime.find('dca-strategy', { index: 'subject', eq: `agent:${agent.agentId}` }, { limit: 50 });
      return page.items
        .map((item) => ({ state: item.state, ...(item.context as { name: string; buys: number; failures: number; skipped: number }) }))
        .find((c) => c.name === name);
    };
    /** Moves the clock a minute at a time, waiting for the strategy's tick to be handled when `name` is given. */
    const minutes = async (n: number, name?: string) => {
      const handled = async () => {
        const s = name ? await strategy(name) : undefined;
        return s ? s.buys + s.failures + s.skipped : 0;
      };
      for (let i = 0; i < n; i++) {
        const before = await handled();
        await clock.advance(MINUTE);
        if (name) await expect.poll(handled, { timeout: 5_000, interval: 5 }).toBeGreaterThan(before);
      }
    };
    return { svc, operator, http, agent, tool, orders, strategy, minutes };
  }

  it("the audit's scenario: a trade key's strategy of $300 buys waits for the owner's approval instead of buying around the hold", async () => {
    const clock = new ManualClock(T0);
    const { http, operator, tool, orders, strategy, minutes } = await setUp(clock);
    const profile = await http.put(`/api/nest/trading/config/${operator.userId}/default-order-profile`, {
      autoApprove: false,
      approvalAboveUsd: 10,
    });
    expect(profile.status).toBe(200);

    // The trade key's $300 swap is held.
    const swap = await tool('trading_solana_aggregator_swap', {
      inputMint: USDC,
      outputMint: SOL,
      amount: '300000000',
      idempotencyKey: randomUUID(),
    });
    expect(swap.value).toMatchObject({ status: 'pending_approval' });

    // A one-second cron is no longer a way in: a minute is the floor.
    expect(
      (
        await tool('trading_dca_strategy_create', {
          name: 'burst',
          inputToken: 'USDC',
          outputToken: 'SOL',
          amount: '300',
          interval: '* * * * * *',
          maxBuys: 3,
        })
      ).error,
    ).toContain('interval must be at least 60 seconds apart');
    // The same buys as a strategy wait for approval, with no schedule.
    const created = await tool('trading_dca_strategy_create', {
      name: 'around',
      inputToken: 'USDC',
      outputToken: 'SOL',
      amount: '300',
      interval: 'every 1 minutes',
      maxBuys: 3,
    });
    expect(created.value).toMatchObject({
      name: 'around',
      status: 'pending_approval',
      holdReason: 'the order profile approves no trade automatically (autoApprove off)',
    });
    await minutes(5);
    expect((await orders()).filter((o) => o.strategy === 'around')).toHaveLength(0);
    expect((await http.get(`/api/nest/trading/dca/stats/${operator.userId}`)).body.strategies[0]).toMatchObject({
      name: 'around',
      status: 'pending_approval',
      buys: 0,
      nextRun: null,
    });

    // The trade key cannot approve it (agentsMayApprove is off), and resuming it is no way around.
    expect((await tool('trading_dca_strategy_approve', { strategyName: 'around' })).error).toContain(
      'Scope insufficient: required manage, got trade',
    );
    expect((await tool('trading_dca_resume', { name: 'around' })).value).toEqual({
      items: [expect.objectContaining({ name: 'around', status: 'pending_approval' })],
    });
    await minutes(2);
    expect((await orders()).filter((o) => o.strategy === 'around')).toHaveLength(0);

    // The owner approves it: it buys once a minute from now, up to its three buys.
    const approved = await http.post(`/api/nest/trading/strategies/${operator.userId}/around/approve`, {});
    expect(approved).toMatchObject({
      status: 200,
      body: { name: 'around', status: 'active', approvedAt: new Date(clock.now()).toISOString() },
    });
    expect((await http.post(`/api/nest/trading/strategies/${operator.userId}/around/approve`, {})).body).toMatchObject({
      statusCode: 409,
      message: 'Strategy around is not pending approval (status: active)',
    });
    await minutes(3, 'around');
    const bought = (await orders()).filter((o) => o.strategy === 'around');
    expect(bought.map((o) => o.status)).toEqual(['filled', 'filled', 'filled']);
    expect((await strategy('around'))!.state).toBe('completed');
  });

  it('a trade key approves only where the order profile says agentsMayApprove', async () => {
    const clock = new ManualClock(T0);
    const { http, operator, tool } = await setUp(clock);
    await http.put(`/api/nest/trading/config/${operator.userId}/default-order-profile`, { approvalAboveUsd: 10, agentsMayApprove: true });
    expect(
      (
        await tool('trading_dca_strategy_create', {
          name: 'big',
          inputToken: 'USDC',
          outputToken: 'SOL',
          amount: '300',
          interval: 'every hour',
        })
      ).value,
    ).toMatchObject({
      status: 'pending_approval',
      holdReason: 'a buy of $300.00 is over the approval size of $10',
    });
    expect((await tool('trading_dca_strategy_approve', { strategyName: 'big' })).value).toMatchObject({
      name: 'big',
      status: 'active',
      interval: 'every hour',
    });
  });

  it('the command route holds a strategy the same way; "dca approve <name>" follows the same approver rule', async () => {
    const clock = new ManualClock(T0);
    const { http, operator, tool, orders, minutes } = await setUp(clock);
    await http.put(`/api/nest/trading/config/${operator.userId}/default-order-profile`, { autoApprove: false });
    const created = await tool('trading_command', {
      message: 'dca 300 USDC into SOL every minute named cmd-held',
      idempotencyKey: randomUUID(),
    });
    expect(created.value).toMatchObject({ intent: 'dca_create' });
    expect(created.value.reply).toBe(
      'Strategy cmd-held created, waiting for approval (the order profile approves no trade automatically (autoApprove off)): it will start buying 300 USDC of SOL every 1 minutes once approved with "dca approve cmd-held".',
    );
    await minutes(2);
    expect((await orders()).filter((o) => o.strategy === 'cmd-held')).toHaveLength(0);
    expect((await tool('trading_command', { message: 'dca approve cmd-held', idempotencyKey: randomUUID() })).error).toContain(
      'Scope insufficient: required manage, got trade',
    );

    const command = (message: string) => http.post('/api/nest/trading/command', { message }, { 'x-idempotency-key': randomUUID() });
    expect((await command('dca approve')).body.reply).toBe('Which strategy? Write "dca approve <name>". Waiting for approval: cmd-held.');
    expect((await command('approve dca cmd-held')).body).toMatchObject({
      intent: 'dca_approve',
      reply: 'Approved: cmd-held is active, buying 300 USDC of SOL every 1 minutes.',
    });
    await minutes(1, 'cmd-held');
    expect((await orders()).filter((o) => o.strategy === 'cmd-held').map((o) => o.status)).toEqual(['filled']);
  });

  it('a paused agent: its strategies skip their ticks (counted in stats) and buy again when it resumes, never pausing themselves', async () => {
    const clock = new ManualClock(T0);
    const { svc, http, operator, agent, orders, strategy, minutes } = await setUp(clock);
    expect(
      (
        await http.post(`/api/nest/trading/strategies/${operator.userId}`, {
          name: 'patient',
          inputToken: 'USDC',
          outputToken: 'SOL',
          amount: '1',
          interval: 'every minute',
        })
      ).status,
    ).toBe(201);
    await minutes(1, 'patient');
    expect((await http.post(`/api/nest/agents/${agent.agentId}/pause`, {})).status).toBe(200);
    await minutes(4, 'patient');
    await signInSolana(http, operator.wallet);
    const stats = await http.get(`/api/nest/trading/dca/stats/${operator.userId}`);
    expect(stats.body.strategies[0]).toMatchObject({ name: 'patient', status: 'active', buys: 1, failures: 0, skipped: 4 });
    expect(stats.body.totals).toMatchObject({ buys: 1, skipped: 4 });
    expect((await http.post(`/api/nest/agents/${agent.agentId}/resume`, {})).status).toBe(200);
    await minutes(1, 'patient');
    expect(await strategy('patient')).toMatchObject({ state: 'active', buys: 2, failures: 0, skipped: 4 });
    expect((await orders()).filter((o) => o.strategy === 'patient')).toHaveLength(2);

    // The same ticks, as a Prometheus scraper sees them.
    const scraped = await scrapeMetrics(svc);
    expect(scraped).toMatch(/^dca_ticks_total\{outcome="executed"\} 2$/m);
    expect(scraped).toMatch(/^dca_ticks_total\{outcome="skipped"\} 4$/m);
    expect(scraped).toMatch(/^dca_ticks_total\{outcome="failed"\} 0$/m);
    expect(scraped).toMatch(/^dca_tick_lag_seconds_count 6$/m);
  });

  it('one interval grammar on REST; a per-user cap on strategies across agents (409)', async () => {
    const clock = new ManualClock(T0);
    const { http, operator } = await setUp(clock, { MAX_STRATEGIES_PER_USER: '3' });
    const url = `/api/nest/trading/strategies/${operator.userId}`;
    const body = (name: string, interval: string) => ({ name, inputToken: 'USDC', outputToken: 'SOL', amount: '1', interval });
    for (const interval of ['*/30 * * * * *', '0,30 * * * * *']) {
      expect(await http.post(url, body('fast', interval))).toMatchObject({
        status: 400,
        body: { message: ['interval must be at least 60 seconds apart'] },
      });
    }
    expect(await http.post(url, body('h', 'every hour'))).toMatchObject({ status: 201, body: { interval: 'every hour' } });
    expect((await http.post(url, body('d', 'every day'))).status).toBe(201);
    // Another agent of the same user counts too.
    const other = (await http.post('/api/nest/agents', { name: 'second' })).body.agentId as string;
    expect((await http.post(`${url}?agentId=${other}`, body('w', 'weekly'))).status).toBe(201);
    expect(await http.post(`${url}?agentId=${other}`, body('x', '0 * * * *'))).toMatchObject({
      status: 409,
      body: { message: 'Strategy limit reached: at most 3 strategies per user' },
    });
    expect((await http.delete(`${url}/h`)).status).toBe(200);
    expect((await http.post(`${url}?agentId=${other}`, body('x', '0 * * * *'))).status).toBe(201);
  });
});
