import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmClaim } from '../support/claim-messages.js';
import { bearer, Operator, rawRpc } from '../support/mcp-fixtures.js';
import { Client, evmWallet, startTestService, type TestService } from '../support/test-service.js';

/**
 * The refusals a newcomer meets in the first hour keep their words (the interface's where it
 * fixes them) and say the next step: `details.hint` over REST, `hint` (tool refusals) or
 * `data.hint` (bad arguments) over MCP. Following the hints gets the trade through.
 */
describe('first-hour refusals say what to do next (REST and MCP)', () => {
  let svc: TestService;
  let operator: Operator;
  beforeAll(async () => {
    svc = await startTestService();
    operator = await Operator.signIn(svc);
  });
  afterAll(() => svc.stop());

  const tool = (publicId: string, credential: string, name: string, args: Record<string, unknown>) =>
    rawRpc(svc.url, publicId, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }, bearer(credential));
  /** A tool's refusal: `isError: true`, `{code, message, retryable, hint?}` as its structured content. */
  const refusalOf = (answer: { body: any }) => {
    expect(answer.body.result?.isError, JSON.stringify(answer.body)).toBe(true);
    return answer.body.result.structuredContent;
  };
  const swap = (publicId: string, credential: string) =>
    tool(publicId, credential, 'trading_solana_aggregator_swap', {
      inputMint: 'USDC',
      outputMint: 'SOL',
      amount: '10000000',
      idempotencyKey: randomUUID(),
    });
  const command = (agentId: string) =>
    operator.client.post('/api/nest/trading/command', { message: 'swap 10 USDC to SOL', agentId }, { 'x-idempotency-key': randomUUID() });

  it('an ERC-8004 agent’s first trade: the Turkish refusal word for word, the owner’s steps in English; then the wallet and the faucet', async () => {
    const anon = new Client(svc.url);
    const ownerWallet = evmWallet();
    const { body: nonce } = await anon.post('/api/nest/auth/evm/nonce', {});
    const message = ownerWallet.message(nonce.nonce);
    const onboarded = await anon.post('/api/public/erc8004/onboarding/siwe', {
      message,
      signature: await ownerWallet.sign(message),
      scope: 'trade',
    });
    expect(onboarded.status).toBe(201);
    const { agentId, publicId, accessToken } = onboarded.body;

    const off = refusalOf(await swap(publicId, accessToken));
    expect(off).toMatchObject({ code: 'TRADING_DISABLED', message: 'Trading bu bot icin kapali.' });
    expect(off.hint).toContain(`POST /api/nest/agents/${agentId}/control/claim`);
    expect(off.hint).toContain(`PUT /api/nest/agents/${agentId}/trading {"enabled":true}`);
    expect(off.hint).toContain('trading_wallet_custodial_ensure');

    // The owner does what the hint says: claims the agent with the onboarding wallet ...
    const claim = await operator.client.post(
      `/api/nest/agents/${agentId}/control/claim`,
      await evmClaim(operator.client, ownerWallet, agentId),
    );
    expect(claim.status).toBe(200);
    // ... where REST answers the same soft refusal, the hint in `details` ...
    const rest = await command(agentId);
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject({
      success: false,
      error: { code: 'TRADING_DISABLED', message: 'Trading bu bot icin kapali.', details: { retryable: false } },
    });
    expect(rest.body.error.details.hint).toBe(off.hint);
    // ... and switches trading on. The next refusal is the wallet's, saying where it and the funds come from.
    expect((await operator.client.put(`/api/nest/agents/${agentId}/trading`, { enabled: true })).status).toBe(200);
    const noWallet = refusalOf(await swap(publicId, accessToken));
    expect(noWallet).toMatchObject({ code: 'WALLET_REQUIRED', message: 'Custodial wallet required for this operation' });
    expect(noWallet.hint).toContain('trading_wallet_custodial_ensure {"chain":"solana"}');
    expect(noWallet.hint).toContain('POST /api/nest/trading/paper/faucet/:userId');
    const restNoWallet = await command(agentId);
    expect(restNoWallet).toMatchObject({
      status: 400,
      body: {
        statusCode: 400,
        code: 'WALLET_REQUIRED',
        message: 'Custodial wallet required for this operation',
        details: { hint: noWallet.hint },
      },
    });

    // Following that hint too, the first trade goes through.
    const ensured = await tool(publicId, accessToken, 'trading_wallet_custodial_ensure', { chain: 'solana', idempotencyKey: randomUUID() });
    expect(ensured.body.result.isError).toBe(false);
    const funded = await operator.client.post(`/api/nest/trading/paper/faucet/${operator.userId}`, {
      chain: 'solana',
      token: 'USDC',
      amount: '100',
      agentId,
    });
    expect(funded.status).toBe(200);
    const traded = await swap(publicId, accessToken);
    expect(traded.body.result.isError).toBe(false);
    expect(traded.body.result.structuredContent).toMatchObject({ status: 'filled' });
  });

  it('the onboarding guide says the same before the first trade', async () => {
    const guide = await (await fetch(`${svc.url}/.well-known/erc8004-onboarding.md`)).text();
    const step = guide.split('\n').find((line) => line.includes('**first-trade**'));
    expect(step).toContain('"Trading bu bot icin kapali."');
    expect(step).toContain('/api/nest/agents/{agentId}/control/claim');
    expect(step).toContain('/api/nest/agents/{agentId}/trading {"enabled":true}');
    expect(step).toContain('trading_wallet_custodial_ensure');
  });

  it('a DCA interval refused: the message as before, with the one-minute floor and the forms that work in the hint', async () => {
    const { agentId, publicId } = await operator.agent('dca-hints');
    const key = await operator.agentKey(agentId, 'trade');
    const body = (interval: string) => ({
      name: `s-${randomUUID().slice(0, 8)}`,
      inputToken: 'USDC',
      outputToken: 'SOL',
      amount: '1',
      interval,
      agentId,
    });
    for (const [interval, message] of [
      ['every 30 seconds', 'interval must be a cron expression or "every <n> <minutes|hours|days>"'],
      ['*/30 * * * * *', 'interval must be at least 60 seconds apart'],
    ] as const) {
      const rest = await operator.client.post(`/api/nest/trading/strategies/${operator.userId}`, body(interval));
      expect(rest.status, interval).toBe(400);
      expect(rest.body.message).toEqual([message]);
      expect(rest.body.details.hint).toContain('at least one minute apart');
      for (const form of ['"every 2h"', '"hourly"', '"daily"', '"weekly"', '"every 30 min"'])
        expect(rest.body.details.hint).toContain(form);

      const { agentId: _agentId, ...args } = body(interval);
      const mcp = await tool(publicId, key.secret, 'trading_dca_strategy_create', args);
      expect(mcp.body.error).toEqual({ code: -32602, message: `INVALID_PARAMS: ${message}`, data: { hint: rest.body.details.hint } });
    }
    // A refusal of another field carries no interval hint.
    const other = await operator.client.post(`/api/nest/trading/strategies/${operator.userId}`, { ...body('daily'), amount: '0' });
    expect(other.status).toBe(400);
    expect(other.body.details).toBeUndefined();
  });
});
