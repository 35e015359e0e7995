/**
 * The trading core from outside, as an operator's console and an MCP client use it:
 * custodial wallet, paper faucet, quotes, swaps through the safety path, positions and
 * PnL, every trading error word for word, approvals and their expiry.
 */
import { randomUUID } from 'node:crypto';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_MESSAGES } from '../../kernel/errors/idempotency-messages.js';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { Operator } from '../support/mcp-fixtures.js';
import { type Client, signInSolana, startTestService, type TestService } from '../support/test-service.js';

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const BONK = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
const MINUTE = 60_000;

describe('trading core (e2e)', () => {
  const clock = new ManualClock(Date.parse('2026-11-21T12:00:00Z'));
  let svc: TestService;
  let operator: Operator;
  let http: Client;
  let userId: string;
  let agent: { agentId: string; publicId: string };
  const open: McpClient[] = [];

  const key = () => ({ 'x-idempotency-key': randomUUID() });
  const command = (message: string, headers: Record<string, string> = key()) =>
    http.post('/api/nest/trading/command', { message }, headers);
  const faucet = (token: string, amount: string, chain = 'solana') =>
    http.post(`/api/nest/trading/paper/faucet/${userId}`, { chain, token, amount });
  const setProfile = (body: Record<string, unknown>) => http.put(`/api/nest/trading/config/${userId}/default-order-profile`, body);

  beforeAll(async () => {
    svc = await startTestService({ clock });
    operator = await Operator.signIn(svc);
    http = operator.client;
    userId = operator.userId;
    agent = await operator.agent('trader');
    expect((await http.put(`/api/nest/agents/${agent.agentId}/trading`, { enabled: true })).status).toBe(200);
  });
  afterAll(async () => {
    await Promise.all(open.map((client) => client.close()));
    await svc.stop();
  });

  async function mcp(scope: 'read' | 'trade'): Promise<McpClient> {
    const { secret } = await operator.agentKey(agent.agentId, scope, `${scope}-${randomUUID().slice(0, 6)}`);
    const client = new McpClient({ name: 'trading-e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp/${agent.publicId}`), {
        requestInit: { headers: { Authorization: `Bearer ${secret}` } },
      }),
    );
    open.push(client);
    return client;
  }

  it('needs a custodial wallet before trading, then creates one idempotently', async () => {
    expect(await command('buy 0.5 SOL of BONK')).toMatchObject({
      status: 400,
      body: { statusCode: 400, message: 'Custodial wallet required for this operation', code: 'WALLET_REQUIRED' },
    });
    const created = await http.post(`/api/nest/trading/wallets/custodial/${userId}`, {}, key());
    expect(created.status).toBeLessThan(300);
    expect(created.body).toMatchObject({ chain: 'solana', custodial: true, address: expect.any(String), walletId: expect.any(String) });
    const again = await http.post(`/api/nest/trading/wallets/custodial/${userId}`, {}, key());
    expect(again.body.walletId).toBe(created.body.walletId);
  });

  it('funds the wallet from the paper faucet and shows the deposit as a position', async () => {
    expect(await faucet('SOL', '10')).toMatchObject({ status: 200, body: { symbol: 'SOL', credited: '10', balance: '10' } });
    expect((await faucet('USDC', '5000000')).body.balance).toBe('5000000');
    const positions = await http.get(`/api/nest/trading/positions/${userId}`);
    expect(positions.status).toBe(200);
    expect(positions.body.positions.map((p: { symbol: string }) => p.symbol).sort()).toEqual(['SOL', 'USDC']);
  });

  it('the faucet books balance and position as one deposit, whatever X-Request-Id the client sends', async () => {
    const books = await operator.agent('faucet-books');
    const agentId = books.agentId;
    expect((await http.put(`/api/nest/agents/${agentId}/trading`, { enabled: true })).status).toBe(200);
    expect((await http.post(`/api/nest/trading/wallets/custodial/${userId}`, { agentId }, key())).status).toBeLessThan(300);
    const sameId = { 'x-request-id': `req-${randomUUID()}` };
    for (const balance of ['100', '200', '300']) {
      const funded = await http.post(
        `/api/nest/trading/paper/faucet/${userId}`,
        { chain: 'solana', token: 'USDC', amount: '100', agentId },
        sameId,
      );
      expect(funded).toMatchObject({ status: 200, body: { credited: '100', balance } });
    }
    const pnl = async () =>
      (await http.get(`/api/nest/trading/positions/${userId}/pnl?agentId=${agentId}`)).body.positions as Array<Record<string, string>>;
    expect((await pnl()).find((p) => p.symbol === 'USDC')).toMatchObject({ amount: '300', costBasisUsd: '300.00', realizedPnlUsd: '0.00' });

    const sold = await http.post('/api/nest/trading/command', { message: 'sell all USDC', agentId }, key());
    expect(sold).toMatchObject({ status: 200, body: { order: { status: 'filled', amountIn: '300000000' } } });
    const usdc = (await pnl()).find((p) => p.symbol === 'USDC')!;
    // Three deposits at $1 sold: the sale realizes its fee (30 bps) and price impact, no profit out of nowhere.
    expect(usdc).toMatchObject({ amount: '0', costBasisUsd: '0.00' });
    expect(Number(usdc.realizedPnlUsd)).toBeLessThanOrEqual(-0.9);
    expect(Number(usdc.realizedPnlUsd)).toBeGreaterThan(-3);
  });

  it("the faucet reports what it credited: digits past the token's decimals are dropped, and an amount below one base unit is refused", async () => {
    expect(await faucet('USDT', '1.1234567')).toMatchObject({
      status: 200,
      body: { symbol: 'USDT', credited: '1.123456', balance: '1.123456' },
    });
    expect(await faucet('BONK', '1.000009')).toMatchObject({ status: 200, body: { symbol: 'BONK', credited: '1', balance: '1' } });
    expect(await faucet('USDT', '0.0000009')).toMatchObject({
      status: 400,
      body: { message: ['amount is below the smallest unit of USDT (0.000001)'] },
    });
    expect(await faucet('USDT', '0.000')).toMatchObject({ status: 400, body: { message: ['amount must be greater than 0'] } });
    expect((await faucet('USDT', '1')).body.balance).toBe('2.123456');
  });

  it('quotes an EVM swap with price impact that grows with size', async () => {
    const small = await http.post(`/api/nest/trading/evm/quote/${userId}`, {
      chainId: 8453,
      sellToken: 'USDC',
      buyToken: 'WETH',
      sellAmount: '1000000000',
    });
    expect(small.status).toBe(200);
    expect(small.body).toMatchObject({ chainId: 8453, sellAmount: '1000000000', venue: 'paper' });
    expect(BigInt(small.body.minBuyAmount)).toBeLessThan(BigInt(small.body.buyAmount));
    const large = await http.post(`/api/nest/trading/evm/quote/${userId}`, {
      chainId: 8453,
      sellToken: 'USDC',
      buyToken: 'WETH',
      sellAmount: '5000000000000',
    });
    expect(large.body.priceImpactBps).toBeGreaterThan(small.body.priceImpactBps);
    // Wrapping is no trade: 1:1, no fee, no impact.
    const wrap = await http.post(`/api/nest/trading/evm/quote/${userId}`, {
      chainId: 8453,
      sellToken: 'ETH',
      buyToken: 'WETH',
      sellAmount: '1000000000000000000',
    });
    expect(wrap.body).toMatchObject({ buyAmount: '1000000000000000000', feeAmount: '0', priceImpactBps: 0 });
  });

  it('swaps through the command route, moves the position, and PnL moves with the price feed', async () => {
    const done = await command('buy 0.5 SOL of BONK');
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      success: true,
      intent: 'buy',
      order: { status: 'filled', inputMint: SOL, outputMint: BONK, amountIn: '500000000', venue: 'paper' },
    });
    expect(BigInt(done.body.order.filledOut)).toBeGreaterThanOrEqual(BigInt(done.body.order.minOut));
    expect(done.body.order.checks).toEqual(
      expect.arrayContaining([
        'trading_enabled',
        'kill_switch',
        'wallet',
        'token',
        'input_mint',
        'risk_policy',
        'quote_slippage',
        'balance',
        'circuit_breaker',
      ]),
    );

    const before = await http.get(`/api/nest/trading/positions/${userId}/pnl`);
    const bonk = before.body.positions.find((p: { symbol: string }) => p.symbol === 'BONK');
    const sol = before.body.positions.find((p: { symbol: string }) => p.symbol === 'SOL');
    expect(sol.amount).toBe('9.5');
    expect(Number(bonk.amount)).toBeGreaterThan(0);
    // A pure buy: the SOL spent (deposited at this price) realizes nothing; BONK costs what was paid, fee and impact included.
    expect(sol.realizedPnlUsd).toBe('0.00');
    expect(Number(bonk.costBasisUsd)).toBeCloseTo(0.5 * Number(sol.priceUsd), 2);
    expect(Number(bonk.unrealizedPnlUsd)).toBeLessThan(0);
    clock.jumpTo(clock.now() + 10 * MINUTE);
    const after = await http.get(`/api/nest/trading/positions/${userId}/pnl`);
    const moved = after.body.positions.find((p: { symbol: string }) => p.symbol === 'BONK');
    expect(moved.priceUsd).not.toBe(bonk.priceUsd);
    expect(moved.unrealizedPnlUsd).not.toBe(bonk.unrealizedPnlUsd);

    const summary = await (await mcp('read')).callTool({ name: 'trading_portfolio_summary', arguments: {} });
    const portfolio = summary.structuredContent as { positions: Array<{ symbol?: string; valueUsd?: string }>; valueUsd: string };
    expect(portfolio.positions.map((p) => p.symbol)).toContain('BONK');
    // Valued at the paper feed's current prices, like the PnL route.
    expect(Number(portfolio.positions.find((p) => p.symbol === 'BONK')!.valueUsd)).toBeCloseTo(Number(moved.valueUsd), 1);
    expect(Number(portfolio.valueUsd)).toBeGreaterThan(1000);
  });

  it('sells for the quote token (trade defaults) when a sell names nothing to receive', async () => {
    const sold = await command('sell 10 USDC');
    expect(sold.body).toMatchObject({
      success: true,
      intent: 'sell',
      order: { status: 'filled', inputMint: USDC, outputMint: SOL, amountIn: '10000000' },
    });
    // `sell all WIF` is an order for SOL too, which the Solana input rule (P3) then refuses.
    expect(await command('sell all WIF')).toMatchObject({
      status: 400,
      body: { message: 'inputMint must be native SOL or USDC (P3 constraint)' },
    });
    const same = await command('sell all SOL');
    expect(same).toMatchObject({
      status: 200,
      body: { success: true, intent: 'sell', reply: expect.stringMatching(/^SOL is your quote token/) },
    });
    expect(same.body).not.toHaveProperty('order');
  });

  it('answers every trading error word for word', async () => {
    expect(await command('swap 1 SOL to NOPE')).toMatchObject({ status: 404, body: { statusCode: 404, message: 'Token not found: NOPE' } });
    expect(await command('buy 20 SOL of BONK')).toMatchObject({
      status: 400,
      body: { message: 'Insufficient balance for requested swap amount', code: 'INSUFFICIENT_BALANCE' },
    });
    expect(await command('swap 4000000 USDC to SOL with 1% slippage')).toMatchObject({
      status: 400,
      body: { message: 'Slippage tolerance exceeded', code: 'SLIPPAGE_EXCEEDED' },
    });
    // Over the balance and over the slippage: the balance is what the client can act on.
    expect(await command('swap 9000000 USDC to SOL with 1% slippage')).toMatchObject({
      status: 400,
      body: { code: 'INSUFFICIENT_BALANCE' },
    });
    expect(await command('swap 1 BONK to SOL')).toMatchObject({
      status: 400,
      body: { message: 'inputMint must be native SOL or USDC (P3 constraint)' },
    });

    const ops = { authorization: `Bearer ${svc.opsToken}`, 'content-type': 'application/json' };
    const on = await fetch(`${svc.url}/api/nest/ops/trading/kill-switch`, {
      method: 'PUT',
      headers: ops,
      body: JSON.stringify({ chain: 'solana', active: true }),
    });
    expect(on.status).toBe(200);
    await clock.advance(1_100);
    expect(await command('buy 0.1 SOL of BONK')).toMatchObject({
      status: 503,
      body: { message: 'Trading kill switch is active for chain: solana' },
    });
    await fetch(`${svc.url}/api/nest/ops/trading/kill-switch`, {
      method: 'PUT',
      headers: ops,
      body: JSON.stringify({ chain: 'solana', active: false }),
    });
    await clock.advance(1_100);

    await http.put(`/api/nest/agents/${agent.agentId}/trading`, { enabled: false });
    const soft = await command('buy 0.1 SOL of BONK');
    expect(soft.status).toBe(200);
    expect(soft.body).toMatchObject({
      success: false,
      error: { code: 'TRADING_DISABLED', message: 'Trading bu bot icin kapali.', details: { retryable: false } },
      meta: { requestId: expect.any(String) },
    });
    // A replay repeats the first body word for word, its request ids included.
    const guarded = key();
    const first = await command('buy 0.1 SOL of BONK', guarded);
    const replay = await command('buy 0.1 SOL of BONK', guarded);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay).toMatchObject({ status: 200, body: first.body });
    expect(replay.headers.get('x-request-id')).toEqual(expect.any(String));
    expect(replay.headers.get('x-request-id')).not.toBe(first.body.meta.requestId);
    await http.put(`/api/nest/agents/${agent.agentId}/trading`, { enabled: true });
  });

  it('holds an order for approval, approves it, and lets another one expire after 15 minutes', async () => {
    expect((await setProfile({ autoApprove: false })).status).toBe(200);
    const pending = await command('buy 0.2 SOL of BONK');
    expect(pending.body.order).toMatchObject({ status: 'pending_approval', approvalExpiresAt: expect.any(String) });
    const other = await command('buy 0.1 SOL of BONK');
    const approvals = await http.get(`/api/nest/trading/approvals/${userId}`);
    expect(approvals.body.items.map((o: { order_id: string }) => o.order_id)).toEqual(
      expect.arrayContaining([pending.body.order.order_id, other.body.order.order_id]),
    );

    const approved = await http.post(`/api/nest/trading/orders/${userId}/${pending.body.order.order_id}/approve`, {}, key());
    expect(approved).toMatchObject({ status: 200, body: { order_id: pending.body.order.order_id, status: 'filled' } });
    const twice = await http.post(`/api/nest/trading/orders/${userId}/${pending.body.order.order_id}/approve`, {}, key());
    expect(twice.status).toBe(409);

    clock.jumpTo(clock.now() + 15 * MINUTE);
    await clock.advance(1_000);
    await signInSolana(http, operator.wallet); // the 15-minute session token expired with the jump
    await expect
      .poll(async () =>
        (await http.get(`/api/nest/trading/orders/${userId}?status=expired`)).body.items.map((o: { order_id: string }) => o.order_id),
      )
      .toContain(other.body.order.order_id);
    expect((await http.post(`/api/nest/trading/orders/${userId}/${other.body.order.order_id}/approve`, {}, key())).status).toBe(409);
    await setProfile({ autoApprove: true });
  });

  it('an approval refused for a reason that may pass (kill switch, trading off) leaves the order waiting; the retry approves it', async () => {
    expect((await setProfile({ autoApprove: false })).status).toBe(200);
    const pending = await command('buy 0.1 SOL of BONK');
    const orderId: string = pending.body.order.order_id;
    const approve = (headers: Record<string, string>) => http.post(`/api/nest/trading/orders/${userId}/${orderId}/approve`, {}, headers);
    const ops = { authorization: `Bearer ${svc.opsToken}`, 'content-type': 'application/json' };
    const killSwitch = async (active: boolean) => {
      await fetch(`${svc.url}/api/nest/ops/trading/kill-switch`, {
        method: 'PUT',
        headers: ops,
        body: JSON.stringify({ chain: 'solana', active }),
      });
      await clock.advance(1_100);
    };
    const retried = key();
    await killSwitch(true);
    expect(await approve(retried)).toMatchObject({ status: 503, body: { message: 'Trading kill switch is active for chain: solana' } });
    await killSwitch(false);
    await http.put(`/api/nest/agents/${agent.agentId}/trading`, { enabled: false });
    expect(await approve(key())).toMatchObject({
      status: 200,
      body: { success: false, error: { code: 'TRADING_DISABLED', message: 'Trading bu bot icin kapali.' } },
    });
    await http.put(`/api/nest/agents/${agent.agentId}/trading`, { enabled: true });
    const still = await http.get(`/api/nest/trading/approvals/${userId}`);
    expect(still.body.items.map((o: { order_id: string }) => o.order_id)).toContain(orderId);
    // The 503 held no key: the client's retry with it approves the order now.
    expect(await approve(retried)).toMatchObject({ status: 200, body: { order_id: orderId, status: 'filled' } });
    await setProfile({ autoApprove: true });
  });

  it('refuses an approval after the 15-minute window even when the expiry job has not run yet', async () => {
    expect((await setProfile({ autoApprove: false })).status).toBe(200);
    const pending = await command('buy 0.1 SOL of BONK');
    const orderId: string = pending.body.order.order_id;
    // The clock passes the window without firing timers: the expiry job is late.
    clock.jumpTo(Date.parse(pending.body.order.approvalExpiresAt) + 1_000);
    await signInSolana(http, operator.wallet); // the session token expired with the jump
    // Not offered for approval any more, though still stored as waiting until the job runs.
    const approvals = await http.get(`/api/nest/trading/approvals/${userId}`);
    expect(approvals.body.items.map((o: { order_id: string }) => o.order_id)).not.toContain(orderId);
    const late = await http.post(`/api/nest/trading/orders/${userId}/${orderId}/approve`, {}, key());
    expect(late).toMatchObject({ status: 409, body: { message: `Order ${orderId} is not pending approval (status: expired)` } });
    const stored = await http.get(`/api/nest/trading/orders/${userId}?status=expired`);
    expect(stored.body.items.find((o: { order_id: string }) => o.order_id === orderId)).toMatchObject({ status: 'expired' });
    await setProfile({ autoApprove: true });
  });

  it("cancels an order nothing was sent for yet; a sent one is 409, a cancelled one answers again, another account's is 404", async () => {
    expect((await setProfile({ autoApprove: false })).status).toBe(200);
    const cancel = (orderId: string, path = userId) => http.post(`/api/nest/trading/orders/${path}/${orderId}/cancel`, {});
    const held = (await command('buy 0.01 SOL of BONK')).body.order;
    expect(held.status).toBe('pending_approval');
    const cancelled = await cancel(held.order_id);
    expect(cancelled).toMatchObject({ status: 200, body: { order_id: held.order_id, status: 'cancelled', reason: 'cancelled' } });
    // A repeated cancel (its answer lost) answers the order as it stands; nothing else changes.
    expect(await cancel(held.order_id)).toMatchObject({
      status: 200,
      body: { order_id: held.order_id, status: 'cancelled', updatedAt: cancelled.body.updatedAt },
    });
    expect(await http.post(`/api/nest/trading/orders/${userId}/${held.order_id}/approve`, {}, key())).toMatchObject({
      status: 409,
      body: { message: `Order ${held.order_id} is not pending approval (status: cancelled)` },
    });
    expect((await http.get(`/api/nest/trading/approvals/${userId}`)).body.items.map((o: { order_id: string }) => o.order_id)).not.toContain(
      held.order_id,
    );
    // Its approval window passing later leaves it cancelled (the expiry job went with it).
    clock.jumpTo(clock.now() + 16 * MINUTE);
    await clock.advance(1_000);
    await signInSolana(http, operator.wallet); // the session token expired with the jump
    expect(
      (await http.get(`/api/nest/trading/orders/${userId}?status=cancelled`)).body.items.map((o: { order_id: string }) => o.order_id),
    ).toContain(held.order_id);

    await setProfile({ autoApprove: true });
    const filled = (await command('buy 0.01 SOL of BONK')).body.order;
    expect(await cancel(filled.order_id)).toMatchObject({
      status: 409,
      body: { message: `Order ${filled.order_id} cannot be cancelled (status: filled)` },
    });
    expect(await cancel('ord_nope')).toMatchObject({ status: 404, body: { message: 'Order not found' } });
    const otherAgent = await operator.agent(`other-${randomUUID().slice(0, 6)}`);
    expect(await http.post(`/api/nest/trading/orders/${userId}/${filled.order_id}/cancel`, { agentId: otherAgent.agentId })).toMatchObject({
      status: 404,
      body: { message: 'Order not found' },
    });
    expect(await cancel(filled.order_id, 'someone-else')).toMatchObject({ status: 404, body: { message: 'User not found' } });

    // Over MCP: the agent's trade key cancels (no approval policy stands in the way); a read key cannot.
    await setProfile({ autoApprove: false });
    const trade = await mcp('trade');
    const onHold = await trade.callTool({
      name: 'trading_solana_aggregator_swap',
      arguments: { inputMint: USDC, outputMint: SOL, amount: '1000000', idempotencyKey: randomUUID() },
    });
    const orderId = (onHold.structuredContent as { order_id: string }).order_id;
    const refused = await (await mcp('read'))
      .callTool({ name: 'trading_orders_cancel', arguments: { order_id: orderId } })
      .catch((error: Error) => error);
    expect(String(refused)).toContain('Scope insufficient: required trade, got read');
    const byTool = await trade.callTool({ name: 'trading_orders_cancel', arguments: { order_id: orderId } });
    expect(byTool).toMatchObject({ isError: false, structuredContent: { order_id: orderId, status: 'cancelled' } });
    await setProfile({ autoApprove: true });
  });

  it('an approval and a cancel racing for one held order: exactly one wins, and the order shows which', async () => {
    expect((await setProfile({ autoApprove: false })).status).toBe(200);
    for (let i = 0; i < 6; i++) {
      const orderId: string = (await command('buy 0.01 SOL of BONK')).body.order.order_id;
      const [approved, cancelled] = await Promise.all([
        http.post(`/api/nest/trading/orders/${userId}/${orderId}/approve`, {}, key()),
        http.post(`/api/nest/trading/orders/${userId}/${orderId}/cancel`, {}),
      ]);
      const order = (await http.get(`/api/nest/trading/orders/${userId}?limit=50`)).body.items.find(
        (o: { order_id: string }) => o.order_id === orderId,
      );
      if (approved.status === 200) {
        expect([cancelled.status, order.status]).toEqual([409, 'filled']);
      } else {
        expect([approved.status, cancelled.status, order.status]).toEqual([409, 200, 'cancelled']);
      }
    }
    await setProfile({ autoApprove: true });
  });

  it('replays a guarded call, refuses the same key with another body, and runs 20 parallel calls with one key once', async () => {
    const headers = key();
    const first = await command('buy 0.01 SOL of BONK', headers);
    const replay = await command('buy 0.01 SOL of BONK', headers);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect((await command('buy 0.02 SOL of BONK', headers)).status).toBe(422);
    expect((await http.post('/api/nest/trading/command', { message: 'buy 0.01 SOL of BONK' })).status).toBe(400);
    // Every problem at once: the missing key and what is wrong with the body.
    expect(await http.post('/api/nest/trading/command', { text: 'buy' })).toMatchObject({
      status: 400,
      body: { message: ['X-Idempotency-Key header is required', 'message is required', 'text is not a known field'] },
    });

    const parallel = key();
    const answers = await Promise.all(Array.from({ length: 20 }, () => command('buy 0.01 SOL of BONK', parallel)));
    const ids = new Set(answers.filter((a) => a.status === 200).map((a) => a.body.order.order_id));
    expect(ids.size).toBe(1);
    for (const answer of answers) expect([200, 409]).toContain(answer.status);
    // A call that found the key running (the first holds it in memory on the embedded profile) is told to retry.
    for (const busy of answers.filter((a) => a.status === 409)) {
      expect(busy.body).toMatchObject({ code: 'IDEMPOTENCY_IN_PROGRESS', message: IDEMPOTENCY_MESSAGES.inProgress });
      expect(busy.headers.get('retry-after')).toBe('1');
    }
    const orders = await http.get(`/api/nest/trading/orders/${userId}?limit=200`);
    expect(orders.body.items.filter((o: { order_id: string }) => ids.has(o.order_id))).toHaveLength(1);
  });

  it('trades over MCP with a trade key; a read key cannot', async () => {
    const trade = await mcp('trade');
    const wallet = await trade.callTool({ name: 'trading_wallet_custodial_ensure', arguments: {} });
    expect(wallet.isError).toBe(false);
    const idempotencyKey = randomUUID();
    const swap = await trade.callTool({
      name: 'trading_solana_aggregator_swap',
      arguments: { inputMint: USDC, outputMint: SOL, amount: '25000000', idempotencyKey },
    });
    expect(swap.structuredContent).toMatchObject({ status: 'filled', channel: 'mcp', amountIn: '25000000' });
    const again = await trade.callTool({
      name: 'trading_solana_aggregator_swap',
      arguments: { inputMint: USDC, outputMint: SOL, amount: '25000000', idempotencyKey },
    });
    expect((again.structuredContent as { order_id: string }).order_id).toBe((swap.structuredContent as { order_id: string }).order_id);
    // The same UUID in capitals is the same key, as on REST.
    const shouted = await trade.callTool({
      name: 'trading_solana_aggregator_swap',
      arguments: { inputMint: USDC, outputMint: SOL, amount: '25000000', idempotencyKey: idempotencyKey.toUpperCase() },
    });
    expect((shouted.structuredContent as { order_id: string }).order_id).toBe((swap.structuredContent as { order_id: string }).order_id);
    expect((swap.structuredContent as { order_id: string }).order_id).toMatch(/^ord_[A-Za-z0-9_-]{24}$/);
    // A tool that moves funds takes no call without a key: a retry of it could trade twice.
    const unkeyed = await trade
      .callTool({ name: 'trading_solana_aggregator_swap', arguments: { inputMint: USDC, outputMint: SOL, amount: '1000000' } })
      .catch((error: Error) => error);
    expect(String(unkeyed)).toContain('MCP error -32602: INVALID_PARAMS: idempotencyKey is required');
    const search = await trade.callTool({ name: 'trading_solana_aggregator_tokens_search', arguments: { query: 'bonk' } });
    expect((search.structuredContent as { tokens: Array<{ mint: string }> }).tokens[0]!.mint).toBe(BONK);

    const read = await mcp('read');
    const refused = await read
      .callTool({ name: 'trading_solana_aggregator_swap', arguments: { inputMint: USDC, outputMint: SOL, amount: '1' } })
      .catch((error: Error) => error);
    expect(String(refused)).toContain('Scope insufficient: required trade, got read');
  });

  it("the agent's own trade key approves held orders only when the order profile allows it", async () => {
    expect((await setProfile({ autoApprove: false })).status).toBe(200);
    const trade = await mcp('trade');
    const held = await trade.callTool({
      name: 'trading_solana_aggregator_swap',
      arguments: { inputMint: USDC, outputMint: SOL, amount: '1000000', idempotencyKey: randomUUID() },
    });
    const orderId = (held.structuredContent as { order_id: string; status: string }).order_id;
    expect(held.structuredContent).toMatchObject({ status: 'pending_approval' });
    const message = 'Scope insufficient: required manage, got trade';
    const refusal = {
      isError: true,
      content: [{ type: 'text', text: message }],
      structuredContent: { code: 'AUTHORIZATION_FAILED', message, retryable: false },
    };
    const byTool = await trade.callTool({ name: 'trading_orders_approve', arguments: { order_id: orderId, idempotencyKey: randomUUID() } });
    expect(byTool).toEqual(refusal);
    const byCommand = await trade.callTool({
      name: 'trading_command',
      arguments: { message: `approve ${orderId}`, idempotencyKey: randomUUID() },
    });
    expect(byCommand).toEqual(refusal);
    // Still held: the owner (or a policy that lets agents approve) decides.
    expect((await setProfile({ agentsMayApprove: true })).body).toMatchObject({ autoApprove: false, agentsMayApprove: true });
    const allowed = await trade.callTool({
      name: 'trading_orders_approve',
      arguments: { order_id: orderId, idempotencyKey: randomUUID() },
    });
    expect(allowed.structuredContent).toMatchObject({ order_id: orderId, status: 'filled' });
    await setProfile({ autoApprove: true, agentsMayApprove: false });
  });

  it('names a signal source the risk policy can allow; an approval re-checks the blacklist and the risk policy', async () => {
    const risk = (body: Record<string, unknown>) => http.put(`/api/nest/trading/config/${userId}/risk-policy`, body);
    expect((await risk({ allowedSignalSources: ['tv'] })).status).toBe(200);
    try {
      expect(await command('swap 1 USDC to SOL')).toMatchObject({
        status: 400,
        body: { message: 'Signal source (none) is not allowed by the risk policy' },
      });
      const named = await http.post('/api/nest/trading/command', { message: 'swap 1 USDC to SOL', signalSource: 'tv' }, key());
      expect(named.body.order).toMatchObject({ status: 'filled' });
      const trade = await mcp('trade');
      const swap = await trade.callTool({
        name: 'trading_solana_aggregator_swap',
        arguments: { inputMint: USDC, outputMint: SOL, amount: '1000000', signalSource: 'tv', idempotencyKey: randomUUID() },
      });
      expect(swap.structuredContent).toMatchObject({ status: 'filled' });
    } finally {
      await risk({ allowedSignalSources: null });
    }

    expect((await setProfile({ autoApprove: false })).status).toBe(200);
    const held = await command('buy 0.1 SOL of BONK');
    const listed = await http.post(`/api/nest/trading/config/${userId}/blacklist`, { address: BONK });
    expect(listed.status).toBe(200);
    const refused = await http.post(`/api/nest/trading/orders/${userId}/${held.body.order.order_id}/approve`, {}, key());
    expect(refused).toMatchObject({ status: 400, body: { message: `Token is blacklisted: BONK (${BONK})` } });
    const orders = await http.get(`/api/nest/trading/orders/${userId}?status=failed`);
    expect(orders.body.items.map((o: { order_id: string }) => o.order_id)).toContain(held.body.order.order_id);
    await http.delete(`/api/nest/trading/config/${userId}/blacklist/${BONK}`);
    await setProfile({ autoApprove: true });
  });

  it('an exact-output command delivers at least what it names (the input covers fee and price impact)', async () => {
    const bought = await command('buy 1000 BONK with USDC');
    expect(bought.body.order).toMatchObject({ status: 'filled', outputMint: BONK });
    expect(BigInt(bought.body.order.expectedOut)).toBeGreaterThanOrEqual(100_000_000n); // 1000 BONK, 5 decimals
    expect(BigInt(bought.body.order.filledOut)).toBeGreaterThanOrEqual(100_000_000n);
    const sold = await command('sell SOL for 10 USDC');
    expect(BigInt(sold.body.order.expectedOut)).toBeGreaterThanOrEqual(10_000_000n);
  });

  it('a request naming no slippage takes the tighter of the trade defaults and the order profile', async () => {
    const defaults = (slippageBps: number) => http.put(`/api/nest/trading/config/${userId}/trade-defaults`, { slippageBps });
    expect((await defaults(50)).status).toBe(200);
    expect((await command('swap 1 USDC to SOL')).body.order).toMatchObject({ status: 'filled', slippageBps: 50 });
    // A quote naming no slippage shows the minimum the same swap would accept.
    const minBuyAt = async (bps: number) => {
      const quote = (
        await http.post(`/api/nest/trading/evm/quote/${userId}`, {
          chainId: 8453,
          sellToken: 'USDC',
          buyToken: 'WETH',
          sellAmount: '100000000',
        })
      ).body;
      return [quote.minBuyAmount, ((BigInt(quote.buyAmount) * BigInt(10_000 - bps)) / 10_000n).toString()];
    };
    const [min50, expected50] = await minBuyAt(50);
    expect(min50).toBe(expected50);
    // Wider trade defaults do not widen the owner's profile (100 bps).
    expect((await defaults(300)).status).toBe(200);
    expect((await command('swap 1 USDC to SOL')).body.order).toMatchObject({ status: 'filled', slippageBps: 100 });
    const [min100, expected100] = await minBuyAt(100);
    expect(min100).toBe(expected100);
    expect((await command('swap 1 USDC to SOL with 2% slippage')).body.order).toMatchObject({ slippageBps: 200 });
    await defaults(100);
  });

  it('a risk policy that shuts MCP out holds for natural-language commands over MCP too', async () => {
    const policy = (allowedChannels: string[] | null) => http.put(`/api/nest/trading/config/${userId}/risk-policy`, { allowedChannels });
    expect((await policy(['rest', 'command'])).status).toBe(200);
    try {
      const trade = await mcp('trade');
      const refused = await trade.callTool({
        name: 'trading_command',
        arguments: { message: 'swap 1 USDC to SOL', idempotencyKey: randomUUID() },
      });
      expect(refused).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'Trading through mcp is not allowed by the risk policy' }],
        structuredContent: { code: 'RISK_LIMIT_EXCEEDED', retryable: false },
      });
      const rest = await command('swap 1 USDC to SOL');
      expect(rest.body.order).toMatchObject({ status: 'filled', channel: 'command' });
    } finally {
      await policy(null);
    }
  });

  it('researches a token and reports the EVM engine status', async () => {
    const research = await http.post('/api/nest/trading/research/token', { token: 'BONK' });
    expect(research.body).toMatchObject({
      chain: 'solana',
      address: BONK,
      symbol: 'BONK',
      priceUsd: expect.any(Number),
      riskFlags: expect.any(Array),
    });
    const status = await http.get('/api/nest/trading/evm/status');
    expect(status.body.chains.map((c: { chain: string }) => c.chain)).toEqual(['ethereum', 'base', 'arbitrum', 'optimism']);
    expect(status.body.chains[0]).toMatchObject({ reachable: true, breaker: 'closed', killSwitch: false });
  });

  it("refuses another user's :userId and a mutation without CSRF", async () => {
    expect(await http.get('/api/nest/trading/orders/someone-else')).toMatchObject({ status: 404, body: { message: 'User not found' } });
    const csrf = http.csrf;
    http.csrf = undefined;
    expect((await command('buy 0.01 SOL of BONK')).status).toBe(403);
    http.csrf = csrf;
  });

  // Last: it moves the clock a day on.
  it('a key reused for another request after its 24-hour record expired is still refused, never answered with the old order', async () => {
    const [reused, retried] = [key(), key()];
    const first = await command('swap 1 USDC to SOL', reused);
    const second = await command('swap 1 USDC to SOL', retried);
    expect([first.body.order.status, second.body.order.status]).toEqual(['filled', 'filled']);
    clock.jumpTo(clock.now() + 24 * 60 * MINUTE + MINUTE);
    await signInSolana(http, operator.wallet); // the session token expired with the jump
    const other = await command('swap 5 USDC to SOL', reused);
    expect(other).toMatchObject({ status: 422, body: { message: 'Idempotency key was already used with a different request' } });
    // The same request again finds its order: it never trades twice.
    const same = await command('swap 1 USDC to SOL', retried);
    expect(same).toMatchObject({
      status: 200,
      body: { order: { order_id: second.body.order.order_id, amountIn: '1000000', status: 'filled' } },
    });
  });
});
