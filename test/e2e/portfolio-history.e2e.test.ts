/**
 * The portfolio value history from outside: readings the service takes after a
 * deposit, a fill and a withdrawal-free quiet hour (periodic), read over REST and MCP, with
 * the interface's validation envelope and the account boundary of the other position routes.
 */
import { randomUUID } from 'node:crypto';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { Operator } from '../support/mcp-fixtures.js';
import type { Client, TestService } from '../support/test-service.js';
import { startTestService } from '../support/test-service.js';

const MINUTE = 60_000;
const INTERVAL_SECONDS = 300;

interface Point {
  at: string;
  valueUsd: string;
  costBasisUsd: string;
  realizedPnlUsd: string;
  unrealizedPnlUsd: string;
  reason: 'change' | 'periodic';
}

describe('portfolio value history (e2e)', () => {
  const clock = new ManualClock(Date.parse('2026-11-27T08:00:00Z'));
  let svc: TestService;
  let operator: Operator;
  let http: Client;
  let userId: string;
  let agent: { agentId: string; publicId: string };
  let mcp: McpClient | undefined;

  const history = async (query = ''): Promise<Point[]> => {
    const answer = await http.get(`/api/nest/trading/positions/${userId}/history${query}`);
    expect(answer.status).toBe(200);
    return answer.body.points as Point[];
  };
  /** A change's reading is taken once the change settles (a second later): move the clock, then wait for it. */
  const settle = async (count: number): Promise<Point[]> => {
    await clock.advance(1_000);
    await expect.poll(async () => (await history()).length, { timeout: 5_000 }).toBe(count);
    return history();
  };

  beforeAll(async () => {
    svc = await startTestService({ clock, env: { PORTFOLIO_SAMPLE_SECONDS: String(INTERVAL_SECONDS) } });
    operator = await Operator.signIn(svc);
    http = operator.client;
    userId = operator.userId;
    agent = await operator.agent('history');
    expect((await http.put(`/api/nest/agents/${agent.agentId}/trading`, { enabled: true })).status).toBe(200);
    expect((await http.post(`/api/nest/trading/wallets/custodial/${userId}`, {}, { 'x-idempotency-key': randomUUID() })).status).toBe(201);
  });
  afterAll(async () => {
    await mcp?.close();
    await svc.stop();
  });

  it('is empty before anything was held', async () => {
    const answer = await http.get(`/api/nest/trading/positions/${userId}/history`);
    expect(answer).toMatchObject({ status: 200, body: { points: [], intervalSeconds: INTERVAL_SECONDS } });
    expect(Date.parse(answer.body.to) - Date.parse(answer.body.from)).toBe(7 * 24 * 60 * MINUTE);
  });

  it('takes a reading after a faucet deposit, equal to the PnL totals of that moment', async () => {
    const funded = await http.post(`/api/nest/trading/paper/faucet/${userId}`, { chain: 'solana', token: 'USDC', amount: '1000' });
    expect(funded.status).toBe(200);
    const [point] = await settle(1);
    const pnl = (await http.get(`/api/nest/trading/positions/${userId}/pnl`)).body.totals;
    expect(point).toMatchObject({ reason: 'change', valueUsd: pnl.valueUsd, costBasisUsd: '1000.00', realizedPnlUsd: '0.00' });
  });

  it('takes a reading after a fill from the command route', async () => {
    await clock.advance(MINUTE); // a new minute: one reading per minute is kept
    const swap = await http.post('/api/nest/trading/command', { message: 'swap 100 USDC to SOL' }, { 'x-idempotency-key': randomUUID() });
    expect(swap.body.order.status).toBe('filled');
    const points = await settle(2);
    expect(points[1]?.reason).toBe('change');
    expect(Date.parse(points[1]?.at ?? '')).toBeGreaterThan(Date.parse(points[0]?.at ?? ''));
  });

  it('takes periodic readings while the account holds something, as the price moves', async () => {
    await clock.advance(INTERVAL_SECONDS * 1000 + MINUTE);
    await expect.poll(async () => (await history()).filter((p) => p.reason === 'periodic').length, { timeout: 5_000 }).toBe(1);
    // The next reading is due an interval after the clock time the first one read, and the clock moves
    // on while that reading commits (on a loaded machine, to the end of the advance): a minute of slack.
    await clock.advance(INTERVAL_SECONDS * 1000 + MINUTE);
    await expect.poll(async () => (await history()).filter((p) => p.reason === 'periodic').length, { timeout: 5_000 }).toBe(2);
    const points = await history();
    expect(points.map((p) => Date.parse(p.at))).toEqual([...points.map((p) => Date.parse(p.at))].sort((a, b) => a - b));
  });

  it('answers a range and thins it to `limit` points ending on the newest', async () => {
    const all = await history();
    const last = all[all.length - 1] as Point;
    const from = all[1] as Point;
    expect(await history(`?from=${encodeURIComponent(from.at)}`)).toEqual(all.slice(1));
    const two = await history('?limit=2');
    expect(two).toHaveLength(2);
    expect(two[1]).toEqual(last);
  });

  it('is the same over MCP with a read key', async () => {
    const { secret } = await operator.agentKey(agent.agentId, 'read', 'history-read');
    mcp = new McpClient({ name: 'history-e2e', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp/${agent.publicId}`), {
        requestInit: { headers: { Authorization: `Bearer ${secret}` } },
      }),
    );
    const answer = await mcp.callTool({ name: 'trading_portfolio_history', arguments: { limit: 1000 } });
    expect((answer.structuredContent as { points: Point[] }).points).toEqual(await history('?limit=1000'));
  });

  it('refuses bad input in the validation envelope', async () => {
    const bad = (query: string) => http.get(`/api/nest/trading/positions/${userId}/history${query}`);
    expect(await bad('?from=yesterday')).toMatchObject({ status: 400, body: { statusCode: 400, message: ['from: Invalid ISO datetime'] } });
    expect(await bad('?from=2026-11-27T00:00:00Z&to=2026-11-26T00:00:00Z')).toMatchObject({
      status: 400,
      body: { message: ['from must not be after to'] },
    });
    expect(await bad('?from=2024-01-01T00:00:00Z&to=2026-01-01T00:00:00Z')).toMatchObject({
      status: 400,
      body: { message: ['from and to must be at most 366 days apart'] },
    });
    expect((await bad('?limit=1')).status).toBe(400);
    expect(await bad('?limit=many')).toMatchObject({ status: 400, body: { message: ['limit must be number'] } });
    expect(await bad('?every=1')).toMatchObject({ status: 400, body: { message: ['every is not a known field'] } });
  });

  it("keeps to the account: another user's :userId and another agent's history", async () => {
    expect(await http.get('/api/nest/trading/positions/someone-else/history')).toMatchObject({
      status: 404,
      body: { message: 'User not found' },
    });
    const stranger = await Operator.signIn(svc);
    const theirs = await stranger.agent('stranger');
    const read = await http.get(`/api/nest/trading/positions/${userId}/history?agentId=${theirs.agentId}`);
    expect(read.status).toBe(404);
    const own = await stranger.client.get(`/api/nest/trading/positions/${stranger.userId}/history?agentId=${theirs.agentId}`);
    expect(own).toMatchObject({ status: 200, body: { points: [] } });
  });
});
