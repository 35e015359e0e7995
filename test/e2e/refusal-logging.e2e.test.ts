/**
 * Log levels of refusals: an answer the service was asked to give (the kill
 * switch, trading switched off, a missing scope, a 401, the 405 an MCP SDK client's GET probe
 * gets) is logged at info without a stack; error level stays for faults.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, Operator, rawRpc } from '../support/mcp-fixtures.js';
import { Client, startTestService, type TestService } from '../support/test-service.js';

const BONK = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
const KILL_SWITCH = '/api/nest/ops/trading/kill-switch';
const REFUSALS = 20;

interface LogLine {
  level: number;
  msg: string;
  err?: { stack?: string };
  res?: { statusCode: number };
  errorCode?: string;
}

describe('refusals in the logs', () => {
  let svc: TestService;
  let alice: Operator;
  let agent: { agentId: string; publicId: string };
  let ops: Client;
  beforeAll(async () => {
    svc = await startTestService();
    alice = await Operator.signIn(svc);
    agent = await alice.agent();
    ops = new Client(svc.url);
    ops.bearer = svc.opsToken;
  });
  afterAll(() => svc.stop());

  /** Lines written while `run` ran. */
  async function linesOf(run: () => Promise<void>): Promise<LogLine[]> {
    const from = svc.logs.length;
    await run();
    await new Promise((resolve) => setTimeout(resolve, 50)); // access lines are written on 'finish'
    return svc.logs.slice(from).map((line) => JSON.parse(line) as LogLine);
  }
  const loud = (lines: LogLine[]) => lines.filter((line) => line.level >= 40 || line.err?.stack !== undefined);

  it('logs kill-switch refusals (REST and MCP) at info, without stacks', async () => {
    const trade = await alice.agentKey(agent.agentId, 'trade');
    expect((await alice.client.put(`/api/nest/agents/${agent.agentId}/trading`, { enabled: true })).status).toBe(200);
    expect((await ops.put(KILL_SWITCH, { chain: 'solana', active: true })).status).toBe(200);
    expect((await ops.put(KILL_SWITCH, { chain: 'base', active: true })).status).toBe(200);
    try {
      const lines = await linesOf(async () => {
        for (let i = 0; i < REFUSALS; i++) {
          const mcp = await rawRpc(
            svc.url,
            agent.publicId,
            {
              jsonrpc: '2.0',
              id: i,
              method: 'tools/call',
              params: {
                name: 'trading_solana_aggregator_swap',
                arguments: { inputMint: 'SOL', outputMint: BONK, amount: '1000', idempotencyKey: randomUUID() },
              },
            },
            bearer(trade.secret),
          );
          expect(mcp.body.result).toMatchObject({ isError: true, structuredContent: { code: 'KILL_SWITCH_ACTIVE' } });
          const rest = await alice.client.post(
            `/api/nest/trading/evm/swap/${alice.userId}`,
            { chainId: 8453, sellToken: 'ETH', buyToken: 'WETH', sellAmount: '1000' },
            { 'x-idempotency-key': randomUUID() },
          );
          expect(rest.status).toBe(503);
          expect(JSON.stringify(rest.body)).toContain('KILL_SWITCH_ACTIVE');
        }
      });
      expect(loud(lines)).toEqual([]);
      // Still one access line each, at info, naming the refusal.
      const rest = lines.filter((line) => line.msg === 'request completed' && line.res?.statusCode === 503);
      expect(rest).toHaveLength(REFUSALS);
      expect(rest.every((line) => line.level === 30 && line.errorCode === 'KILL_SWITCH_ACTIVE')).toBe(true);
    } finally {
      await ops.put(KILL_SWITCH, { chain: 'solana', active: false });
      await ops.put(KILL_SWITCH, { chain: 'base', active: false });
    }
  });

  it('logs trading-off, scope and credential refusals and the MCP GET probe at info', async () => {
    const off = await alice.agent('trading-off');
    const trade = await alice.agentKey(off.agentId, 'trade');
    const read = await alice.agentKey(off.agentId, 'read');
    const swap = (secret: string) =>
      rawRpc(
        svc.url,
        off.publicId,
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: 'trading_solana_aggregator_swap',
            arguments: { inputMint: 'SOL', outputMint: BONK, amount: '1000', idempotencyKey: randomUUID() },
          },
        },
        bearer(secret),
      );
    const lines = await linesOf(async () => {
      for (let i = 0; i < 5; i++) {
        expect((await swap(trade.secret)).text).toContain('TRADING_DISABLED');
        expect((await swap(read.secret)).status).toBe(403);
        expect((await swap('sk_wrong')).status).toBe(401);
        expect((await new Client(svc.url).get('/api/nest/agents')).status).toBe(401);
        // What the MCP SDK client sends first, to look for a server-initiated stream.
        expect(
          (await fetch(`${svc.url}/mcp/${off.publicId}`, { headers: { accept: 'text/event-stream', ...bearer(trade.secret) } })).status,
        ).toBe(405);
      }
    });
    expect(lines.length).toBeGreaterThanOrEqual(25);
    expect(loud(lines)).toEqual([]);
  });
});
