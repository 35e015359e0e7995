/**
 * The risk and security checks family over MCP (`read`): a trade's preflight through the
 * whole safety path (each check's verdict in order, nothing placed) and a token's risk report
 * from what the service knows.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse, until, type SseStream } from '../support/events-harness.js';
import { bearer, Operator, rawRpc } from '../support/mcp-fixtures.js';
import { startTestService, type TestService } from '../support/test-service.js';

const SOL = 'So11111111111111111111111111111111111111112';
const BONK = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
const ONE_SOL = '1000000000';
const SAFETY_CHECKS = [
  'credential_scope',
  'trading_enabled',
  'kill_switch',
  'wallet',
  'token',
  'blacklist',
  'input_mint',
  'amount',
  'risk_policy',
  'spending_cap',
  'balance',
  'quote_slippage',
  'circuit_breaker',
  'daily_volume',
];

interface Verdict {
  check: string;
  verdict: 'passed' | 'refused' | 'not_run';
  code?: string;
  message?: string;
}

describe('MCP risk and security checks: trade preflight and token risk report', () => {
  let svc: TestService;
  let operator: Operator;
  let agent: { agentId: string; publicId: string };
  const keys = {} as Record<'read' | 'trade', string>;
  /** The agent's event stream from the start: a dry run publishes no `risk.blocked`, a refused trade does. */
  let events: SseStream;
  let id = 0;

  const call = async (secret: string, name: string, args: Record<string, unknown>) => {
    const answer = await rawRpc(
      svc.url,
      agent.publicId,
      { jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: args } },
      bearer(secret),
    );
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.result?.isError, answer.text).toBe(false);
    return answer.body.result.structuredContent;
  };
  const preflight = (args: Record<string, unknown>, secret = keys.trade) =>
    call(secret, 'trading_preflight', { inputToken: 'SOL', outputToken: 'BONK', amount: ONE_SOL, ...args });
  /** `check: verdict` of every check, in the order answered. */
  const verdicts = (checks: Verdict[]) => checks.map((check) => `${check.check}: ${check.verdict}`);
  /** The verdicts of a preflight refused at `at`: passed before it, not run after. */
  const refusedAt = (at: string) =>
    SAFETY_CHECKS.map((check, index) => {
      const position = SAFETY_CHECKS.indexOf(at);
      return `${check}: ${index < position ? 'passed' : index === position ? 'refused' : 'not_run'}`;
    });
  const orders = async () => (await operator.client.get(`/api/nest/trading/orders/${operator.userId}?agentId=${agent.agentId}`)).body.items;
  const setPolicy = async (body: Record<string, unknown>) =>
    expect(
      (await operator.client.put(`/api/nest/trading/config/${operator.userId}/risk-policy?agentId=${agent.agentId}`, body)).status,
    ).toBe(200);

  beforeAll(async () => {
    svc = await startTestService();
    operator = await Operator.signIn(svc);
    agent = await operator.agent('preflight');
    keys.read = (await operator.agentKey(agent.agentId, 'read')).secret;
    keys.trade = (await operator.agentKey(agent.agentId, 'trade')).secret;
    events = await openSse(svc.url, agent.publicId, { secret: keys.read });
    expect(events.status).toBe(200);
    const wallet = await operator.client.post(
      `/api/nest/trading/wallets/custodial/${operator.userId}`,
      { agentId: agent.agentId },
      { 'x-idempotency-key': randomUUID() },
    );
    expect(wallet.status).toBe(201);
    const funded = await operator.client.post(`/api/nest/trading/paper/faucet/${operator.userId}`, {
      chain: 'solana',
      token: 'SOL',
      amount: '5',
      agentId: agent.agentId,
    });
    expect(funded.status).toBe(200);
  });
  afterAll(async () => {
    events.close();
    await svc.stop();
  });

  it('trading off: refused at trading_enabled with the interface message, the rest not run, no order placed', async () => {
    const result = await preflight({});
    expect(result.passed).toBe(false);
    expect(verdicts(result.checks)).toEqual(refusedAt('trading_enabled'));
    expect(result.checks[1]).toMatchObject({ code: 'TRADING_DISABLED', message: 'Trading bu bot icin kapali.', retryable: false });
    expect(result.trade).toBeUndefined();
  });

  it('a trade that passes: every check passed, the order it would make, and nothing placed, reserved or spent', async () => {
    expect((await operator.client.put(`/api/nest/agents/${agent.agentId}/trading`, { enabled: true })).status).toBe(200);
    const result = await preflight({ slippageBps: 300 });
    expect(result.passed).toBe(true);
    expect(verdicts(result.checks)).toEqual(SAFETY_CHECKS.map((check) => `${check}: passed`));
    expect(result.trade).toMatchObject({
      chain: 'solana',
      inputToken: SOL,
      inputSymbol: 'SOL',
      outputToken: BONK,
      amountIn: ONE_SOL,
      slippageBps: 300,
      venue: 'paper',
      valueUsd: expect.stringMatching(/^\d+\.\d{2}$/),
      approval: 'auto_approved',
    });
    expect(BigInt(result.trade.minOut)).toBeLessThanOrEqual(BigInt(result.trade.expectedOut));
    // The owner's console reaches the same operation over REST.
    const rest = await operator.client.post(`/api/nest/trading/preflight/${operator.userId}`, {
      agentId: agent.agentId,
      inputToken: 'SOL',
      outputToken: 'BONK',
      amount: ONE_SOL,
      slippageBps: 300,
    });
    expect(rest.status).toBe(200);
    expect(verdicts(rest.body.checks)).toEqual(verdicts(result.checks));
    expect(await orders()).toEqual([]);
  });

  it('a read key gets the verdicts too, its own scope refused first: the trade would pass for a trade key', async () => {
    const result = await preflight({ slippageBps: 300 }, keys.read);
    expect(result.passed).toBe(false);
    expect(result.checks[0]).toEqual({
      check: 'credential_scope',
      verdict: 'refused',
      code: 'AUTHORIZATION_FAILED',
      message: 'Scope insufficient: required trade, got read',
      retryable: false,
    });
    expect(result.checks.slice(1).every((check: Verdict) => check.verdict === 'passed')).toBe(true);
  });

  it('the trading family switched off: the first verdict is the swap tool hidden, as the swap itself would answer', async () => {
    const settings = (body: unknown) =>
      fetch(`${svc.url}/api/nest/ops/catalog`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${svc.opsToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await settings({ disabledFamilies: ['trading'], disabledOperations: [] })).status).toBe(200);
    try {
      const result = await preflight({ slippageBps: 300 });
      expect(result.checks[0]).toMatchObject({
        check: 'credential_scope',
        verdict: 'refused',
        code: 'RESOURCE_NOT_FOUND',
        message: 'Tool not found: trading_solana_aggregator_swap',
      });
      expect(result.passed).toBe(false);
    } finally {
      expect((await settings({ disabledFamilies: [], disabledOperations: [] })).status).toBe(200);
    }
  });

  it('insufficient balance: refused at balance with the interface message', async () => {
    const result = await preflight({ amount: '50000000000' });
    expect(verdicts(result.checks)).toEqual(refusedAt('balance'));
    expect(result.checks.find((check: Verdict) => check.check === 'balance')).toMatchObject({
      code: 'INSUFFICIENT_BALANCE',
      message: 'Insufficient balance for requested swap amount',
    });
  });

  it('over a cap: the maximum order size, then the daily volume, each refused where the trade would be', async () => {
    await setPolicy({ maxOrderUsd: 1 });
    const overOrder = await preflight({});
    expect(verdicts(overOrder.checks)).toEqual(refusedAt('risk_policy'));
    expect(overOrder.checks.find((check: Verdict) => check.check === 'risk_policy')).toMatchObject({
      code: 'RISK_LIMIT_EXCEEDED',
      message: expect.stringMatching(/^Order value \$[\d.]+ exceeds the maximum order size of \$1\.00 \(risk policy\)$/),
    });
    await setPolicy({ maxOrderUsd: null, dailyVolumeUsd: 1 });
    const overDay = await preflight({});
    expect(verdicts(overDay.checks)).toEqual(refusedAt('daily_volume'));
    expect(overDay.checks.at(-1)).toMatchObject({
      code: 'RISK_LIMIT_EXCEEDED',
      message: 'Order would exceed the daily volume limit of $1.00 (risk policy; $0.00 used today)',
    });
    // Priced before the refusal: the order it would have made is shown.
    expect(overDay.trade).toMatchObject({ amountIn: ONE_SOL });
    await setPolicy({ dailyVolumeUsd: null });
  });

  it("the P3 constraint and unknown tokens are refused at their checks, with the tool's own field names", async () => {
    const bonkIn = await preflight({ inputToken: 'BONK', outputToken: 'SOL', amount: '1000' });
    expect(verdicts(bonkIn.checks)).toEqual(refusedAt('input_mint'));
    expect(bonkIn.checks[6]).toMatchObject({ message: 'inputMint must be native SOL or USDC (P3 constraint)' });
    const unknown = await preflight({ outputToken: 'NOPE_NOT_A_TOKEN' });
    expect(verdicts(unknown.checks)).toEqual(refusedAt('token'));
    expect(unknown.checks[4]).toMatchObject({ code: 'TOKEN_NOT_FOUND', message: 'Token not found: NOPE_NOT_A_TOKEN' });
  });

  it('no dry run left an order behind; the trade itself passes the same checks the preflight named', async () => {
    expect(await orders()).toEqual([]);
    const placed = await call(keys.trade, 'trading_solana_aggregator_swap', {
      inputMint: 'SOL',
      outputMint: 'BONK',
      amount: ONE_SOL,
      slippageBps: 300,
      idempotencyKey: randomUUID(),
    });
    expect(placed).toMatchObject({ status: 'filled', checks: [...SAFETY_CHECKS.slice(0, -1), 'auto_approved'] });
    expect(await orders()).toHaveLength(1);
    // A real refusal is published; none of the refused preflights above was.
    const refused = await rawRpc(
      svc.url,
      agent.publicId,
      {
        jsonrpc: '2.0',
        id: ++id,
        method: 'tools/call',
        params: {
          name: 'trading_solana_aggregator_swap',
          arguments: { inputMint: 'SOL', outputMint: 'BONK', amount: '50000000000', idempotencyKey: randomUUID() },
        },
      },
      bearer(keys.trade),
    );
    expect(refused.body.result.isError).toBe(true);
    await until(() => events.events().some((event) => event.event === 'risk.blocked'), 'risk.blocked of the refused swap');
    const blocked = events.events().filter((event) => event.event === 'risk.blocked');
    expect(blocked.map((event) => event.data.check)).toEqual(['balance']);
  });

  it('token risk report: a listed native token, a token that may not be spent, and an unlisted one', async () => {
    const sol = await call(keys.read, 'trading_token_risk_report', { token: 'SOL' });
    expect(sol).toMatchObject({
      chain: 'solana',
      query: 'SOL',
      listed: true,
      token: { address: SOL, symbol: 'SOL', decimals: 9, native: true },
      priceUsd: expect.any(Number),
      account: { blacklisted: false, favorite: false, spendable: true },
      chainStatus: { venueTradesChain: true, killSwitch: false, breaker: 'closed' },
    });
    expect(sol.riskFlags).not.toContain('unlisted');

    const blacklisted = await operator.client.post(`/api/nest/trading/config/${operator.userId}/blacklist?agentId=${agent.agentId}`, {
      chain: 'solana',
      address: BONK,
    });
    expect(blacklisted.status).toBeLessThan(300);
    const bonk = await call(keys.read, 'trading_token_risk_report', { token: BONK, chain: 'solana' });
    expect(bonk).toMatchObject({
      listed: true,
      token: { symbol: 'BONK', native: false },
      account: { spendable: false, blacklisted: true },
    });
    expect(bonk.riskFlags).toContain('blacklisted');

    const unknown = await call(keys.read, 'trading_token_risk_report', { token: 'NOPE_NOT_A_TOKEN' });
    expect(unknown).toMatchObject({ listed: false, priceUsd: null, riskFlags: ['unlisted'] });
    expect(unknown.token).toBeUndefined();
  });
});
