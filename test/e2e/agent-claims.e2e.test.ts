/**
 * A claim by another operator: once an operator claimed an agent, any other
 * operator's claim of it is 409 `Agent already claimed`, whatever wallet signed: the agent's
 * owner wallet, or the operator's own (which used to read as 404 or 403). Onboarded agents
 * (an id the onboarding chose) and agents an operator created (a generated id) alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmClaim, solanaClaim } from '../support/claim-messages.js';
import { Operator } from '../support/mcp-fixtures.js';
import { Client, evmWallet, startTestService, type TestService } from '../support/test-service.js';

const ALREADY_CLAIMED = { status: 409, body: { message: 'Agent already claimed' } };

describe('claims by another operator (e2e)', () => {
  let svc: TestService;
  let first: Operator;
  let second: Operator;

  const claim = async (who: Operator, agentId: string, proof: { message: string; signature: string }) =>
    who.client.post(`/api/nest/agents/${agentId}/control/claim`, proof);

  beforeAll(async () => {
    svc = await startTestService();
    first = await Operator.signIn(svc);
    second = await Operator.signIn(svc);
  });
  afterAll(() => svc.stop());

  it('an onboarded agent claimed by one operator: the other gets 409 with its own wallet or the owner wallet', async () => {
    const ownerWallet = evmWallet();
    const anon = new Client(svc.url);
    const { body: nonce } = await anon.post('/api/nest/auth/evm/nonce', {});
    const message = ownerWallet.message(nonce.nonce as string);
    const onboarded = await anon.post('/api/public/erc8004/onboarding/siwe', {
      message,
      signature: await ownerWallet.sign(message),
      scope: 'read',
    });
    expect(onboarded.status).toBe(201);
    const agentId = onboarded.body.agentId as string;
    expect(await claim(first, agentId, await evmClaim(first.client, ownerWallet, agentId))).toMatchObject({ status: 200 });
    expect(await claim(second, agentId, await solanaClaim(second.client, second.wallet, agentId))).toMatchObject(ALREADY_CLAIMED);
    expect(await claim(second, agentId, await evmClaim(second.client, evmWallet(), agentId))).toMatchObject(ALREADY_CLAIMED);
    expect(await claim(second, agentId, await evmClaim(second.client, ownerWallet, agentId))).toMatchObject(ALREADY_CLAIMED);
    // The claimant verifies again as before.
    expect(await claim(first, agentId, await evmClaim(first.client, ownerWallet, agentId))).toMatchObject({
      status: 200,
      body: { agentId, claimed: true, claimedBy: first.userId },
    });
  });

  it('an agent its creator claimed: another operator signing with their own wallet gets 409', async () => {
    const { agentId } = await first.agent('created');
    expect(await claim(first, agentId, await solanaClaim(first.client, first.wallet, agentId))).toMatchObject({ status: 200 });
    expect(await claim(second, agentId, await solanaClaim(second.client, second.wallet, agentId))).toMatchObject(ALREADY_CLAIMED);
  });

  it('an unclaimed agent stays as it was: another wallet is not its owner (403), an unknown id is 404', async () => {
    const { agentId } = await first.agent('unclaimed');
    expect(await claim(second, agentId, await solanaClaim(second.client, second.wallet, agentId))).toMatchObject({
      status: 403,
      body: { message: "Message not signed by the agent's owner wallet" },
    });
    expect(await claim(second, 'no-such-agent', await solanaClaim(second.client, second.wallet, 'no-such-agent'))).toMatchObject({
      status: 404,
      body: { message: 'Agent not found' },
    });
  });
});
