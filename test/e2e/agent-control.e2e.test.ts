/**
 * the agent control plane from outside: an agent onboarded by ERC-8004 (SIWE) uses
 * its identity token on the wallet routes and tools; an operator claims it with the onboarding
 * wallet's signature and manages it from their session (scopes, key rotation, withdrawal
 * settings: claim + CSRF + step-up); another operator's claim is 409; every refusal word for word.
 */
import { randomUUID } from 'node:crypto';
import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmClaim, solanaClaim } from '../support/claim-messages.js';
import { bearer, Operator, rawRpc } from '../support/mcp-fixtures.js';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { codeAt } from '../support/totp-codes.js';
import { Client, evmWallet, startTestService, type TestService } from '../support/test-service.js';

const CLAIM_REQUIRED = 'Agent not claimed: claim it first with POST /api/nest/agents/:agentId/control/claim';

describe('agent control plane (e2e)', () => {
  let svc: TestService;
  let anon: Client;
  let operator: Operator;
  let other: Operator;
  let totpSecret: string;
  const clock = new ManualClock(Date.now());
  const agentWallet = evmWallet();
  let agentId: string;
  let publicId: string;
  let token: string;

  const call = (credential: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${svc.url}${path}`, {
      method,
      headers: { ...bearer(credential), ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body ? { body: JSON.stringify(body) } : {}),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
  const onboard = async (scope: 'read' | 'trade') => {
    const { body } = await anon.post('/api/nest/auth/evm/nonce', {});
    const message = agentWallet.message(body.nonce, new Date(clock.now()));
    return anon.post('/api/public/erc8004/onboarding/siwe', { message, signature: await agentWallet.sign(message), scope });
  };
  const stepUp = async () => {
    await clock.advance(31_000); // a TOTP code works once: the next step's code
    const { body } = await operator.client.post(`/api/nest/agents/${agentId}/control/mcp/step-up`, {
      code: await codeAt(totpSecret, clock),
    });
    return body.stepUpToken as string;
  };
  const control = (method: string, path: string, body: unknown, stepUpToken?: string) =>
    operator.client.request(
      method,
      `/api/nest/agents/${agentId}/control/${path}`,
      body,
      stepUpToken ? { 'x-step-up-token': stepUpToken } : {},
    );
  const claimAs = async (who: Operator, wallet = agentWallet) =>
    who.client.post(`/api/nest/agents/${agentId}/control/claim`, await evmClaim(who.client, wallet, agentId, new Date(clock.now())));

  beforeAll(async () => {
    svc = await startTestService({ clock });
    anon = new Client(svc.url);
    const onboarded = await onboard('trade');
    expect(onboarded.status).toBe(201);
    ({ agentId, publicId, accessToken: token } = onboarded.body);
    operator = await Operator.signIn(svc);
    other = await Operator.signIn(svc);
    totpSecret = (await operator.client.post('/api/nest/auth/totp/enroll')).body.secret;
    await operator.client.post('/api/nest/auth/totp/activate', { code: await codeAt(totpSecret, clock) });
  });
  afterAll(async () => svc.stop());

  it('a trade identity token reads the balance and withdraws as the agent key does (REST and MCP); a read token may not', async () => {
    expect(await call(token, 'GET', '/api/nest/agents/wallet/balance')).toEqual({ status: 200, body: { wallets: [] } });
    const to = Keypair.generate().publicKey.toBase58();
    const withdraw = await call(
      token,
      'POST',
      '/api/nest/agents/wallet/withdraw/solana',
      { mint: 'USDC', amount: '1', to },
      { 'x-idempotency-key': randomUUID() },
    );
    expect(withdraw).toMatchObject({ status: 403, body: { message: 'Withdrawals are disabled for this agent' } });
    const tool = await rawRpc(
      svc.url,
      publicId,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'agent_wallet_balance', arguments: {} } },
      bearer(token),
    );
    expect(JSON.parse(tool.body.result.content[0].text)).toEqual({ wallets: [] });
    const read = (await onboard('read')).body.accessToken as string;
    expect(await call(read, 'GET', '/api/nest/agents/wallet/balance')).toMatchObject({
      status: 403,
      body: { message: 'Scope insufficient: required trade, got read' },
    });
  });

  it('claim: the onboarding wallet signs a statement naming the agent; the first claim makes the operator the owner', async () => {
    // Before the claim the agent is the onboarding wallet's, not the operator's.
    expect((await operator.client.get(`/api/nest/agents/${agentId}`)).status).toBe(404);
    expect(
      await operator.client.post(
        `/api/nest/agents/${agentId}/control/claim`,
        await evmClaim(operator.client, agentWallet, agentId, new Date(clock.now()), 'Sign in'),
      ),
    ).toMatchObject({ status: 400, body: { message: [`message: its statement must start with Claim and name the agent (${agentId})`] } });
    // Onboarded agents' ids are unique in the service: another wallet names this very agent, and is not its owner wallet.
    expect(await claimAs(operator, evmWallet())).toMatchObject({
      status: 403,
      body: { message: "Message not signed by the agent's owner wallet" },
    });
    const claimed = await claimAs(operator);
    expect(claimed).toMatchObject({ status: 200 });
    expect(claimed.body).toEqual({ agentId, claimed: true, claimedBy: operator.userId, claimedAt: expect.any(String) });
    expect((await operator.client.get(`/api/nest/agents/${agentId}`)).body).toMatchObject({ agentId, publicId });
    // The same operator again: verified, the first claim's time kept.
    expect((await claimAs(operator)).body).toEqual(claimed.body);
    // A signature replayed (its nonce spent) is refused as at sign-in.
    const once = await evmClaim(operator.client, agentWallet, agentId, new Date(clock.now()));
    expect((await operator.client.post(`/api/nest/agents/${agentId}/control/claim`, once)).status).toBe(200);
    expect(await operator.client.post(`/api/nest/agents/${agentId}/control/claim`, once)).toMatchObject({
      status: 401,
      body: { message: 'Nonce already consumed' },
    });
    // Another operator with the owner wallet's signature: the agent is claimed.
    expect(await claimAs(other)).toMatchObject({ status: 409, body: { message: 'Agent already claimed' } });
    // The token keeps working: it is the agent's, whoever owns it.
    expect((await call(token, 'GET', '/api/nest/agents/wallet/balance')).status).toBe(200);
  });

  it('an agent the operator created is claimed with their own wallet; its protected changes need the claim first', async () => {
    const { agentId: own } = await other.agent('created');
    const put = await other.client.request(
      'PUT',
      `/api/nest/agents/${own}/control/scopes`,
      { maxScope: 'read' },
      { 'x-step-up-token': 'sut_x' },
    );
    expect(put).toMatchObject({ status: 403, body: { message: CLAIM_REQUIRED } });
    const rotate = await other.client.post(`/api/nest/agents/${own}/control/mcp/keys/rotate`, {}, { 'x-step-up-token': 'sut_x' });
    expect(rotate).toMatchObject({ status: 403, body: { message: CLAIM_REQUIRED } });
    const claim = await other.client.post(`/api/nest/agents/${own}/control/claim`, await solanaClaim(other.client, other.wallet, own));
    expect(claim).toMatchObject({ status: 200, body: { agentId: own, claimed: true, claimedBy: other.userId } });
    // Signed by a wallet that is not the owner's.
    const stranger = await solanaClaim(operator.client, operator.wallet, own);
    expect(await other.client.post(`/api/nest/agents/${own}/control/claim`, stranger)).toMatchObject({
      status: 403,
      body: { message: "Message not signed by the agent's owner wallet" },
    });
  });

  it('scopes: claim + CSRF + a single-use step-up token; the cap applies to the identity token at once', async () => {
    expect(await control('PUT', 'scopes', { maxScope: 'read' })).toMatchObject({
      status: 403,
      body: { message: 'Step-up token required for manage scope' },
    });
    const csrf = operator.client.csrf;
    operator.client.csrf = undefined;
    expect(await control('PUT', 'scopes', { maxScope: 'read' }, 'sut_x')).toMatchObject({ status: 403, body: { message: 'Forbidden' } });
    operator.client.csrf = csrf;
    const stepUpToken = await stepUp();
    expect(await control('PUT', 'scopes', { maxScope: 'read' }, stepUpToken)).toMatchObject({
      status: 200,
      body: { agentId, maxScope: 'read' },
    });
    expect(await control('PUT', 'scopes', { maxScope: 'manage' }, stepUpToken)).toMatchObject({
      status: 403,
      body: { message: 'Invalid or expired step-up token' },
    });
    // The trade token now acts as read: the wallet routes refuse it, MCP hides the trade tools.
    expect(await call(token, 'GET', '/api/nest/agents/wallet/balance')).toMatchObject({
      status: 403,
      body: { message: 'Scope insufficient: required trade, got read' },
    });
    const tools = await rawRpc(svc.url, publicId, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, bearer(token));
    expect((tools.body.result.tools as Array<{ name: string }>).map((t) => t.name)).not.toContain('agent_wallet_balance');
    expect(await control('PUT', 'scopes', { maxScope: 'manage' }, await stepUp())).toMatchObject({
      status: 200,
      body: { agentId, maxScope: 'manage' },
    });
    expect((await call(token, 'GET', '/api/nest/agents/wallet/balance')).status).toBe(200);
    // The agent's own credentials cannot change its settings: these are the owner's session routes.
    expect((await call(token, 'PUT', `/api/nest/agents/${agentId}/control/scopes`, { maxScope: 'manage' })).status).toBe(403);
  });

  it('rotates keys: new secrets once; the old key works through its grace period, then 401', async () => {
    const first = await operator.client.post(`/api/nest/agents/${agentId}/keys`, { name: 'runtime', scope: 'trade' });
    const second = await operator.client.post(`/api/nest/agents/${agentId}/keys`, { name: 'monitor', scope: 'read' });
    const rotated = await control('POST', 'mcp/keys/rotate', { keyId: first.body.keyId, graceSeconds: 60 }, await stepUp());
    expect(rotated).toMatchObject({
      status: 200,
      body: { keys: [{ name: 'runtime', scope: 'trade', replaces: first.body.keyId, secret: expect.stringMatching(/^mcpk_/) }] },
    });
    const fresh = rotated.body.keys[0].secret as string;
    expect((await call(fresh, 'GET', '/api/nest/agents/wallet/balance')).status).toBe(200);
    expect((await call(first.body.secret, 'GET', '/api/nest/agents/wallet/balance')).status).toBe(200);
    await clock.advance(61_000);
    expect(await call(first.body.secret, 'GET', '/api/nest/agents/wallet/balance')).toMatchObject({
      status: 401,
      body: { message: 'Unauthorized' },
    });
    // Every active key, grace 0: the old ones stop at once.
    const all = await control('POST', 'mcp/keys/rotate', {}, await stepUp());
    expect(all.status).toBe(200);
    expect((all.body.keys as Array<{ name: string }>).map((k) => k.name).sort()).toEqual(['monitor', 'runtime']);
    expect((await call(fresh, 'GET', '/api/nest/agents/wallet/balance')).status).toBe(401);
    expect((await call(second.body.secret, 'GET', '/api/nest/agents/wallet/balance')).status).toBe(401);
    const newest = all.body.keys.find((k: { name: string }) => k.name === 'runtime').secret as string;
    expect((await call(newest, 'GET', '/api/nest/agents/wallet/balance')).status).toBe(200);
    // Not the agent's own keys: the route is the owner's.
    expect((await call(newest, 'POST', `/api/nest/agents/${agentId}/control/mcp/keys/rotate`, {})).status).toBe(403);
    expect(await control('POST', 'mcp/keys/rotate', { graceSeconds: 86_401 }, 'sut_x')).toMatchObject({ status: 400 });
  });

  it('withdrawal settings after the claim: the claimant’s trade key withdraws; an identity token cannot change the settings', async () => {
    await operator.client.post(
      `/api/nest/trading/wallets/custodial/${operator.userId}?agentId=${agentId}`,
      {},
      { 'x-idempotency-key': randomUUID() },
    );
    await operator.client.post(`/api/nest/trading/paper/faucet/${operator.userId}`, {
      chain: 'solana',
      token: 'USDC',
      amount: '10',
      agentId,
    });
    expect((await call(token, 'PUT', `/api/nest/agents/${agentId}/control/withdraw`, { enabled: true })).status).toBe(403);
    expect(await control('PUT', 'withdraw', { enabled: true }, await stepUp())).toMatchObject({ status: 200, body: { enabled: true } });
    // The claim ended the onboarding wallet's say: it mints no more tokens for the agent; the claimant's key acts for it.
    expect(await onboard('trade')).toMatchObject({ status: 409, body: { message: 'Agent already claimed' } });
    const fresh = (await operator.agentKey(agentId, 'trade')).secret;
    const to = Keypair.generate().publicKey.toBase58();
    const done = await call(
      fresh,
      'POST',
      '/api/nest/agents/wallet/withdraw/solana',
      { mint: 'USDC', amount: '1000000', to },
      { 'x-idempotency-key': randomUUID() },
    );
    expect(done).toMatchObject({ status: 201, body: { status: 'confirmed', amount: '1000000', to } });
  });

  it('documents the agent wallet routes with identity tokens as a credential', async () => {
    const doc = (await anon.get('/api/nest/openapi.json')).body;
    expect(doc.paths['/api/nest/agents/wallet/balance'].get.security).toEqual([{ apiKeyBearer: [] }, { identityTokenBearer: [] }]);
    expect(doc.paths['/api/nest/agents/{agentId}/control/claim'].post).toBeDefined();
    expect(doc.paths['/api/nest/agents/{agentId}/control/scopes'].put).toBeDefined();
  });
});
