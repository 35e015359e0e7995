/**
 * Addresses from outside, on the paper venue: an EVM address in mixed case must carry a valid
 * EIP-55 checksum wherever one is taken (withdrawal recipients over REST and MCP, the allowlist,
 * tokens in trading and configuration), refused with `<field> is not a valid <chain> address`
 * rather than corrected; all-lower and all-upper digits are taken and answered checksummed.
 * A Solana recipient must be able to own tokens: program ids and sysvars are refused.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { solanaClaim } from '../support/claim-messages.js';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { bearer, Operator, rawRpc } from '../support/mcp-fixtures.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { codeAt } from '../support/totp-codes.js';

/** A recipient, EIP-55 checksummed, and the same with one letter's case flipped (a wrong checksum). */
const TO = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const TO_WRONG = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD';
const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const USDC_BASE_WRONG = '0x833589FCD6eDb6E08f4c7C32D4f71b54bdA02913';
const SYSTEM_PROGRAM = '11111111111111111111111111111111';
const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';

describe('addresses (e2e, paper venue)', () => {
  let svc: TestService;
  let owner: Operator;
  let agentId: string;
  let publicId: string;
  let tradeKey: string;
  let totpSecret: string;
  const clock = new ManualClock(Date.now());
  const asAgent = (path: string, body: unknown) =>
    fetch(`${svc.url}${path}`, {
      method: 'POST',
      headers: { ...bearer(tradeKey), 'content-type': 'application/json', 'x-idempotency-key': randomUUID() },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
  const tool = (name: string, args: Record<string, unknown>) =>
    rawRpc(svc.url, publicId, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }, bearer(tradeKey));
  const stepUp = async () => {
    await clock.advance(31_000); // a TOTP code works once: the next step's code
    const { body } = await owner.client.post(`/api/nest/agents/${agentId}/control/mcp/step-up`, { code: await codeAt(totpSecret, clock) });
    return body.stepUpToken as string;
  };
  const putSettings = async (body: Record<string, unknown>, token?: string) =>
    owner.client.request('PUT', `/api/nest/agents/${agentId}/control/withdraw`, body, { 'x-step-up-token': token ?? (await stepUp()) });

  beforeAll(async () => {
    svc = await startTestService({ clock });
    owner = await Operator.signIn(svc);
    ({ agentId, publicId } = await owner.agent('addresses'));
    tradeKey = (await owner.agentKey(agentId, 'trade')).secret;
    await owner.client.post(
      `/api/nest/trading/wallets/custodial/${owner.userId}?agentId=${agentId}`,
      { chain: 'evm' },
      { 'x-idempotency-key': randomUUID() },
    );
    const funded = await owner.client.post(`/api/nest/trading/paper/faucet/${owner.userId}`, {
      chain: 'base',
      token: 'USDC',
      amount: '100',
      agentId,
    });
    expect(funded.status).toBe(200);
    const enrolled = await owner.client.post('/api/nest/auth/totp/enroll');
    totpSecret = enrolled.body.secret;
    await owner.client.post('/api/nest/auth/totp/activate', { code: await codeAt(totpSecret, clock) });
    const claimed = await owner.client.post(
      `/api/nest/agents/${agentId}/control/claim`,
      await solanaClaim(owner.client, owner.wallet, agentId),
    );
    expect(claimed.status).toBe(200);
  });
  afterAll(async () => svc.stop());

  it('the allowlist refuses a wrong checksum and a Solana program id, before the step-up token is spent; other forms are stored checksummed', async () => {
    const token = await stepUp();
    const refused = await putSettings({ enabled: true, allowlist: [TO, TO_WRONG, SYSTEM_PROGRAM, 'nope'] }, token);
    expect(refused).toMatchObject({
      status: 400,
      body: {
        message: [
          'allowlist.1 is not a valid EVM address',
          'allowlist.2 must be able to own tokens (not a program id)',
          'allowlist.3 is not a valid Solana address',
        ],
      },
    });
    const upper = `0x${TO.slice(2).toUpperCase()}`;
    const set = await putSettings({ enabled: true, allowlist: [TO.toLowerCase(), upper] }, token);
    expect(set).toMatchObject({ status: 200, body: { enabled: true, allowlist: [TO] } });
  });

  it('a withdrawal recipient with a wrong checksum is refused over REST and MCP; lower case is paid to the checksummed address', async () => {
    const body = { chainId: 8453, token: 'USDC', amount: '1000000' };
    expect(await asAgent('/api/nest/agents/wallet/withdraw/evm', { ...body, to: TO_WRONG })).toMatchObject({
      status: 400,
      body: { message: ['to is not a valid base address'] },
    });
    const mcp = await tool('agent_wallet_withdraw_evm', { ...body, to: TO_WRONG, idempotencyKey: randomUUID() });
    expect(mcp.body.error).toEqual({ code: -32602, message: 'INVALID_PARAMS: to is not a valid base address' });
    expect(await asAgent('/api/nest/agents/wallet/withdraw/evm', { ...body, token: USDC_BASE_WRONG, to: TO })).toMatchObject({
      status: 400,
      body: { message: ['token is not a valid base address'] },
    });
    const paid = await asAgent('/api/nest/agents/wallet/withdraw/evm', { ...body, token: USDC_BASE.toLowerCase(), to: TO.toLowerCase() });
    expect(paid).toMatchObject({ status: 201, body: { chain: 'base', to: TO, token: USDC_BASE, status: 'confirmed' } });
    const byTool = await tool('agent_wallet_withdraw_evm', { ...body, to: TO, idempotencyKey: randomUUID() });
    expect(byTool.body.result.structuredContent).toMatchObject({ to: TO, status: 'confirmed' });
  });

  it('a Solana program id or sysvar is never a withdrawal recipient (REST and MCP)', async () => {
    await putSettings({ enabled: true });
    for (const to of [SYSTEM_PROGRAM, TOKEN_PROGRAM, 'SysvarC1ock11111111111111111111111111111111']) {
      expect(await asAgent('/api/nest/agents/wallet/withdraw/solana', { mint: 'SOL', amount: '1000', to }), to).toMatchObject({
        status: 400,
        body: { message: ['to must be able to own tokens (not a program id)'] },
      });
    }
    const mcp = await tool('agent_wallet_withdraw_solana', {
      mint: 'SOL',
      amount: '1000',
      to: SYSTEM_PROGRAM,
      idempotencyKey: randomUUID(),
    });
    expect(mcp.body.error).toEqual({ code: -32602, message: 'INVALID_PARAMS: to must be able to own tokens (not a program id)' });
  });

  it('tokens named by a wrong checksum are refused in trading and configuration; lower and upper case are found', async () => {
    const quote = (sellToken: string) =>
      owner.client.post(`/api/nest/trading/evm/quote/${owner.userId}`, {
        chainId: 8453,
        sellToken,
        buyToken: 'WETH',
        sellAmount: '1000000',
      });
    expect(await quote(USDC_BASE_WRONG)).toMatchObject({ status: 400, body: { message: ['sellToken is not a valid base address'] } });
    expect((await quote(USDC_BASE.toLowerCase())).status).toBe(200);
    expect((await quote(`0x${USDC_BASE.slice(2).toUpperCase()}`)).status).toBe(200);
    // The token risk report looks tokens up ignoring case: it refuses a wrong checksum like a trade.
    const report = await tool('trading_token_risk_report', { token: USDC_BASE_WRONG, chain: 'base' });
    expect(report.body.error).toEqual({ code: -32602, message: 'INVALID_PARAMS: token is not a valid base address' });
    expect(
      await owner.client.post(`/api/nest/trading/risk/token?agentId=${agentId}`, { token: USDC_BASE_WRONG, chain: 'base' }),
    ).toMatchObject({
      status: 400,
      body: { message: ['token is not a valid base address'] },
    });
    const lower = await tool('trading_token_risk_report', { token: USDC_BASE.toLowerCase(), chain: 'base' });
    expect(lower.body.result?.isError, lower.text).toBe(false);
    expect(lower.body.result.structuredContent).toMatchObject({ listed: true, token: { address: USDC_BASE, symbol: 'USDC' } });
    const favorites = `/api/nest/trading/config/${owner.userId}/favorites`;
    expect(await owner.client.post(favorites, { chain: 'base', address: USDC_BASE_WRONG })).toMatchObject({
      status: 400,
      body: { message: ['address is not a valid base address'] },
    });
    expect(await owner.client.post(favorites, { chain: 'base', address: `0x${USDC_BASE.slice(2).toUpperCase()}` })).toMatchObject({
      status: 200,
      body: { chain: 'base', address: USDC_BASE },
    });
  });
});
