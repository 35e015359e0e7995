/**
 * The wallet mode decides which wallets a trade may sign with (DECISIONS "Wallets"): in
 * `delegate` mode only capped delegate wallets, so a trade key can neither name nor default
 * to an uncapped custodial wallet; in `external` mode none.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Operator } from '../support/mcp-fixtures.js';
import { startTestService, type Client, type TestService } from '../support/test-service.js';

describe('wallet mode (e2e)', () => {
  let svc: TestService;
  let http: Client;
  let userId: string;

  beforeAll(async () => {
    svc = await startTestService();
    const operator = await Operator.signIn(svc);
    http = operator.client;
    userId = operator.userId;
    const agent = await operator.agent('capped');
    expect((await http.put(`/api/nest/agents/${agent.agentId}/trading`, { enabled: true })).status).toBe(200);
  });
  afterAll(async () => {
    await svc.stop();
  });

  const idem = () => ({ 'x-idempotency-key': randomUUID() });
  const swap = (sellAmount: string, walletId?: string) =>
    http.post(
      `/api/nest/trading/evm/swap/${userId}`,
      { chainId: 8453, sellToken: 'USDC', buyToken: 'WETH', sellAmount, ...(walletId ? { walletId } : {}) },
      idem(),
    );
  const mode = (walletMode: string) => http.put(`/api/nest/trading/config/${userId}/wallet-mode`, { walletMode });

  it('delegate mode signs only with the capped delegate; external mode with nothing', async () => {
    const evm = `/api/nest/trading/evm/wallets/${userId}`;
    const custodial = (await http.post(`${evm}/custodial`, {}, idem())).body.walletId as string;
    const delegate = (await http.post(`${evm}/delegate`, { spendingCapUsd: 5 }, idem())).body.walletId as string;
    // Fund both (the faucet credits the default wallet), then leave the custodial one the default.
    expect(
      (await http.post(`/api/nest/trading/paper/faucet/${userId}`, { chain: 'base', token: 'USDC', amount: '100' })).body.walletId,
    ).toBe(custodial);
    expect((await http.post(`${evm}/default`, { walletId: delegate })).status).toBe(200);
    expect(
      (await http.post(`/api/nest/trading/paper/faucet/${userId}`, { chain: 'base', token: 'USDC', amount: '100' })).body.walletId,
    ).toBe(delegate);
    expect((await http.post(`${evm}/default`, { walletId: custodial })).status).toBe(200);

    // The default mode signs with the default wallet, or any named one.
    expect((await swap('1000000')).body).toMatchObject({ status: 'filled', walletId: custodial });

    expect(await mode('delegate')).toMatchObject({ status: 200, body: { walletMode: 'delegate' } });
    expect((await swap('1000000')).body).toMatchObject({ status: 'filled', walletId: delegate });
    expect(await swap('1000000', custodial)).toMatchObject({
      status: 400,
      body: { message: 'Custodial wallet required for this operation' },
    });
    // The cap binds: $2 spent of $5, so $4 more is refused.
    expect((await swap('1000000')).body).toMatchObject({ status: 'filled', walletId: delegate });
    const orders = async () => (await http.get(`/api/nest/trading/orders/${userId}?limit=200`)).body.items.length as number;
    const before = await orders();
    expect(await swap('4000000')).toMatchObject({ status: 400, body: { message: `Spending cap exceeded for wallet ${delegate}` } });
    // Refused by the safety path, before an order exists (no failed order in the history).
    expect(await orders()).toBe(before);

    expect((await mode('external')).status).toBe(200);
    expect(await swap('1000000')).toMatchObject({ status: 400, body: { message: 'Custodial wallet required for this operation' } });

    expect((await mode('custodial')).status).toBe(200);
    expect((await swap('1000000', custodial)).body).toMatchObject({ status: 'filled', walletId: custodial });
  });
});
