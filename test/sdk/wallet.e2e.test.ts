/**
 * The agent wallet through the SDK against the real service on the paper venue (the agent wallet and control-plane routes): the operator claims the agent (`agents.claim`, SIWS and EIP-4361) and switches
 * withdrawals on with its session and a step-up token (`agents.setWithdrawSettings`,
 * `X-Step-Up-Token`), the agent reads its balance and withdraws
 * on Solana and EVM; and a withdrawal whose answer is lost (a 429, then a dropped connection
 * after the service paid) is retried with the same idempotency key and pays once — also when
 * the agent's identity token is renewed between the attempts.
 */
import { Keypair } from '@solana/web3.js';
import nacl from 'tweetnacl';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AgentClient,
  naclSigner,
  OperatorClient,
  type SdkClock,
  type SdkError,
  siweOnboarding,
  systemClock,
  type WalletBalance,
} from '../../sdk/src/index.js';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { codeAt } from '../support/totp-codes.js';
import { PUBLIC_URL, startTestService, type TestService } from '../support/test-service.js';
import { flakyProxy } from './flaky-proxy.js';
import { DrivenClock } from './sdk-fakes.js';

const USDC_SOLANA = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const caught = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.fail('expected an SdkError'),
    (error: SdkError) => error,
  );

describe('agent wallet through the SDK (e2e, paper venue)', () => {
  const clock = new ManualClock(Date.now());
  let svc: TestService;
  let operator: OperatorClient;
  let agentId: string;
  let publicId: string;
  let tradeKey: string;
  let totpSecret: string;
  let agent: AgentClient;
  const solanaTo = Keypair.generate().publicKey.toBase58();
  const evmTo = privateKeyToAccount(generatePrivateKey()).address;
  const operatorWallet = naclSigner(nacl.sign.keyPair());

  /** A fresh step-up token: each TOTP code works once, so the clock moves to the next step first. */
  const stepUp = async () => {
    await clock.advance(31_000);
    return (await operator.agents.stepUp(agentId, { code: await codeAt(totpSecret, clock) })).stepUpToken;
  };
  const usdcOn = (balance: WalletBalance, chain: string) =>
    balance.wallets.find((w) => w.chain === chain)?.tokens.find((t) => t.symbol === 'USDC')?.amount;

  beforeAll(async () => {
    svc = await startTestService({ clock });
    operator = new OperatorClient({ baseUrl: svc.url, publicUrl: PUBLIC_URL });
    await operator.signInWithSolana(operatorWallet);
    ({ agentId, publicId } = await operator.agents.create({ name: 'sdk wallet' }));
    tradeKey = (await operator.keys.create(agentId, { name: 'runtime', scope: 'trade' })).secret;
    await operator.wallets.ensureCustodial({ chain: 'solana' }, { agentId });
    await operator.wallets.ensureCustodial({ chain: 'evm' }, { agentId });
    await operator.trading.paperFaucet({ chain: 'solana', token: 'USDC', amount: '100' }, { agentId });
    await operator.trading.paperFaucet({ chain: 'base', token: 'USDC', amount: '50' }, { agentId });
    totpSecret = (await operator.totp.enroll()).secret;
    await operator.totp.activate(await codeAt(totpSecret, clock));
    agent = new AgentClient({ baseUrl: svc.url, publicId, apiKey: tradeKey });
  });
  afterAll(() => svc?.stop());

  it("walletBalance answers the route's { wallets } with each chain's tokens in base units", async () => {
    const balance = await agent.walletBalance();
    expect(balance.wallets).toContainEqual({
      chain: 'solana',
      address: expect.any(String),
      tokens: [{ mint: USDC_SOLANA, symbol: 'USDC', amount: '100000000', decimals: 6, valueUsd: expect.any(Number) }],
    });
    expect(usdcOn(balance, 'base')).toBe('50000000');
  });

  it("withdrawals are off until the operator switches them on with a step-up token (X-Step-Up-Token); each refusal is a policy_error in the service's words", async () => {
    const off = await caught(agent.withdrawSolana({ mint: 'USDC', amount: '1000000', to: solanaTo }));
    expect(off).toMatchObject({ code: 'policy_error', status: 403, message: 'Withdrawals are disabled for this agent' });
    expect(await operator.agents.withdrawSettings(agentId)).toMatchObject({ enabled: false });

    // The claim comes first: unclaimed, even a good step-up token is refused (and not spent).
    const token = await stepUp();
    const unclaimed = await caught(operator.agents.setWithdrawSettings(agentId, { enabled: true }, { stepUpToken: token }));
    expect(unclaimed).toMatchObject({
      code: 'policy_error',
      status: 403,
      message: 'Agent not claimed: claim it first with POST /api/nest/agents/:agentId/control/claim',
    });
    // The creator's own wallet claims an agent it created: a SIWS message naming the agent.
    expect(await operator.agents.claim(agentId, operatorWallet)).toEqual({
      agentId,
      claimed: true,
      claimedBy: operator.user.id,
      claimedAt: expect.any(String),
    });
    const forged = await caught(operator.agents.setWithdrawSettings(agentId, { enabled: true }, { stepUpToken: 'sut_forged' }));
    expect(forged).toMatchObject({ code: 'policy_error', status: 403, message: 'Invalid or expired step-up token' });
    const set = await operator.agents.setWithdrawSettings(
      agentId,
      { enabled: true, allowlist: [solanaTo, evmTo], dailyCapUsd: 50 },
      { stepUpToken: token },
    );
    expect(set).toMatchObject({ enabled: true, allowlist: [solanaTo, evmTo], dailyCapUsd: 50, requireStepUp: false });
    expect(await operator.agents.withdrawSettings(agentId)).toEqual(set);
    // Single use: the same token again is refused.
    const reused = await caught(operator.agents.setWithdrawSettings(agentId, { enabled: false }, { stepUpToken: token }));
    expect(reused).toMatchObject({ code: 'policy_error', message: 'Invalid or expired step-up token' });
    // The agent's own key is no operator: the settings route refuses it.
    const asAgent = await fetch(`${svc.url}/api/nest/agents/${agentId}/control/withdraw`, {
      headers: { authorization: `Bearer ${tradeKey}` },
    });
    expect(asAgent.status).toBe(403);
  });

  it('withdrawSolana and withdrawEvm pay on the paper venue; a recipient off the allowlist is a policy_error', async () => {
    const solana = await agent.withdrawSolana({ mint: 'USDC', amount: '2000000', to: solanaTo });
    expect(solana).toMatchObject({
      chain: 'solana',
      to: solanaTo,
      token: USDC_SOLANA,
      symbol: 'USDC',
      amount: '2000000',
      status: 'confirmed',
      txHash: expect.any(String),
    });
    const evm = await agent.withdrawEvm({ chainId: 8453, token: 'USDC', amount: '1000000', to: evmTo });
    expect(evm).toMatchObject({
      chain: 'base',
      to: evmTo,
      symbol: 'USDC',
      amount: '1000000',
      status: 'confirmed',
      txHash: expect.any(String),
    });
    const balance = await agent.walletBalance();
    expect(usdcOn(balance, 'solana')).toBe('98000000');
    expect(usdcOn(balance, 'base')).toBe('49000000');
    const stranger = Keypair.generate().publicKey.toBase58();
    const refused = await caught(agent.withdrawSolana({ mint: 'USDC', amount: '1000000', to: stranger }));
    expect(refused).toMatchObject({ code: 'policy_error', status: 403, message: `Withdrawal address not on the allowlist: ${stranger}` });
  });

  it('a 429 and then an answer lost after the service paid: retried with the same idempotency key, paid once', async () => {
    let withdrawals = 0;
    const proxy = await flakyProxy(svc.url, ({ method, path }) => {
      if (method !== 'POST' || path !== '/api/nest/agents/wallet/withdraw/solana') return undefined;
      withdrawals++;
      if (withdrawals === 1)
        return {
          status: 429,
          headers: { 'retry-after': '2' },
          body: { statusCode: 429, message: 'Too Many Requests', error: 'Too Many Requests' },
        };
      return withdrawals === 2 ? 'drop-after-forward' : 'forward';
    });
    try {
      const before = usdcOn(await agent.walletBalance(), 'solana');
      const driven = new DrivenClock();
      const retries: string[] = [];
      const flaky = new AgentClient({
        baseUrl: proxy.url,
        publicId,
        apiKey: tradeKey,
        clock: driven,
        random: () => 0,
        onRetry: ({ error }) => retries.push(error.code),
      });
      const withdrawal = await flaky.withdrawSolana({ mint: 'USDC', amount: '3000000', to: solanaTo });
      expect(withdrawal).toMatchObject({ amount: '3000000', status: 'confirmed' });

      const attempts = proxy.requests.filter((r) => r.path === '/api/nest/agents/wallet/withdraw/solana');
      expect(attempts.map((r) => r.step)).toEqual(['answered', 'drop-after-forward', 'forward']);
      expect(retries).toEqual(['rate_limit_error', 'network_error']);
      // Retry-After 2 s, then the second backoff step (500 ms, half of it fixed with random 0).
      expect(driven.sleeps).toEqual([2_000, 250]);
      const keys = attempts.map((r) => r.headers['x-idempotency-key']);
      expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(new Set(keys).size).toBe(1);
      // The service paid on the attempt whose answer was lost; the retry got that withdrawal back.
      expect(attempts[1]!.upstream).toMatchObject({ status: 201 });
      expect(attempts[1]!.upstream!.headers['idempotent-replayed']).toBeUndefined();
      expect(attempts[2]!.upstream).toMatchObject({ status: 201, headers: { 'idempotent-replayed': 'true' } });
      expect(usdcOn(await agent.walletBalance(), 'solana')).toBe(String(BigInt(before!) - 3_000_000n));
    } finally {
      await proxy.close();
    }
  });

  it('an agent onboarded with SIWE withdraws with its identity token; a retry that outlives the token goes with a renewed one and still pays once', async () => {
    // The owner's wallet is both the agent's onboarding signer and the operator who funds it.
    const ownerAccount = privateKeyToAccount(generatePrivateKey());
    const ownerClock: SdkClock = { now: () => clock.now(), sleep: systemClock.sleep };
    const owner = new OperatorClient({ baseUrl: svc.url, publicUrl: PUBLIC_URL, clock: ownerClock });
    await owner.signInWithEthereum(ownerAccount);
    let withdrawals = 0;
    const proxy = await flakyProxy(svc.url, ({ method, path }) => {
      if (method !== 'POST' || path !== '/api/nest/agents/wallet/withdraw/solana') return undefined;
      withdrawals++;
      if (withdrawals === 1) return 'drop-after-forward';
      // Long enough that the trade token (300 s, renewed at 240 s) is due for renewal when the wait ends.
      if (withdrawals === 2)
        return {
          status: 429,
          headers: { 'retry-after': '241' },
          body: { statusCode: 429, message: 'Too Many Requests', error: 'Too Many Requests' },
        };
      return 'forward';
    });
    try {
      // The SDK's waits move the service's clock: a Retry-After of 241 s really passes for the token.
      const driven: SdkClock = { now: () => clock.now(), sleep: (ms) => clock.advance(ms) };
      const onboarded = new AgentClient({
        baseUrl: proxy.url,
        clock: driven,
        random: () => 0,
        retry: { maxRetryAfterMs: 300_000 },
        identity: siweOnboarding({ signer: ownerAccount, scope: 'trade', publicUrl: PUBLIC_URL }),
      });
      await onboarded.listTools();
      const { agentId: ownAgent, jti } = onboarded.identityToken!.identity!;
      await owner.wallets.ensureCustodial({ chain: 'solana' }, { agentId: ownAgent });
      await owner.trading.paperFaucet({ chain: 'solana', token: 'USDC', amount: '10' }, { agentId: ownAgent });
      const secret = (await owner.totp.enroll()).secret;
      await owner.totp.activate(await codeAt(secret, clock));
      // The onboarding wallet claims the agent for the operator it signed in as: an EIP-4361 message naming it.
      expect(await owner.agents.claim(ownAgent, ownerAccount, { chainId: 8453 })).toMatchObject({ agentId: ownAgent, claimed: true });
      await clock.advance(31_000);
      const { stepUpToken } = await owner.agents.stepUp(ownAgent, { code: await codeAt(secret, clock) });
      await owner.agents.setWithdrawSettings(ownAgent, { enabled: true }, { stepUpToken });

      const withdrawal = await onboarded.withdrawSolana({ mint: 'USDC', amount: '4000000', to: solanaTo });
      expect(withdrawal).toMatchObject({ amount: '4000000', status: 'confirmed' });
      const attempts = proxy.requests.filter((r) => r.path === '/api/nest/agents/wallet/withdraw/solana');
      expect(attempts.map((r) => r.step)).toEqual(['drop-after-forward', 'answered', 'forward']);
      expect(new Set(attempts.map((r) => r.headers['x-idempotency-key'])).size).toBe(1);
      // The last attempt went with a new token: the key names the call for the agent, whatever credential carries it.
      expect(onboarded.identityToken!.identity!.jti).not.toBe(jti);
      expect(attempts[2]!.headers.authorization).not.toBe(attempts[0]!.headers.authorization);
      expect(attempts[2]!.upstream).toMatchObject({ status: 201, headers: { 'idempotent-replayed': 'true' } });
      expect(usdcOn(await onboarded.walletBalance(), 'solana')).toBe('6000000');
    } finally {
      await proxy.close();
    }
  });
});
