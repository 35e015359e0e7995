/**
 * Amounts at the edges of what the routes accept: every USD figure stays a plain two-decimal
 * string (a float past 1e21 printed as `1.4e+21` broke the portfolio summary), the longest
 * base-unit amount a route takes reaches the venue without a message about the venue's fields,
 * and a wrap (ETH -> WETH) moves its cost basis instead of realizing a trade.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { bearer, Operator, rawRpc } from '../support/mcp-fixtures.js';
import { signInSolana, startTestService, type Client, type TestService } from '../support/test-service.js';

const USD = /^-?\d+\.\d{2}$/;
const PLAIN = /^-?\d+(\.\d+)?$/;

describe('trading amounts at the edges (e2e)', () => {
  let svc: TestService;
  let http: Client;
  let userId: string;
  let agent: { agentId: string; publicId: string };
  let operator: Operator;
  let readKey: string;
  let clock: ManualClock;

  beforeAll(async () => {
    clock = new ManualClock(Date.parse('2026-11-21T12:00:00Z'));
    svc = await startTestService({ clock });
    operator = await Operator.signIn(svc);
    http = operator.client;
    userId = operator.userId;
    agent = await operator.agent('whale');
    expect((await http.put(`/api/nest/agents/${agent.agentId}/trading`, { enabled: true })).status).toBe(200);
    expect(
      (await http.post(`/api/nest/trading/wallets/custodial/${userId}`, {}, { 'x-idempotency-key': randomUUID() })).status,
    ).toBeLessThan(300);
    readKey = (await operator.agentKey(agent.agentId, 'read')).secret;
  });
  afterAll(async () => {
    await svc.stop();
  });

  it('a holding worth more than $1e21 is valued in plain decimals on every route', async () => {
    // 1e19 SOL (about $1.4e21) and 1e24 USDC: the faucet takes up to 30 whole digits.
    expect(
      (await http.post(`/api/nest/trading/paper/faucet/${userId}`, { chain: 'solana', token: 'SOL', amount: '10000000000000000000' }))
        .status,
    ).toBe(200);
    expect(
      (await http.post(`/api/nest/trading/paper/faucet/${userId}`, { chain: 'solana', token: 'USDC', amount: '1000000000000000000000000' }))
        .status,
    ).toBe(200);

    const pnl = await http.get(`/api/nest/trading/positions/${userId}/pnl`);
    expect(pnl.status).toBe(200);
    for (const position of pnl.body.positions) {
      expect(position).toMatchObject({
        valueUsd: expect.stringMatching(USD),
        costBasisUsd: expect.stringMatching(USD),
        priceUsd: expect.stringMatching(PLAIN),
        avgCostUsd: expect.stringMatching(PLAIN),
      });
    }
    expect(pnl.body.totals.valueUsd).toMatch(USD);
    expect(Number(pnl.body.totals.valueUsd)).toBeGreaterThan(1e24);

    const summary = await rawRpc(
      svc.url,
      agent.publicId,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'trading_portfolio_summary', arguments: {} } },
      bearer(readKey),
    );
    expect(summary.body.result).toMatchObject({ isError: false, structuredContent: { valueUsd: expect.stringMatching(USD) } });
    // The summary adds exact decimals, the PnL totals floats: at this size they agree to 15 digits.
    expect(Number(summary.body.result.structuredContent.valueUsd) / Number(pnl.body.totals.valueUsd)).toBeCloseTo(1, 12);

    const portfolio = await http.post('/api/nest/trading/command', { message: 'portfolio' }, { 'x-idempotency-key': randomUUID() });
    expect(portfolio.status).toBe(200);
    expect(JSON.stringify(portfolio.body)).not.toMatch(/\de\+\d/);
  });

  it("a sell amount of 78 digits (a uint256) is quoted, not refused with the venue's own field name", async () => {
    const quote = await http.post(`/api/nest/trading/evm/quote/${userId}`, {
      chainId: 8453,
      sellToken: 'USDC',
      buyToken: 'WETH',
      sellAmount: '9'.repeat(78),
    });
    expect(quote.status).toBe(200);
    expect(quote.body).toMatchObject({ sellAmount: '9'.repeat(78), buyAmount: expect.stringMatching(/^\d+$/) });
    expect(
      (
        await http.post(`/api/nest/trading/evm/quote/${userId}`, {
          chainId: 8453,
          sellToken: 'USDC',
          buyToken: 'WETH',
          sellAmount: '9'.repeat(79),
        })
      ).body.message,
    ).toEqual(['sellAmount: must be an integer amount in base units, as a decimal string']);
  });

  it('wrapping ETH is no trade: WETH carries the cost of the ETH wrapped, nothing is realized', async () => {
    expect((await http.post(`/api/nest/trading/evm/wallets/${userId}/custodial`, {}, { 'x-idempotency-key': randomUUID() })).status).toBe(
      201,
    );
    expect((await http.post(`/api/nest/trading/paper/faucet/${userId}`, { chain: 'base', token: 'ETH', amount: '1' })).status).toBe(200);
    const ethAt = async () =>
      (
        (await http.get(`/api/nest/trading/positions/${userId}/pnl`)).body.positions as Array<{
          chain: string;
          symbol: string;
          costBasisUsd: string;
          realizedPnlUsd: string;
        }>
      ).filter((p) => p.chain === 'base');
    const [deposited] = await ethAt();
    // Twelve hours later the price has moved; the wrap happens at the new price.
    clock.jumpTo(clock.now() + 12 * 3_600_000);
    await signInSolana(http, operator.wallet);
    const wrapped = await http.post(
      `/api/nest/trading/evm/swap/${userId}`,
      { chainId: 8453, sellToken: 'ETH', buyToken: 'WETH', sellAmount: '500000000000000000' },
      { 'x-idempotency-key': randomUUID() },
    );
    expect(wrapped.body).toMatchObject({ status: 'filled', filledOut: '500000000000000000' });
    const after = await ethAt();
    const eth = after.find((p) => p.symbol === 'ETH')!;
    const weth = after.find((p) => p.symbol === 'WETH')!;
    expect(eth.realizedPnlUsd).toBe('0.00');
    // Half the ETH's cost moved to WETH: the two halves add up to the deposit's cost (each in cents).
    const cents = (usd: string) => Math.round(Number(usd) * 100);
    expect(Math.abs(cents(eth.costBasisUsd) + cents(weth.costBasisUsd) - cents(deposited!.costBasisUsd))).toBeLessThanOrEqual(1);
    expect(Math.abs(2 * cents(weth.costBasisUsd) - cents(deposited!.costBasisUsd))).toBeLessThanOrEqual(1);
  });
});
