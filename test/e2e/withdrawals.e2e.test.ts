/**
 * Withdrawals from outside, on the paper venue: the agent's key reads its wallet balance and
 * withdraws; the owner switches withdrawals on with a session, CSRF and a step-up token;
 * every refusal word for word; the agent's own key cannot change the settings.
 */
import { randomUUID } from 'node:crypto';
import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, Operator, rawRpc } from '../support/mcp-fixtures.js';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { codeAt } from '../support/totp-codes.js';
import { solanaClaim } from '../support/claim-messages.js';
import { startTestService, type TestService } from '../support/test-service.js';

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

describe('agent wallet and withdrawal settings (e2e, paper venue)', () => {
  let svc: TestService;
  let owner: Operator;
  let agentId: string;
  let publicId: string;
  let tradeKey: string;
  let totpSecret: string;
  const clock = new ManualClock(Date.now());
  const asAgent = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${svc.url}${path}`, {
      method,
      headers: { ...bearer(tradeKey), ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body ? { body: JSON.stringify(body) } : {}),
    }).then(async (r) => ({ status: r.status, headers: r.headers, body: (await r.json()) as any }));
  const stepUp = async () => {
    await clock.advance(31_000); // a TOTP code works once: the next step's code
    const { body } = await owner.client.post(`/api/nest/agents/${agentId}/control/mcp/step-up`, { code: await codeAt(totpSecret, clock) });
    return body.stepUpToken as string;
  };
  const putSettings = (body: unknown, headers: Record<string, string> = {}) =>
    owner.client.request('PUT', `/api/nest/agents/${agentId}/control/withdraw`, body, headers);

  beforeAll(async () => {
    svc = await startTestService({ clock });
    owner = await Operator.signIn(svc);
    ({ agentId, publicId } = await owner.agent('wallet-agent'));
    tradeKey = (await owner.agentKey(agentId, 'trade')).secret;
    await owner.client.post(
      `/api/nest/trading/wallets/custodial/${owner.userId}?agentId=${agentId}`,
      {},
      { 'x-idempotency-key': randomUUID() },
    );
    await owner.client.post(`/api/nest/trading/paper/faucet/${owner.userId}`, { chain: 'solana', token: 'USDC', amount: '100', agentId });
    const enrolled = await owner.client.post('/api/nest/auth/totp/enroll');
    totpSecret = enrolled.body.secret;
    await owner.client.post('/api/nest/auth/totp/activate', { code: await codeAt(totpSecret, clock) });
  });
  const claim = async () => {
    const claimed = await owner.client.post(
      `/api/nest/agents/${agentId}/control/claim`,
      await solanaClaim(owner.client, owner.wallet, agentId),
    );
    expect(claimed).toMatchObject({ status: 200, body: { agentId, claimed: true, claimedBy: owner.userId } });
  };
  afterAll(async () => svc.stop());

  it("shows the balance to the agent's key; an operator session is not an agent credential", async () => {
    const { status, body } = await asAgent('GET', '/api/nest/agents/wallet/balance');
    expect(status).toBe(200);
    expect(body.wallets).toEqual([
      {
        chain: 'solana',
        address: expect.any(String),
        tokens: [{ mint: USDC, symbol: 'USDC', amount: '100000000', decimals: 6, valueUsd: expect.any(Number) }],
      },
    ]);
    expect((await owner.client.get('/api/nest/agents/wallet/balance')).status).toBe(403);
  });

  it("withdrawals are off by default; settings need the claim, the owner's session, CSRF and a single-use step-up token", async () => {
    const to = Keypair.generate().publicKey.toBase58();
    const refused = await asAgent(
      'POST',
      '/api/nest/agents/wallet/withdraw/solana',
      { mint: 'USDC', amount: '1000000', to },
      { 'x-idempotency-key': randomUUID() },
    );
    expect(refused).toMatchObject({ status: 403, body: { message: 'Withdrawals are disabled for this agent' } });
    // Unclaimed: refused before the step-up token is looked at (and spent).
    const unclaimed = await putSettings({ enabled: true }, { 'x-step-up-token': 'sut_x' });
    expect(unclaimed).toMatchObject({
      status: 403,
      body: { message: 'Agent not claimed: claim it first with POST /api/nest/agents/:agentId/control/claim' },
    });
    await claim();
    expect(await putSettings({ enabled: true })).toMatchObject({
      status: 403,
      body: { message: 'Step-up token required for manage scope' },
    });
    // The agent's own key cannot change them (not an operator route for keys).
    expect((await asAgent('PUT', `/api/nest/agents/${agentId}/control/withdraw`, { enabled: true })).status).toBe(403);
    const csrf = owner.client.csrf;
    owner.client.csrf = undefined;
    expect(await putSettings({ enabled: true }, { 'x-step-up-token': 'sut_x' })).toMatchObject({
      status: 403,
      body: { message: 'Forbidden' },
    });
    owner.client.csrf = csrf;
    const token = await stepUp();
    const set = await putSettings({ enabled: true, allowlist: [to], dailyCapUsd: 5 }, { 'x-step-up-token': token });
    expect(set).toMatchObject({ status: 200, body: { enabled: true, allowlist: [to], dailyCapUsd: 5, requireStepUp: false } });
    expect(await putSettings({ enabled: false }, { 'x-step-up-token': token })).toMatchObject({
      status: 403,
      body: { message: 'Invalid or expired step-up token' },
    });
  });

  it('withdraws through the agent key: the ledger moves once per idempotency key; allowlist and cap refuse in words', async () => {
    const allowed = (await owner.client.get(`/api/nest/agents/${agentId}/control/withdraw`)).body.allowlist[0] as string;
    const key = randomUUID();
    const body = { mint: 'USDC', amount: '2000000', to: allowed };
    const first = await asAgent('POST', '/api/nest/agents/wallet/withdraw/solana', body, { 'x-idempotency-key': key });
    expect(first).toMatchObject({
      status: 201,
      body: { chain: 'solana', to: allowed, token: USDC, amount: '2000000', status: 'confirmed', txHash: expect.any(String) },
    });
    const replay = await asAgent('POST', '/api/nest/agents/wallet/withdraw/solana', body, { 'x-idempotency-key': key });
    expect(replay.body).toEqual(first.body);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    // Each state it went through is one log line with its ids (the replay moved nothing, so logged nothing). On
    // paper the transfer is a ledger write: signed, broadcast and confirmed are stepped in one commit, each announced.
    const logged = svc.logs
      .map((line) => JSON.parse(line) as { level: number; msg: string; withdrawalId?: string; agentId?: string; status?: string })
      .filter((line) => line.withdrawalId !== undefined && line.withdrawalId === first.body.withdrawalId);
    expect(logged.map((line) => line.status)).toEqual(['requested', 'signed', 'broadcast', 'confirmed']);
    for (const line of logged)
      expect(line).toMatchObject({ level: 30, msg: `withdrawal ${line.status}`, agentId: expect.stringContaining(agentId) });
    const balance = await asAgent('GET', '/api/nest/agents/wallet/balance');
    expect(balance.body.wallets[0].tokens[0].amount).toBe('98000000');
    const stranger = Keypair.generate().publicKey.toBase58();
    expect(
      await asAgent('POST', '/api/nest/agents/wallet/withdraw/solana', { ...body, to: stranger }, { 'x-idempotency-key': randomUUID() }),
    ).toMatchObject({
      status: 403,
      body: { message: `Withdrawal address not on the allowlist: ${stranger}` },
    });
    expect(
      await asAgent(
        'POST',
        '/api/nest/agents/wallet/withdraw/solana',
        { ...body, amount: '4000000' },
        { 'x-idempotency-key': randomUUID() },
      ),
    ).toMatchObject({
      status: 400,
      body: { message: expect.stringMatching(/^Withdrawal would exceed the daily cap of \$5\.00 \(\$2\.00 used today\)$/) },
    });
    expect((await asAgent('POST', '/api/nest/agents/wallet/withdraw/solana', body)).body.message).toEqual([
      'X-Idempotency-Key header is required',
    ]);
  });

  it('offers balance and withdraw as MCP tools with the same rules', async () => {
    const list = await rawRpc(svc.url, publicId, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, bearer(tradeKey));
    const names = (list.body.result.tools as Array<{ name: string }>).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['agent_wallet_balance', 'agent_wallet_withdraw_solana', 'agent_wallet_withdraw_evm']));
    expect(names).not.toContain('agent_withdraw_settings_set');
    const call = await rawRpc(
      svc.url,
      publicId,
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: {
          name: 'agent_wallet_withdraw_evm',
          arguments: {
            chainId: 8453,
            token: 'USDC',
            amount: '1',
            to: '0x000000000000000000000000000000000000dEaD',
            idempotencyKey: randomUUID(),
          },
        },
      },
      bearer(tradeKey),
    );
    expect(JSON.stringify(call.body)).toContain('Withdrawal address not on the allowlist');
  });
});
