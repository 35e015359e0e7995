/**
 * The agent control plane through the SDK against the real service (the agent wallet and control-plane routes): an
 * operator claims agents with `agents.claim` (SIWS with their own wallet for an agent they
 * created, EIP-4361 with the onboarding wallet for an agent onboarded by SIWE), then, with a
 * step-up token, caps scopes and rotates keys; the service's refusals arrive as SDK codes:
 * 403 unclaimed → `policy_error`, 409 claimed by another operator → `unknown_error`.
 */
import nacl from 'tweetnacl';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient, naclSigner, OperatorClient, type SdkClock, type SdkError, siweOnboarding, systemClock } from '../../sdk/src/index.js';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { codeAt } from '../support/totp-codes.js';
import { PUBLIC_URL, startTestService, type TestService } from '../support/test-service.js';

const CLAIM_REQUIRED = 'Agent not claimed: claim it first with POST /api/nest/agents/:agentId/control/claim';
const caught = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.fail('expected an SdkError'),
    (error: SdkError) => error,
  );

describe('agent control plane through the SDK (e2e)', () => {
  const clock = new ManualClock(Date.now());
  let svc: TestService;
  let operator: OperatorClient;
  let other: OperatorClient;
  let totpSecret: string;
  const operatorWallet = naclSigner(nacl.sign.keyPair());
  // The SDK dates its EIP-4361 messages by its clock: the service's, which the step-ups move on.
  const sdkClock: SdkClock = { now: () => clock.now(), sleep: systemClock.sleep };

  /** A fresh step-up token for `agentId`: each TOTP code works once, so the clock moves to the next step first. */
  const stepUp = async (agentId: string) => {
    await clock.advance(31_000);
    return (await operator.agents.stepUp(agentId, { code: await codeAt(totpSecret, clock) })).stepUpToken;
  };

  beforeAll(async () => {
    svc = await startTestService({ clock });
    operator = new OperatorClient({ baseUrl: svc.url, publicUrl: PUBLIC_URL, clock: sdkClock });
    await operator.signInWithSolana(operatorWallet);
    other = new OperatorClient({ baseUrl: svc.url, publicUrl: PUBLIC_URL, clock: sdkClock });
    await other.signInWithSolana(naclSigner(nacl.sign.keyPair()));
    totpSecret = (await operator.totp.enroll()).secret;
    await operator.totp.activate(await codeAt(totpSecret, clock));
  });
  afterAll(() => svc?.stop());

  it('an agent the operator created: unclaimed, scopes and rotation are policy_error 403 (the step-up token kept); claimed with their own Solana wallet, they pass', async () => {
    const { agentId, publicId } = await operator.agents.create({ name: 'sdk control' });
    const oldKey = await operator.keys.create(agentId, { name: 'runtime', scope: 'trade' });
    const token = await stepUp(agentId);
    for (const refused of [
      operator.agents.setScopes(agentId, { maxScope: 'read' }, { stepUpToken: token }),
      operator.agents.rotateKeys(agentId, {}, { stepUpToken: token }),
    ]) {
      expect(await caught(refused)).toMatchObject({ code: 'policy_error', status: 403, message: CLAIM_REQUIRED });
    }

    const claim = await operator.agents.claim(agentId, operatorWallet);
    expect(claim).toEqual({ agentId, claimed: true, claimedBy: operator.user.id, claimedAt: expect.any(String) });
    // Again: a verification, the first claim's time kept.
    expect(await operator.agents.claim(agentId, operatorWallet)).toEqual(claim);

    // The token refused above was not spent: rotation takes it now. The new secret is in the answer, once.
    const rotated = await operator.agents.rotateKeys(agentId, { keyId: oldKey.keyId }, { stepUpToken: token });
    expect(rotated.keys).toEqual([
      expect.objectContaining({
        name: 'runtime',
        scope: 'trade',
        status: 'active',
        replaces: oldKey.keyId,
        secret: expect.stringMatching(/^mcpk_/),
      }),
    ]);
    const newKey = rotated.keys[0]!.secret;
    expect(newKey).not.toBe(oldKey.secret);
    const before = new AgentClient({ baseUrl: svc.url, publicId, apiKey: oldKey.secret });
    expect(await caught(before.walletBalance())).toMatchObject({ code: 'auth_error', status: 401 });
    const runtime = new AgentClient({ baseUrl: svc.url, publicId, apiKey: newKey });
    await expect(runtime.walletBalance()).resolves.toEqual({ wallets: [] });

    // A cap of `read`: the trade key acts as read at once.
    expect(await operator.agents.setScopes(agentId, { maxScope: 'read' }, { stepUpToken: await stepUp(agentId) })).toEqual({
      agentId,
      maxScope: 'read',
    });
    expect(await caught(runtime.walletBalance())).toMatchObject({
      code: 'policy_error',
      status: 403,
      message: 'Scope insufficient: required trade, got read',
    });
    expect(await operator.agents.setScopes(agentId, { maxScope: 'manage' }, { stepUpToken: await stepUp(agentId) })).toEqual({
      agentId,
      maxScope: 'manage',
    });
    await expect(runtime.walletBalance()).resolves.toEqual({ wallets: [] });
  });

  it('an agent onboarded with SIWE is claimed with its onboarding wallet (EIP-4361); another operator then gets unknown_error 409, a wrong wallet policy_error 403', async () => {
    const agentWallet = privateKeyToAccount(generatePrivateKey());
    const agent = new AgentClient({
      baseUrl: svc.url,
      clock: sdkClock,
      identity: siweOnboarding({ signer: agentWallet, scope: 'trade', publicUrl: PUBLIC_URL }),
    });
    await agent.listTools();
    const { agentId } = agent.identityToken!.identity!;

    // Not the operator's yet: withdrawal settings of someone else's agent are not found.
    expect(await caught(operator.agents.withdrawSettings(agentId))).toMatchObject({ code: 'unknown_error', status: 404 });
    const stranger = privateKeyToAccount(generatePrivateKey());
    // Onboarded agents' ids are unique in the service: a stranger's wallet names this very agent and is not its owner wallet.
    expect(await caught(operator.agents.claim(agentId, stranger))).toMatchObject({
      code: 'policy_error',
      status: 403,
      message: "Message not signed by the agent's owner wallet",
    });

    expect(await operator.agents.claim(agentId, agentWallet, { chainId: 8453 })).toMatchObject({
      agentId,
      claimed: true,
      claimedBy: operator.user.id,
    });
    expect(await operator.agents.withdrawSettings(agentId)).toMatchObject({ enabled: false });
    const taken = await caught(other.agents.claim(agentId, agentWallet));
    expect(taken).toMatchObject({ code: 'unknown_error', status: 409, message: 'Agent already claimed' });
    // Once claimed, the owner wallet is the claim's: the operator's own Solana wallet is not it.
    expect(await caught(operator.agents.claim(agentId, operatorWallet))).toMatchObject({
      code: 'policy_error',
      status: 403,
      message: "Message not signed by the agent's owner wallet",
    });

    const settings = await operator.agents.setWithdrawSettings(agentId, { enabled: true }, { stepUpToken: await stepUp(agentId) });
    expect(settings).toMatchObject({ enabled: true });
    // The identity token keeps working for the agent, whoever owns it.
    await expect(agent.walletBalance()).resolves.toEqual({ wallets: [] });
  });
});
