/**
 * Money over MCP from outside: tools that move funds or sign take no call without
 * `idempotencyKey` (and `tools/list` says so), a key replays its first answer and moves money
 * once, and every refusal of the safety path is one shape: a result with `isError: true`, the
 * interface's message as its text and `{code, message, retryable, retryAfter?}` as its
 * structured content. Faults stay JSON-RPC -32603.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient, type SdkError } from '../../sdk/src/index.js';
import { bearer, Operator, rawRpc } from '../support/mcp-fixtures.js';
import { Client, startTestService, type TestService } from '../support/test-service.js';

const KILL_SWITCH = '/api/nest/ops/trading/kill-switch';
const TOKEN = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const SPENDER = '0x000000000000000000000000000000000000dEaD';

/** Each money tool with arguments that are valid but for the missing key. */
const MONEY_CALLS: Record<string, Record<string, unknown>> = {
  trading_solana_aggregator_swap: { inputMint: 'USDC', outputMint: 'SOL', amount: '1000000' },
  trading_evm_swap: { chainId: 8453, sellToken: 'USDC', buyToken: 'WETH', sellAmount: '1000000' },
  trading_orders_approve: { order_id: 'ord_unknown' },
  trading_command: { message: 'buy 0.01 SOL of BONK' },
  agent_wallet_withdraw_evm: { chainId: 8453, token: 'USDC', amount: '1', to: SPENDER },
  agent_wallet_withdraw_solana: { mint: 'USDC', amount: '1', to: 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263' },
  trading_evm_approval_record: { chain: 'base', token: TOKEN, spender: SPENDER, amount: '1' },
  trading_evm_approval_revoke: { chain: 'base', token: TOKEN, spender: SPENDER },
};

/** The one shape of a refusal over MCP. */
const refusal = (code: string, message: string, retryable = false) => ({
  content: [{ type: 'text', text: message }],
  structuredContent: { code, message, retryable },
  isError: true,
});

/** An operator's agent with trading on, a custodial Solana wallet and a trade key. */
async function tradingAgent(svc: TestService, name: string, funded: boolean) {
  const operator = await Operator.signIn(svc);
  const agent = await operator.agent(name);
  const http = operator.client;
  expect((await http.put(`/api/nest/agents/${agent.agentId}/trading`, { enabled: true })).status).toBe(200);
  const wallet = await http.post(`/api/nest/trading/wallets/custodial/${operator.userId}`, {}, { 'x-idempotency-key': randomUUID() });
  expect(wallet.status).toBeLessThan(300);
  if (funded) {
    for (const [token, amount] of [
      ['USDC', '5000'],
      ['SOL', '10'],
    ]) {
      const credited = await http.post(`/api/nest/trading/paper/faucet/${operator.userId}`, { chain: 'solana', token, amount });
      expect(credited.status).toBe(200);
    }
  }
  const { secret } = await operator.agentKey(agent.agentId, 'trade');
  let id = 0;
  const call = (name: string, args: Record<string, unknown>) =>
    rawRpc(svc.url, agent.publicId, { jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: args } }, bearer(secret));
  return { operator, agent, http, secret, call };
}

describe('money tools over MCP (paper venue, e2e)', () => {
  let svc: TestService;
  let trader: Awaited<ReturnType<typeof tradingAgent>>;
  let ops: Client;

  beforeAll(async () => {
    svc = await startTestService();
    trader = await tradingAgent(svc, 'money', true);
    ops = new Client(svc.url);
    ops.bearer = svc.opsToken;
  });
  afterAll(() => svc.stop());

  const swap = (args: Record<string, unknown> = {}) =>
    trader.call('trading_solana_aggregator_swap', {
      inputMint: 'USDC',
      outputMint: 'SOL',
      amount: '1000000',
      idempotencyKey: randomUUID(),
      ...args,
    });

  it('tools/list shows idempotencyKey as required on every tool that moves funds or signs, and only there', async () => {
    const listed = await rawRpc(svc.url, trader.agent.publicId, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, bearer(trader.secret));
    const required = new Map(
      (listed.body.result.tools as Array<{ name: string; inputSchema: { required?: string[] } }>).map((tool) => [
        tool.name,
        tool.inputSchema.required ?? [],
      ]),
    );
    for (const name of Object.keys(MONEY_CALLS)) expect(required.get(name), name).toContain('idempotencyKey');
    // Creating a wallet moves nothing: its key stays optional, as the interface's `trading_wallet_custodial_ensure` takes none.
    for (const name of ['trading_wallet_custodial_ensure', 'trading_evm_wallet_create_custodial']) {
      expect(required.has(name), name).toBe(true);
      expect(required.get(name), name).not.toContain('idempotencyKey');
    }
  });

  it('a money tool called without idempotencyKey is -32602 INVALID_PARAMS: idempotencyKey is required, and nothing moves', async () => {
    const before = (await trader.http.get(`/api/nest/trading/orders/${trader.operator.userId}?limit=200`)).body.items.length;
    for (const [name, args] of Object.entries(MONEY_CALLS)) {
      const answer = await trader.call(name, args);
      expect(answer.status, name).toBe(200);
      expect(answer.body.error, name).toEqual({ code: -32602, message: 'INVALID_PARAMS: idempotencyKey is required' });
    }
    expect((await trader.http.get(`/api/nest/trading/orders/${trader.operator.userId}?limit=200`)).body.items).toHaveLength(before);
  });

  it('the same key twice answers the first result again and moves money once', async () => {
    const usdc = async () => {
      const positions = (await trader.http.get(`/api/nest/trading/positions/${trader.operator.userId}`)).body.positions as Array<{
        symbol: string;
        amount: string;
      }>;
      return Number(positions.find((position) => position.symbol === 'USDC')!.amount);
    };
    const before = await usdc();
    const idempotencyKey = randomUUID();
    const first = await swap({ amount: '7000000', idempotencyKey });
    expect(first.body.result).toMatchObject({ isError: false, structuredContent: { status: 'filled', amountIn: '7000000' } });
    const again = await swap({ amount: '7000000', idempotencyKey });
    expect(again.body.result).toEqual(first.body.result);
    expect(before - (await usdc())).toBeCloseTo(7, 6);
  });

  it('insufficient balance, a cap of the risk policy and the slippage tolerance are refusals in the one shape', async () => {
    expect((await swap({ amount: '999000000000' })).body).toMatchObject({
      result: refusal('INSUFFICIENT_BALANCE', 'Insufficient balance for requested swap amount'),
    });
    const risk = (body: Record<string, unknown>) => trader.http.put(`/api/nest/trading/config/${trader.operator.userId}/risk-policy`, body);
    expect((await risk({ maxOrderUsd: 1 })).status).toBe(200);
    try {
      expect((await swap({ amount: '5000000' })).body.result).toEqual(
        refusal('RISK_LIMIT_EXCEEDED', 'Order value $5.00 exceeds the maximum order size of $1.00 (risk policy)'),
      );
    } finally {
      expect((await risk({ maxOrderUsd: null })).status).toBe(200);
    }
    expect((await swap({ amount: '4000000000', slippageBps: 1 })).body.result).toEqual(
      refusal('SLIPPAGE_EXCEEDED', 'Slippage tolerance exceeded'),
    );
  });

  it('the kill switch is a refusal result, not -32603; the SDK maps it to execution_error with the message and code', async () => {
    expect((await ops.put(KILL_SWITCH, { chain: 'solana', active: true })).status).toBe(200);
    try {
      const message = 'Trading kill switch is active for chain: solana';
      const answer = await swap();
      expect(answer.status).toBe(200);
      expect(answer.body.error).toBeUndefined();
      expect(answer.body.result).toEqual(refusal('KILL_SWITCH_ACTIVE', message));
      const sdk = new AgentClient({ baseUrl: svc.url, publicId: trader.agent.publicId, apiKey: trader.secret });
      const error = (await sdk
        .callTool('trading_solana_aggregator_swap', { inputMint: 'USDC', outputMint: 'SOL', amount: '1000000' })
        .catch((caught: unknown) => caught)) as SdkError;
      expect(error).toMatchObject({ code: 'execution_error', status: 200, message, serverCode: 'KILL_SWITCH_ACTIVE' });
      expect(error.retryable).toBe(false);
    } finally {
      await ops.put(KILL_SWITCH, { chain: 'solana', active: false });
    }
  });

  it('trading switched off and withdrawals switched off are refusals in the one shape', async () => {
    const off = await tradingAgent(svc, 'switched-off', false);
    expect((await off.http.put(`/api/nest/agents/${off.agent.agentId}/trading`, { enabled: false })).status).toBe(200);
    const swapped = await off.call('trading_solana_aggregator_swap', {
      ...MONEY_CALLS.trading_solana_aggregator_swap,
      idempotencyKey: randomUUID(),
    });
    // The next step rides beside the interface's message, in English.
    expect(swapped.body.result).toEqual({
      ...refusal('TRADING_DISABLED', 'Trading bu bot icin kapali.'),
      structuredContent: {
        ...refusal('TRADING_DISABLED', 'Trading bu bot icin kapali.').structuredContent,
        hint: expect.stringContaining(`PUT /api/nest/agents/${off.agent.agentId}/trading {"enabled":true}`),
      },
    });
    const withdrawn = await off.call('agent_wallet_withdraw_solana', {
      ...MONEY_CALLS.agent_wallet_withdraw_solana,
      idempotencyKey: randomUUID(),
    });
    expect(withdrawn.body.result).toEqual(refusal('AUTHORIZATION_FAILED', 'Withdrawals are disabled for this agent'));
  });
});

describe('money tools over MCP with the venue provider down (live profile, e2e)', () => {
  let svc: TestService;
  let down: Server;

  beforeAll(async () => {
    // Every provider call answers 502, like a vendor outage.
    down = createServer((_req, res) => res.writeHead(502, { 'content-type': 'application/json' }).end('{"error":"bad gateway"}'));
    await new Promise<void>((resolve) => down.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(down.address() as AddressInfo).port}`;
    svc = await startTestService({
      env: {
        TRADING_VENUE: 'live',
        JUPITER_API_URL: `${url}/swap/v1`,
        SOLANA_RPC_URL: url,
        CIRCUIT_BREAKER_THRESHOLD: '2',
        PROVIDER_TIMEOUT_MS: '2000',
      },
    });
  });
  afterAll(async () => {
    await svc.stop();
    await new Promise((resolve) => down.close(resolve));
  });

  it('a provider failing is -32603 Tool execution failed; the breaker it opens is a refusal result with retryAfter', async () => {
    const { call } = await tradingAgent(svc, 'breaker', false);
    const swap = () =>
      call('trading_solana_aggregator_swap', { inputMint: 'SOL', outputMint: 'USDC', amount: '1000', idempotencyKey: randomUUID() });
    const failed = await swap();
    expect(failed.body.error).toMatchObject({ code: -32603, message: expect.stringMatching(/^Tool execution failed: /) });
    let refused = await swap();
    // Each call may reach the provider more than once before the breaker has counted its threshold.
    for (let attempt = 0; attempt < 5 && refused.body.error; attempt++) refused = await swap();
    const message = 'Circuit breaker open for provider: jupiter';
    expect(refused.body.result).toEqual({
      content: [{ type: 'text', text: message }],
      structuredContent: { code: 'CIRCUIT_BREAKER_OPEN', message, retryable: true, retryAfter: expect.any(Number) },
      isError: true,
    });
    expect(refused.body.result.structuredContent.retryAfter).toBeGreaterThan(0);
  });
});
