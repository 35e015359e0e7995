/**
 * Signed messages carry their purpose: a claim's message
 * (`Claim agent <agentId>`), a widget owner's sign-in and an onboarding's (SDK statement
 * `Onboard an agent at <host>`, or the SIWA form) are each taken by their own route and refused
 * (401) by every other, sign-in included; the refusal leaves the nonce for the right route.
 * Sign-in still takes any other statement. Real signatures: tweetnacl (SIWS), viem (EIP-4361).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmClaim, solanaClaim } from '../support/claim-messages.js';
import { Operator } from '../support/mcp-fixtures.js';
import { Client, evmWallet, PUBLIC_URL, startTestService, type TestService } from '../support/test-service.js';

const ONBOARD = '/api/public/erc8004/onboarding/siwe';
const UNAUTHORIZED = { status: 401, body: { message: 'Unauthorized' } };
/** What the SDK's `siweOnboarding` signs by default. */
const ONBOARDING_STATEMENT = 'Onboard an agent at agents.test';

describe('signed message purposes (e2e)', () => {
  let svc: TestService;
  let operator: Operator;
  let agentId: string;

  const solanaLogin = async (wallet: Operator['wallet'], message: string) => {
    const client = new Client(svc.url);
    await client.refreshCsrf();
    return client.post('/api/nest/auth/login', { message, signature: wallet.sign(message), walletAddress: wallet.address });
  };
  const evmLogin = async (message: string, signature: string) => {
    const client = new Client(svc.url);
    await client.refreshCsrf();
    return client.post('/api/nest/auth/evm/login', { message, signature });
  };
  const claim = (body: { message: string; signature: string }) => operator.client.post(`/api/nest/agents/${agentId}/control/claim`, body);
  const onboardingMessage = async (wallet: ReturnType<typeof evmWallet>, statement?: string) => {
    const { body } = await new Client(svc.url).post('/api/nest/auth/evm/nonce', {});
    const message = wallet.message(body.nonce as string, new Date(), statement === undefined ? {} : { statement });
    return { message, signature: await wallet.sign(message) };
  };

  beforeAll(async () => {
    svc = await startTestService();
    operator = await Operator.signIn(svc);
    ({ agentId } = await operator.agent('claimed'));
  });
  afterAll(() => svc.stop());

  it('a claim message opens no session and onboards nothing; the claim still takes it', async () => {
    const solana = await solanaClaim(operator.client, operator.wallet, agentId);
    expect(await solanaLogin(operator.wallet, solana.message)).toMatchObject(UNAUTHORIZED);
    const wallet = evmWallet();
    const evm = await evmClaim(operator.client, wallet, agentId);
    expect(await evmLogin(evm.message, evm.signature)).toMatchObject(UNAUTHORIZED);
    expect(await new Client(svc.url).post(ONBOARD, { ...evm, scope: 'read' })).toMatchObject(UNAUTHORIZED);
    // Any case, any words after `Claim`: still a claim's.
    const lower = await evmClaim(operator.client, wallet, agentId, new Date(), `claim ${agentId} for my desk`);
    expect(await evmLogin(lower.message, lower.signature)).toMatchObject(UNAUTHORIZED);
    // Refused before its nonce was spent: the claim goes through with the same signature.
    expect(await claim(solana)).toMatchObject({ status: 200, body: { agentId, claimed: true, claimedBy: operator.userId } });
  });

  it("an onboarding message (the SDK's statement, or the SIWA form) signs no one in and claims nothing; onboarding takes it", async () => {
    const wallet = evmWallet();
    const sdk = await onboardingMessage(wallet, ONBOARDING_STATEMENT);
    expect(await evmLogin(sdk.message, sdk.signature)).toMatchObject(UNAUTHORIZED);
    expect(await claim(sdk)).toMatchObject(UNAUTHORIZED);
    const siwa = await onboardingMessage(wallet, 'Sign in to agents.test');
    const siwaText = siwa.message.replace(
      '\nVersion: 1\n',
      `\nVersion: 1\nAgent ID: 7\nAgent Registry: eip155:1:${'0x'.padEnd(42, '1')}\n`,
    );
    const siwaSigned = { message: siwaText, signature: await wallet.sign(siwaText) };
    expect(await evmLogin(siwaSigned.message, siwaSigned.signature)).toMatchObject(UNAUTHORIZED);
    expect(await claim(siwaSigned)).toMatchObject(UNAUTHORIZED);
    // Its nonce was left: onboarding takes the SDK's message, and a plain EIP-4361 one as before.
    expect(await new Client(svc.url).post(ONBOARD, { ...sdk, scope: 'read' })).toMatchObject({ status: 201 });
    const plain = await onboardingMessage(evmWallet());
    expect(await new Client(svc.url).post(ONBOARD, { ...plain, scope: 'read' })).toMatchObject({ status: 201 });
  });

  it("a widget owner's sign-in is the widget's alone, even on the service's own origin", async () => {
    const botId = (await operator.client.post('/api/nest/bots', { name: 'Own-site bot' })).body.id as string;
    expect((await operator.client.put(`/api/nest/bots/${botId}/widget-config`, { allowedOrigins: [PUBLIC_URL] })).status).toBe(200);
    const page = (token?: string) => ({ origin: PUBLIC_URL, ...(token ? { authorization: `Bearer ${token}` } : {}) });
    const visitor = new Client(svc.url);
    const token = (await visitor.post(`/api/widget/${botId}/init`, {}, page())).body.sessionToken as string;
    const challenge = await visitor.post(
      `/api/widget/${botId}/sign-in/nonce`,
      { chain: 'solana', walletAddress: operator.wallet.address },
      page(token),
    );
    expect(challenge.body.message).toMatch(/^agents\.test wants you to sign in with your Solana account:\n/);
    const widget = { message: challenge.body.message as string, signature: operator.wallet.sign(challenge.body.message) };
    expect(await solanaLogin(operator.wallet, widget.message)).toMatchObject(UNAUTHORIZED);
    expect(await claim(widget)).toMatchObject(UNAUTHORIZED);
    // The owner's claim signature does not sign the widget in either.
    const claimed = await solanaClaim(operator.client, operator.wallet, agentId);
    expect(await visitor.post(`/api/widget/${botId}/sign-in`, claimed, page(token))).toMatchObject(UNAUTHORIZED);
    expect(await visitor.post(`/api/widget/${botId}/sign-in`, widget, page(token))).toMatchObject({
      status: 200,
      body: { owner: true, walletAddress: operator.wallet.address },
    });
  });

  it('sign-in takes any other statement, or none', async () => {
    const { body } = await operator.client.post('/api/nest/auth/nonce', { walletAddress: operator.wallet.address });
    const welcome = (body.message as string).replace('Sign in to the agent service', 'Welcome back to the desk');
    expect((await solanaLogin(operator.wallet, welcome)).status).toBe(200);
    const wallet = evmWallet();
    const { body: evmNonce } = await new Client(svc.url).post('/api/nest/auth/evm/nonce', {});
    const bare = wallet.message(evmNonce.nonce as string);
    expect((await evmLogin(bare, await wallet.sign(bare))).status).toBe(200);
  });
});
