/**
 * concurrency through the service (paper venue): 20 withdrawals at once whose sum
 * exceeds the balance, then the daily cap → exactly what fits is sent; an idempotency key
 * sent several times at once pays once.
 */
import { randomUUID } from 'node:crypto';
import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { solanaClaim } from '../support/claim-messages.js';
import { bearer, Operator } from '../support/mcp-fixtures.js';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { codeAt } from '../support/totp-codes.js';
import { startTestService, type TestService } from '../support/test-service.js';

describe('concurrent withdrawals (e2e, paper venue)', () => {
  let svc: TestService;
  let owner: Operator;
  let totpSecret: string;
  const clock = new ManualClock(Date.now());

  const withdraw = (key: string, to: string, amount: string, idempotencyKey = randomUUID()) =>
    fetch(`${svc.url}/api/nest/agents/wallet/withdraw/solana`, {
      method: 'POST',
      headers: { ...bearer(key), 'content-type': 'application/json', 'x-idempotency-key': idempotencyKey },
      body: JSON.stringify({ mint: 'USDC', amount, to }),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
  /** The USDC balance; a token at zero is not listed. */
  const balance = async (key: string) =>
    ((await (await fetch(`${svc.url}/api/nest/agents/wallet/balance`, { headers: bearer(key) })).json()).wallets[0].tokens[0]?.amount as
      | string
      | undefined) ?? '0';

  /** An agent with `usdc` USDC, withdrawals on (claim + step-up), and its trade key. */
  async function fundedAgent(name: string, usdc: string, settings: Record<string, unknown>) {
    const { agentId } = await owner.agent(name);
    const key = (await owner.agentKey(agentId, 'trade')).secret;
    await owner.client.post(
      `/api/nest/trading/wallets/custodial/${owner.userId}?agentId=${agentId}`,
      {},
      { 'x-idempotency-key': randomUUID() },
    );
    await owner.client.post(`/api/nest/trading/paper/faucet/${owner.userId}`, { chain: 'solana', token: 'USDC', amount: usdc, agentId });
    await owner.client.post(`/api/nest/agents/${agentId}/control/claim`, await solanaClaim(owner.client, owner.wallet, agentId));
    await clock.advance(31_000);
    const stepUp = (await owner.client.post(`/api/nest/agents/${agentId}/control/mcp/step-up`, { code: await codeAt(totpSecret, clock) }))
      .body.stepUpToken;
    const set = await owner.client.request(
      'PUT',
      `/api/nest/agents/${agentId}/control/withdraw`,
      { enabled: true, ...settings },
      { 'x-step-up-token': stepUp },
    );
    expect(set.status).toBe(200);
    return key;
  }

  beforeAll(async () => {
    svc = await startTestService({ clock });
    owner = await Operator.signIn(svc);
    totpSecret = (await owner.client.post('/api/nest/auth/totp/enroll')).body.secret;
    await owner.client.post('/api/nest/auth/totp/activate', { code: await codeAt(totpSecret, clock) });
  });
  afterAll(async () => svc.stop());

  it('20 at once over the balance: exactly what fits is sent, the rest refused in words, the ledger exact', async () => {
    const key = await fundedAgent('balance-bound', '100', {});
    const to = Keypair.generate().publicKey.toBase58();
    const results = await Promise.all(Array.from({ length: 20 }, () => withdraw(key, to, '10000000')));
    const sent = results.filter((r) => r.status === 201);
    // 100 USDC, 20 × 10: exactly 10. A withdrawal whose transfer already moved the ledger but
    // is not yet `confirmed` is counted once (by the balance), not also as held back.
    expect(sent).toHaveLength(10);
    expect(new Set(sent.map((r) => r.body.txHash)).size).toBe(10);
    for (const r of results.filter((r) => r.status !== 201)) {
      expect(r).toMatchObject({ status: 400, body: { message: 'Insufficient balance for requested withdrawal amount' } });
    }
    expect(await balance(key)).toBe('0');
  });

  it('20 at once over the daily cap: the cap holds; one idempotency key sent 5 times at once pays once', async () => {
    const key = await fundedAgent('cap-bound', '100', { dailyCapUsd: 30.5 });
    const to = Keypair.generate().publicKey.toBase58();
    const results = await Promise.all(Array.from({ length: 20 }, () => withdraw(key, to, '5000000')));
    expect(results.filter((r) => r.status === 201)).toHaveLength(6);
    for (const r of results.filter((r) => r.status !== 201))
      expect(r.body.message).toMatch(/^Withdrawal would exceed the daily cap of \$30\.50 \(\$30\.00 used today\)$/);
    expect(await balance(key)).toBe('70000000');

    const other = await fundedAgent('same-key', '100', {});
    const idempotencyKey = randomUUID();
    const same = await Promise.all(Array.from({ length: 5 }, () => withdraw(other, to, '1000000', idempotencyKey)));
    const created = same.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    // The others are replays of the same withdrawal, or 409 while the first still ran.
    expect(new Set(created.map((r) => r.body.withdrawalId)).size).toBe(1);
    for (const r of same.filter((r) => r.status !== 201)) expect(r.status).toBe(409);
    expect(await balance(other)).toBe('99000000');
  });
});
