/**
 * `/metrics` as a Prometheus scraper sees it after trading: orders by status,
 * venue and chain, swap latency by outcome, risk refusals by check, the providers' circuit
 * breakers, DCA tick counters. Two services: the paper venue for swaps, and the live
 * profile with its provider down for a breaker that opens.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, Operator, rawRpc } from '../support/mcp-fixtures.js';
import { scrapeMetrics, startTestService, type TestService } from '../support/test-service.js';

const key = () => ({ 'x-idempotency-key': randomUUID() });

/** The log lines saying the breaker of `provider` opened. */
function breakerLines(svc: TestService, provider: string): Array<Record<string, unknown>> {
  return svc.logs
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.breaker === provider && line.msg === 'circuit breaker opened: calls to the provider fail at once');
}

/** `/metrics` as text, with the ops token as the scraper calls it. */
function scrape(svc: TestService): Promise<string> {
  return scrapeMetrics(svc);
}

/**
 * Scrapes until `ready` holds (or 5 s pass): events are counted once durable, which an
 * answer normally waits for, but a refusal's answer need not.
 */
async function scrapeUntil(svc: TestService, ready: (text: string) => boolean): Promise<string> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const text = await scrape(svc);
    if (ready(text) || Date.now() > deadline) return text;
    await sleep(10);
  }
}

/** The value of one series, e.g. `orders_total{status="filled",venue="paper",chain="solana"}`; undefined when absent. */
function seriesValue(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** A signed-in operator whose default agent trades, with a custodial wallet. */
async function trader(svc: TestService): Promise<{ operator: Operator; agent: { agentId: string; publicId: string } }> {
  const operator = await Operator.signIn(svc);
  const agent = await operator.agent('metered');
  expect((await operator.client.put(`/api/nest/agents/${agent.agentId}/trading`, { enabled: true })).status).toBe(200);
  expect((await operator.client.post(`/api/nest/trading/wallets/custodial/${operator.userId}`, {}, key())).status).toBeLessThan(300);
  return { operator, agent };
}

describe('trading figures on /metrics, paper venue (e2e)', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(() => svc.stop());

  it('counts a swap, its order transitions and a refused swap by the check that refused it', async () => {
    const before = await scrape(svc);
    expect(seriesValue(before, 'circuit_breaker_state{provider="paper"}')).toBe(0);
    for (const outcome of ['executed', 'skipped', 'failed']) expect(seriesValue(before, `dca_ticks_total{outcome="${outcome}"}`)).toBe(0);
    expect(before).toContain('# TYPE dca_tick_lag_seconds histogram');
    expect(before).not.toContain('swap_duration_seconds_count');

    const { operator } = await trader(svc);
    await operator.client.post(`/api/nest/trading/paper/faucet/${operator.userId}`, { chain: 'solana', token: 'SOL', amount: '2' });
    const swap = await operator.client.post('/api/nest/trading/command', { message: 'buy 0.5 SOL of BONK' }, key());
    expect(swap.body.order).toMatchObject({ status: 'filled', venue: 'paper', chain: 'solana' });
    const refused = await operator.client.post('/api/nest/trading/command', { message: 'buy 50 SOL of BONK' }, key());
    expect(refused).toMatchObject({ status: 400, body: { message: 'Insufficient balance for requested swap amount' } });

    const text = await scrapeUntil(svc, (t) => seriesValue(t, 'risk_refusals_total{check="balance"}') === 1);
    expect(seriesValue(text, 'risk_refusals_total{check="balance"}')).toBe(1);
    expect(seriesValue(text, 'orders_total{status="submitting",venue="paper",chain="solana"}')).toBe(1);
    expect(seriesValue(text, 'orders_total{status="filled",venue="paper",chain="solana"}')).toBe(1);
    expect(seriesValue(text, 'swap_duration_seconds_count{venue="paper",chain="solana",outcome="filled"}')).toBe(1);
    expect(seriesValue(text, 'swap_duration_seconds_bucket{le="+Inf",venue="paper",chain="solana",outcome="filled"}')).toBe(1);
    // No per-account label: an agent's or user's id never becomes a series.
    expect(text).not.toContain(operator.userId);
    expect(text).not.toContain(swap.body.order.order_id);
  });
});

describe('trading figures on /metrics, live venue and LLM with their provider down (e2e)', () => {
  let svc: TestService;
  let down: Server;
  let llmHost = '';
  beforeAll(async () => {
    // Every provider call answers 502, like a vendor outage.
    down = createServer((_req, res) => res.writeHead(502, { 'content-type': 'application/json' }).end('{"error":"bad gateway"}'));
    await new Promise<void>((resolve) => down.listen(0, '127.0.0.1', resolve));
    llmHost = `127.0.0.1:${(down.address() as AddressInfo).port}`;
    const url = `http://${llmHost}`;
    svc = await startTestService({
      env: {
        TRADING_VENUE: 'live',
        JUPITER_API_URL: `${url}/swap/v1`,
        SOLANA_RPC_URL: url,
        CIRCUIT_BREAKER_THRESHOLD: '2',
        PROVIDER_TIMEOUT_MS: '2000',
        LLM_BASE_URL: `${url}/v1`,
        LLM_MODEL: 'test-model',
      },
    });
  });
  afterAll(async () => {
    await svc.stop();
    await new Promise((resolve) => down.close(resolve));
  });

  it('shows the venue provider breaker closed, then open once the provider kept failing, and the refusal it caused', async () => {
    expect(seriesValue(await scrape(svc), 'circuit_breaker_state{provider="jupiter"}')).toBe(0);
    const { operator } = await trader(svc);
    const command = () => operator.client.post('/api/nest/trading/command', { message: 'buy 0.1 SOL of BONK' }, key());
    await command();
    await command();
    expect(await command()).toMatchObject({
      status: 503,
      body: { message: 'Circuit breaker open for provider: jupiter', code: 'CIRCUIT_BREAKER_OPEN' },
    });
    const text = await scrape(svc);
    expect(seriesValue(text, 'circuit_breaker_state{provider="jupiter"}')).toBe(2);
    expect(seriesValue(text, 'risk_refusals_total{check="circuit_breaker"}')).toBeGreaterThanOrEqual(1);
    // The outage shows in the logs as it starts: one warning naming the breaker.
    expect(breakerLines(svc, 'jupiter')).toEqual([expect.objectContaining({ level: 40, failures: 2 })]);
  });

  it("shows the LLM provider's breaker open after five failed ask_bot calls", async () => {
    const series = `circuit_breaker_state{provider="${llmHost}"}`;
    expect(seriesValue(await scrape(svc), series)).toBe(0);
    const { operator, agent } = await trader(svc);
    const { secret } = await operator.agentKey(agent.agentId, 'read');
    for (let id = 1; id <= 5; id++) {
      const asked = await rawRpc(
        svc.url,
        agent.publicId,
        { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'ask_bot', arguments: { message: 'status', chat_id: 'c1' } } },
        bearer(secret),
      );
      expect(asked.body.result.structuredContent).toMatchObject({ degraded: true });
    }
    expect(seriesValue(await scrape(svc), series)).toBe(2);
    expect(breakerLines(svc, llmHost)).toEqual([expect.objectContaining({ level: 40, failures: 5 })]);
  });
});
