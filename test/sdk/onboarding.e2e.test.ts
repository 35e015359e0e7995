/**
 * The SDK's ERC-8004 onboarding against the real service (the public onboarding and directory routes, identity access tokens, "Client SDK"): SIWE with a viem account, then tools; renewal before `exp` on
 * a driven clock; SIWA checked on a registry deployed on EDR; refusals of the identity
 * provider as `provider_auth_error` in the service's words; and what an event stream does when
 * its token is revoked or expires (it renews and resumes: no event lost).
 */
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  AgentClient,
  type EventSubscription,
  OperatorClient,
  providerOnboarding,
  type SdkClock,
  type SdkError,
  siweOnboarding,
  systemClock,
} from '../../sdk/src/index.js';
import { EdrChain } from '../adapters/live/support/edr-chain.js';
import { until } from '../support/events-harness.js';
import { deployRegistry, registerIdentity, serveRpc } from '../support/erc721-registry.js';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { bearer, rawRpc } from '../support/mcp-fixtures.js';
import { TestIdentityProvider } from '../support/oidc-provider.js';
import { PUBLIC_URL, startTestService, type TestService } from '../support/test-service.js';
import { collectEvents } from './sdk-fakes.js';

const CHAIN = 31337;
const ONBOARD = '/api/public/erc8004/onboarding';
const caught = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.fail('expected an SdkError'),
    (error: SdkError) => error,
  );

const clock = new ManualClock(Date.now());
/** The SDK reads the service's driven time (token expiry, renewal) and sleeps for real (reconnect backoff). */
const sdkClock: SdkClock = { now: () => clock.now(), sleep: systemClock.sleep };

let svc: TestService;
let provider: TestIdentityProvider;
let rpc: Awaited<ReturnType<typeof serveRpc>>;
let registry: `0x${string}`;
const owner = privateKeyToAccount(generatePrivateKey());
/** Owner of ERC-8004 identity 7 on the EDR registry (8 belongs to another key). */
let siwaOwner: ReturnType<typeof privateKeyToAccount>;
const subscriptions: EventSubscription[] = [];

beforeAll(async () => {
  const ownerKey = generatePrivateKey();
  const registrant = privateKeyToAccount(ownerKey);
  const strangerKey = generatePrivateKey();
  const edr = await EdrChain.start({
    chainId: CHAIN,
    funded: [registrant.address, privateKeyToAccount(strangerKey).address].map((address) => ({ address, wei: 10n ** 20n })),
  });
  registry = await deployRegistry(edr, ownerKey);
  await registerIdentity(edr, registry, ownerKey, 7n);
  await registerIdentity(edr, registry, strangerKey, 8n);
  siwaOwner = registrant;
  rpc = await serveRpc(edr);
  provider = await TestIdentityProvider.start();
  svc = await startTestService({
    clock,
    env: {
      ERC8004_RPC_URLS: `${CHAIN}=${rpc.url}`,
      IDENTITY_PROVIDERS: JSON.stringify({ testidp: { issuer: provider.issuer, audience: provider.audience, jwksUrl: provider.jwksUrl } }),
      IDENTITY_JWKS_COOLDOWN_MS: '0',
    },
  });
}, 60_000);

afterEach(() => {
  for (const subscription of subscriptions.splice(0)) subscription.close();
});
afterAll(async () => {
  await svc?.stop();
  await provider?.close();
  await new Promise<void>((resolve) => (rpc ? rpc.server.close(() => resolve()) : resolve()));
});

/** A fetch recording each request's path and bearer on the way to the service. */
function recordingFetch() {
  const seen: Array<{ path: string; authorization?: string }> = [];
  const fetchImpl: typeof fetch = (input, init = {}) => {
    seen.push({
      path: new URL(String(input)).pathname,
      authorization: (init.headers as Record<string, string> | undefined)?.authorization,
    });
    return fetch(input, init);
  };
  return { fetch: fetchImpl, seen };
}

const listWith = (publicId: string, token: string) =>
  rawRpc(svc.url, publicId, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, bearer(token));

/** Collects a subscription's events in the background, closed after the test. */
function collect(subscription: EventSubscription) {
  subscriptions.push(subscription);
  return collectEvents(subscription);
}

describe('SDK onboarding (e2e)', () => {
  it('SIWE with a viem account: an identity token, the tools its scope allows, a read tool called', async () => {
    const agent = new AgentClient({
      baseUrl: svc.url,
      clock: sdkClock,
      identity: siweOnboarding({ signer: owner, scope: 'read', publicUrl: PUBLIC_URL }),
    });
    const tools = (await agent.listTools()).map((tool) => tool.name);
    expect(tools).toContain('trading_portfolio_summary');
    expect(tools).not.toContain('trading_solana_aggregator_swap');
    expect(agent.identityToken!.identity).toEqual({
      agentId: expect.stringMatching(/^agt_[A-Za-z0-9_-]{27}$/),
      publicId: expect.stringMatching(/^pub_/),
      accessToken: expect.any(String),
      tokenType: 'Bearer',
      expiresIn: 3600,
      scope: 'read',
      jti: expect.stringMatching(/^jti_/),
      verified: false,
    });
    expect(await agent.publicId()).toBe(agent.identityToken!.identity!.publicId);
    const summary = await agent.callTool('trading_portfolio_summary', {});
    expect(summary).toBeTypeOf('object');
    // A read token calling a trade tool: the same refusal as a read key.
    const scoped = await caught(agent.callTool('trading_solana_aggregator_swap', { inputMint: 'USDC', outputMint: 'SOL', amount: '1' }));
    expect(scoped).toMatchObject({ code: 'policy_error', status: 403, message: 'Scope insufficient: required trade, got read' });
  });

  it('renews a trade token (300 s) at 240 s on the driven clock; the service takes the new one, the old one lives until its exp', async () => {
    const { fetch, seen } = recordingFetch();
    const agent = new AgentClient({
      baseUrl: svc.url,
      clock: sdkClock,
      fetch,
      identity: siweOnboarding({ signer: privateKeyToAccount(generatePrivateKey()), scope: 'trade', publicUrl: PUBLIC_URL }),
    });
    await agent.callTool('trading_portfolio_summary', {});
    const credential = agent.identityToken!;
    const first = credential.identity!;
    expect(first.expiresIn).toBe(300);
    // The agent's REST routes take its identity token as they take its key (no custodial wallet yet).
    expect(await agent.walletBalance()).toEqual({ wallets: [] });
    const onboardings = () => seen.filter((r) => r.path === `${ONBOARD}/siwe`).length;

    await clock.advance(239_000);
    await agent.callTool('trading_portfolio_summary', {});
    expect(onboardings()).toBe(1);
    expect(seen.at(-1)!.authorization).toBe(`Bearer ${first.accessToken}`);

    await clock.advance(1_000); // 240 s: 60 s before exp, the SDK onboards again before the call
    await agent.callTool('trading_portfolio_summary', {});
    expect(onboardings()).toBe(2);
    const second = credential.identity!;
    expect(second.jti).not.toBe(first.jti);
    expect(second.publicId).toBe(first.publicId);
    expect(seen.at(-1)).toEqual({ path: `/mcp/${first.publicId}`, authorization: `Bearer ${second.accessToken}` });
    // Both are valid until the old one's exp; then only the new one.
    expect((await listWith(first.publicId, first.accessToken)).status).toBe(200);
    await clock.advance(60_000);
    const expired = await listWith(first.publicId, first.accessToken);
    expect(expired.status).toBe(401);
    expect(JSON.stringify(expired.body)).toContain('Identity token validation failed');
    expect((await listWith(first.publicId, second.accessToken)).status).toBe(200);
    await expect(agent.callTool('trading_portfolio_summary', {})).resolves.toBeDefined();
    expect(onboardings()).toBe(2);
  });

  it("SIWA on EDR: the registry says the signer owns identity 7 → a verified token; identity 8 (someone else's) → provider_auth_error", async () => {
    const identity = { agentId: 7n, registry: `eip155:${CHAIN}:${registry}` };
    const agent = new AgentClient({
      baseUrl: svc.url,
      clock: sdkClock,
      identity: siweOnboarding({ signer: siwaOwner, scope: 'read', publicUrl: PUBLIC_URL, erc8004: identity }),
    });
    await agent.listTools();
    expect(agent.identityToken!.identity).toMatchObject({ agentId: expect.stringMatching(/^agt_/), verified: true });
    expect(rpc.calls).toContain('eth_call');

    const { fetch, seen } = recordingFetch();
    const notOwner = new AgentClient({
      baseUrl: svc.url,
      clock: sdkClock,
      fetch,
      identity: siweOnboarding({ signer: siwaOwner, scope: 'read', publicUrl: PUBLIC_URL, erc8004: { ...identity, agentId: 8n } }),
    });
    const refused = await caught(notOwner.listTools());
    expect(refused).toMatchObject({ code: 'provider_auth_error', status: 401, message: 'Unauthorized' });
    // Refused onboarding is not retried, and no MCP call was made.
    expect(seen.map((r) => r.path)).toEqual(['/api/nest/auth/evm/nonce', `${ONBOARD}/siwe`]);
    expect(() =>
      siweOnboarding({ signer: siwaOwner, scope: 'read', publicUrl: PUBLIC_URL, erc8004: { agentId: 7n, registry: `eip155:${registry}` } }),
    ).toThrow('Agent Registry must be eip155:<chainId>:<0x address>');
  });

  it('provider tokens: accepted from the local provider; a foreign signer, a wrong audience and an unknown provider are provider_auth_error', async () => {
    const ok = new AgentClient({
      baseUrl: svc.url,
      clock: sdkClock,
      identity: providerOnboarding({ provider: 'testidp', providerToken: () => provider.token('sdk-agent'), scope: 'read' }),
    });
    expect((await ok.listTools()).length).toBeGreaterThan(0);
    expect(ok.identityToken!.identity).toMatchObject({ agentId: expect.stringMatching(/^agt_/), verified: false, scope: 'read' });

    const foreign = await TestIdentityProvider.start();
    try {
      // The same issuer and audience, signed with a key the configured provider never published.
      const forged = await foreign.token('sdk-agent', { issuer: provider.issuer });
      const cases = [
        {
          provider: 'testidp',
          providerToken: forged,
          message: 'Identity provider token validation failed',
          serverCode: 'PROVIDER_AUTH_FAILED',
        },
        {
          provider: 'testidp',
          providerToken: await provider.token('sdk-agent', { audience: 'someone-else' }),
          message: 'Identity provider token validation failed',
          serverCode: 'PROVIDER_AUTH_FAILED',
        },
        {
          provider: 'nope',
          providerToken: await provider.token('sdk-agent'),
          message: 'Unknown identity provider: nope',
          serverCode: 'AUTHENTICATION_FAILED',
        },
      ];
      for (const { message, serverCode, ...onboarding } of cases) {
        const { fetch, seen } = recordingFetch();
        const agent = new AgentClient({
          baseUrl: svc.url,
          clock: sdkClock,
          fetch,
          identity: providerOnboarding({ ...onboarding, scope: 'read' }),
        });
        const error = await caught(agent.listTools());
        expect(error).toMatchObject({ code: 'provider_auth_error', status: 401, message, serverCode });
        expect(seen.map((r) => r.path)).toEqual([`${ONBOARD}/identity`]);
      }
    } finally {
      await foreign.close();
    }
  });

  it('a revoked token ends its event stream: the SDK renews on the 401 and resumes after the last event (none lost, none twice)', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const agent = new AgentClient({
      baseUrl: svc.url,
      clock: sdkClock,
      identity: siweOnboarding({ signer: wallet, scope: 'read', publicUrl: PUBLIC_URL }),
    });
    await agent.listTools();
    const { agentId } = agent.identityToken!.identity!;
    // The owner is the same wallet signed in as an operator: its pause/resume are the agent's events.
    const operator = new OperatorClient({ baseUrl: svc.url, publicUrl: PUBLIC_URL, clock: sdkClock });
    await operator.signInWithEthereum(wallet);
    const reconnects: string[] = [];
    const subscription = agent.subscribe({
      lastEventId: 0,
      reconnect: { baseDelayMs: 20, maxDelayMs: 50 },
      onReconnect: ({ error }) => reconnects.push((error as SdkError).message),
    });
    const { events, state } = collect(subscription);
    await until(() => subscription.connections === 1, 'the stream to open');
    await operator.agents.pause(agentId);
    await until(() => events.some((e) => e.data.state === 'paused'), 'the pause event');

    const held = agent.identityToken!.identity!;
    const revoked = await fetch(`${svc.url}${ONBOARD}/tokens/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: held.accessToken }),
    });
    expect(revoked.status).toBe(200);
    await until(() => subscription.connections === 2, 'the stream to reopen with a new token');
    expect(reconnects).toEqual(['The event stream ended']);
    expect(agent.identityToken!.identity!.jti).not.toBe(held.jti);
    expect(agent.identityToken!.renewals).toBe(2);
    await operator.agents.resume(agentId);
    await until(
      () => events.some((e) => e.data.state === 'active' && e.id > events.find((p) => p.data.state === 'paused')!.id),
      'the resume event',
    );
    const ids = events.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(state.ended).toBe(false);

    // The SDK's own revoke: the token is refused at once, the next call onboards again.
    const mine = agent.identityToken!.identity!;
    await expect(agent.identityToken!.revoke()).resolves.toMatchObject({ jti: mine.jti, revoked: true });
    expect((await listWith(mine.publicId, mine.accessToken)).status).toBe(401);
    await agent.listTools();
    expect(agent.identityToken!.renewals).toBe(3);
  });

  it('an expired token ends its event stream at exp: the SDK reconnects with a renewed token and resumes', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const agent = new AgentClient({
      baseUrl: svc.url,
      clock: sdkClock,
      identity: siweOnboarding({ signer: wallet, scope: 'trade', publicUrl: PUBLIC_URL }),
    });
    await agent.listTools();
    const { agentId, jti } = agent.identityToken!.identity!;
    const operator = new OperatorClient({ baseUrl: svc.url, publicUrl: PUBLIC_URL, clock: sdkClock });
    await operator.signInWithEthereum(wallet);
    const subscription = agent.subscribe({ lastEventId: 0, reconnect: { baseDelayMs: 20, maxDelayMs: 50 } });
    const { events, state } = collect(subscription);
    await until(() => subscription.connections === 1, 'the stream to open');

    // No call in between: the stream's token reaches exp and the service ends the stream.
    await clock.advance(300_000);
    await until(() => subscription.connections === 2, 'the stream to reopen');
    expect(agent.identityToken!.identity!.jti).not.toBe(jti);
    await operator.agents.pause(agentId);
    await until(() => events.some((e) => e.data.state === 'paused'), 'an event after the expiry');
    expect(state.ended).toBe(false);
  });
});
