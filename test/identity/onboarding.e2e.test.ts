/**
 * ERC-8004 onboarding end to end, over HTTP like a client: SIWE with an EOA, SIWA checked on
 * a registry deployed on an in-process EVM (EDR), an identity provider on a real port, the
 * tokens used on MCP, revoked, and verified by an outside verifier from the JWKS alone.
 */
import { createRemoteJWKSet, decodeJwt, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EdrChain } from '../adapters/live/support/edr-chain.js';
import { deployRegistry, registerIdentity, serveRpc } from '../support/erc721-registry.js';
import { bearer, rawRpc } from '../support/mcp-fixtures.js';
import { TestIdentityProvider } from '../support/oidc-provider.js';
import { Client, evmWallet, PUBLIC_URL, startTestService, type TestService } from '../support/test-service.js';

const ONBOARD = '/api/public/erc8004/onboarding';
const CHAIN = 31337;

let svc: TestService;
let client: Client;
let provider: TestIdentityProvider;
let rpc: Awaited<ReturnType<typeof serveRpc>>;
let registry: `0x${string}`;
const owner = evmWallet();
const stranger = evmWallet();

beforeAll(async () => {
  const edr = await EdrChain.start({ chainId: CHAIN, funded: [owner, stranger].map((w) => ({ address: w.address, wei: 10n ** 20n })) });
  registry = await deployRegistry(edr, owner.privateKey);
  await registerIdentity(edr, registry, owner.privateKey, 7n);
  await registerIdentity(edr, registry, stranger.privateKey, 8n);
  rpc = await serveRpc(edr);
  provider = await TestIdentityProvider.start();
  svc = await startTestService({
    env: {
      ERC8004_RPC_URLS: `${CHAIN}=${rpc.url}`,
      IDENTITY_PROVIDERS: JSON.stringify({ testidp: { issuer: provider.issuer, audience: provider.audience, jwksUrl: provider.jwksUrl } }),
      IDENTITY_JWKS_COOLDOWN_MS: '0',
      IDENTITY_JWKS_TIMEOUT_MS: '300',
    },
  });
  client = new Client(svc.url);
}, 60_000);

afterAll(async () => {
  await svc?.stop();
  await provider?.close();
  await new Promise<void>((resolve) => (rpc ? rpc.server.close(() => resolve()) : resolve()));
});

async function nonce(): Promise<string> {
  const { status, body } = await client.post('/api/nest/auth/evm/nonce', {});
  expect(status).toBe(200);
  return body.nonce;
}

/** The SIWA form: SIWA's header and the two identity lines after `Version`. */
function siwaMessage(wallet: ReturnType<typeof evmWallet>, nonceValue: string, agentId: bigint): string {
  return wallet
    .message(nonceValue, new Date(), { chainId: CHAIN })
    .replace('wants you to sign in with your Ethereum account:', 'wants you to sign in with your Agent account:')
    .replace('\nVersion: 1\n', `\nVersion: 1\nAgent ID: ${agentId}\nAgent Registry: eip155:${CHAIN}:${registry}\n`);
}

async function onboardSiwe(wallet = owner, scope = 'read', extra: Record<string, unknown> = {}) {
  const message = wallet.message(await nonce());
  return client.post(`${ONBOARD}/siwe`, { message, signature: await wallet.sign(message), scope, ...extra });
}

/** Onboarded agents' ids: unique in the service, made from the identity. */
const ONBOARDED_ID = /^agt_[A-Za-z0-9_-]{27}$/;

const rpcCall = (id: number, method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method, params });

describe('ERC-8004 onboarding over HTTP', () => {
  it('SIWE with an EOA: 201 with the token, the same wallet again → the same agent (200); a replayed nonce is refused', async () => {
    const registration = {
      type: 'https://eips.ethereum.org/EIPS/eip-8004#registration-v1',
      name: 'Alpha bot',
      description: 'trades',
      services: [],
      active: true,
    };
    const first = await onboardSiwe(owner, 'read', { registration });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      agentId: expect.stringMatching(ONBOARDED_ID),
      publicId: expect.stringMatching(/^pub_/),
      accessToken: expect.any(String),
      tokenType: 'Bearer',
      expiresIn: 3600,
      scope: 'read',
      jti: expect.any(String),
      verified: false,
    });
    const verify = await client.post('/api/nest/auth/verify', undefined, { authorization: `Bearer ${first.body.accessToken}` });
    expect(verify.body).toEqual({
      valid: true,
      principal: { type: 'identity-token', jti: first.body.jti, scope: 'read', agentId: first.body.agentId, expiresAt: expect.any(String) },
    });
    const claims = decodeJwt(first.body.accessToken);
    expect(claims).toMatchObject({
      iss: PUBLIC_URL,
      sub: first.body.agentId,
      aud: `${PUBLIC_URL}/mcp`,
      scope: 'read',
      publicId: first.body.publicId,
      jti: first.body.jti,
    });

    const message = owner.message(await nonce());
    const signature = await owner.sign(message);
    const again = await client.post(`${ONBOARD}/siwe`, { message, signature, scope: 'trade' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ agentId: first.body.agentId, publicId: first.body.publicId, expiresIn: 300, scope: 'trade' });
    const replay = await client.post(`${ONBOARD}/siwe`, { message, signature, scope: 'read' });
    expect(replay.status).toBe(401);
    expect(replay.body.message).toBe('Nonce already consumed');
  });

  it('scope manage → 403 Requested scope not available; a bad body → 400; a wrong domain → 401', async () => {
    const manage = await onboardSiwe(owner, 'manage');
    expect(manage.status).toBe(403);
    expect(manage.body).toMatchObject({ statusCode: 403, message: 'Requested scope not available' });
    const bad = await client.post(`${ONBOARD}/siwe`, { message: 'hello', signature: '0x00', scope: 'read' });
    expect(bad.status).toBe(400);
    const message = owner.message(await nonce(), new Date(), { domain: 'evil.test' });
    const wrongDomain = await client.post(`${ONBOARD}/siwe`, { message, signature: await owner.sign(message), scope: 'read' });
    expect(wrongDomain.status).toBe(401);
  });

  it('SIWA: ownerOf on the EDR registry says the signer owns the identity → verified; a signer who does not → 401, nonce kept', async () => {
    const calls = rpc.calls.length;
    const message = siwaMessage(owner, await nonce(), 7n);
    const verified = await client.post(`${ONBOARD}/siwe`, { message, signature: await owner.sign(message), scope: 'read' });
    expect(verified.status).toBe(201);
    expect(verified.body).toMatchObject({ agentId: expect.stringMatching(ONBOARDED_ID), verified: true });
    expect(rpc.calls.slice(calls)).toContain('eth_call');

    const n = await nonce();
    const notOwner = siwaMessage(owner, n, 8n);
    const refused = await client.post(`${ONBOARD}/siwe`, { message: notOwner, signature: await owner.sign(notOwner), scope: 'read' });
    expect(refused.status).toBe(401);
    expect(refused.body.message).toBe('Unauthorized');
    // The nonce was not spent by the refusal: the same nonce still onboards a real claim.
    const retry = siwaMessage(owner, n, 7n);
    const ok = await client.post(`${ONBOARD}/siwe`, { message: retry, signature: await owner.sign(retry), scope: 'read' });
    expect(ok.status).toBe(200);
    expect(ok.body.publicId).toBe(verified.body.publicId);
  });

  it('provider tokens: verified on the provider JWKS, key rotation at the provider, unknown provider, wrong audience, slow JWKS', async () => {
    const first = await client.post(`${ONBOARD}/identity`, {
      provider: 'testidp',
      providerToken: await provider.token('agent-42'),
      scope: 'read',
    });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ agentId: expect.stringMatching(ONBOARDED_ID), verified: false, scope: 'read' });
    const fetches = provider.jwksFetches;
    // The provider rotates: a token with a kid the service has not seen makes it fetch the JWKS again.
    await provider.rotate();
    const rotated = await client.post(`${ONBOARD}/identity`, {
      provider: 'testidp',
      providerToken: await provider.token('agent-42'),
      scope: 'trade',
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ agentId: first.body.agentId, publicId: first.body.publicId });
    expect(provider.jwksFetches).toBeGreaterThan(fetches);

    const unknown = await client.post(`${ONBOARD}/identity`, { provider: 'nope', providerToken: await provider.token('x'), scope: 'read' });
    expect(unknown.status).toBe(401);
    expect(unknown.body.message).toBe('Unknown identity provider: nope');
    const wrongAudience = await client.post(`${ONBOARD}/identity`, {
      provider: 'testidp',
      providerToken: await provider.token('x', { audience: 'someone-else' }),
      scope: 'read',
    });
    expect(wrongAudience.status).toBe(401);
    const expired = await client.post(`${ONBOARD}/identity`, {
      provider: 'testidp',
      providerToken: await provider.token('x', { expiresAt: Math.floor(Date.now() / 1000) - 60 }),
      scope: 'read',
    });
    expect(expired.status).toBe(401);
    const manage = await client.post(`${ONBOARD}/identity`, {
      provider: 'testidp',
      providerToken: await provider.token('x'),
      scope: 'manage',
    });
    expect(manage.status).toBe(403);

    await provider.rotate();
    provider.delayMs = 1_000;
    try {
      const slow = await client.post(`${ONBOARD}/identity`, {
        provider: 'testidp',
        providerToken: await provider.token('agent-43'),
        scope: 'read',
      });
      expect(slow.status).toBe(503);
    } finally {
      provider.delayMs = 0;
    }
  });

  it('MCP with identity tokens: tools/list by scope, a read tool called, trade tools hidden from read; another agent is 404', async () => {
    const read = await onboardSiwe(owner, 'read');
    const trade = await onboardSiwe(owner, 'trade');
    const tools = async (token: string) =>
      (await rawRpc(svc.url, read.body.publicId, rpcCall(1, 'tools/list'), bearer(token))).body.result.tools.map(
        (t: { name: string }) => t.name,
      ) as string[];
    const readTools = await tools(read.body.accessToken);
    const tradeTools = await tools(trade.body.accessToken);
    expect(readTools).toContain('trading_portfolio_summary');
    expect(readTools).not.toContain('trading_solana_aggregator_swap');
    expect(tradeTools).toContain('trading_solana_aggregator_swap');
    expect(tradeTools.length).toBeGreaterThan(readTools.length);
    const called = await rawRpc(
      svc.url,
      read.body.publicId,
      rpcCall(2, 'tools/call', { name: 'trading_portfolio_summary', arguments: {} }),
      bearer(read.body.accessToken),
    );
    expect(called.status).toBe(200);
    expect(called.body.result.isError).toBe(false);
    const hidden = await rawRpc(
      svc.url,
      read.body.publicId,
      rpcCall(3, 'tools/call', {
        name: 'trading_solana_aggregator_swap',
        arguments: { inputMint: 'SOL', outputMint: 'USDC', amount: '1' },
      }),
      bearer(read.body.accessToken),
    );
    // The same refusal as an API key of that scope (the auth and key errors).
    expect(hidden.body.error).toMatchObject({ code: -32003, message: 'Scope insufficient: required trade, got read' });

    const other = await onboardSiwe(stranger, 'read');
    const foreign = await rawRpc(svc.url, other.body.publicId, rpcCall(4, 'tools/list'), bearer(read.body.accessToken));
    expect(foreign.status).toBe(404);
  });

  it('revoke: the token is refused at once with Token has been revoked; again → 400; revoke-status tells', async () => {
    const issued = await onboardSiwe(owner, 'read');
    const ok = await rawRpc(svc.url, issued.body.publicId, rpcCall(1, 'tools/list'), bearer(issued.body.accessToken));
    expect(ok.status).toBe(200);
    const revoked = await client.post(`${ONBOARD}/tokens/revoke`, { token: issued.body.accessToken });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ jti: issued.body.jti, revoked: true, revokedAt: expect.any(String) });
    const refused = await rawRpc(svc.url, issued.body.publicId, rpcCall(2, 'tools/list'), bearer(issued.body.accessToken));
    expect(refused.status).toBe(401);
    expect(JSON.stringify(refused.body)).toContain('Token has been revoked');
    const again = await client.post(`${ONBOARD}/tokens/revoke`, { token: issued.body.accessToken });
    expect(again.status).toBe(400);
    expect(again.body.message).toBe('Token already revoked');
    expect((await client.post(`${ONBOARD}/tokens/revoke-status`, { jti: issued.body.jti })).body).toEqual(revoked.body);
    const live = await onboardSiwe(owner, 'read');
    expect((await client.post(`${ONBOARD}/tokens/revoke-status`, { token: live.body.accessToken })).body).toEqual({
      jti: live.body.jti,
      revoked: false,
    });
  });

  it('an outside verifier: the JWKS verifies tokens before and after a rotation; a foreign key does not pass the service', async () => {
    // No cooldown: a verifier meeting the new kid refetches at once (jose waits 30 s by default).
    const jwks = createRemoteJWKSet(new URL(`${svc.url}/.well-known/jwks.json`), { cooldownDuration: 0 });
    const options = { issuer: PUBLIC_URL, audience: `${PUBLIC_URL}/mcp` };
    const before = await onboardSiwe(owner, 'read');
    await expect(jwtVerify(before.body.accessToken, jwks, options)).resolves.toBeDefined();
    const rotated = await client.post('/api/nest/ops/identity/signing-keys/rotate', {}, { authorization: `Bearer ${svc.opsToken}` });
    expect(rotated.status).toBe(200);
    expect(rotated.body.keys.map((k: { status: string }) => k.status)).toEqual(['active', 'retired']);
    const after = await onboardSiwe(owner, 'read');
    expect(decodeJwt(after.body.accessToken)).not.toEqual(decodeJwt(before.body.accessToken));
    await expect(jwtVerify(after.body.accessToken, jwks, options)).resolves.toBeDefined();
    await expect(jwtVerify(before.body.accessToken, jwks, options)).resolves.toBeDefined();
    expect((await rawRpc(svc.url, before.body.publicId, rpcCall(1, 'tools/list'), bearer(before.body.accessToken))).status).toBe(200);

    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT({ scope: 'trade', publicId: after.body.publicId })
      .setProtectedHeader({ alg: 'ES256', kid: 'forged-kid' })
      .setIssuer(PUBLIC_URL)
      .setAudience(`${PUBLIC_URL}/mcp`)
      .setSubject(after.body.agentId)
      .setJti(after.body.jti)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
    const refused = await rawRpc(svc.url, after.body.publicId, rpcCall(2, 'tools/list'), bearer(forged));
    expect(refused.status).toBe(401);
    expect(JSON.stringify(refused.body)).toContain('Identity token validation failed');
    expect(privateKeyToAccount(owner.privateKey).address).toBe(owner.address);
  });
});

describe('agentctl keys', () => {
  it('lists and rotates the signing keys of a running service', async () => {
    const { runCli } = await import('../../src/cli/agentctl.js');
    const run = async (...argv: string[]) => {
      const out: string[] = [];
      const code = await runCli(
        argv,
        { AGENTCTL_URL: svc.url, OPS_TOKEN: svc.opsToken },
        { out: (t) => out.push(t), err: (t) => out.push(t) },
      );
      return { code, out: out.join('\n') };
    };
    const before = await run('keys', 'list', '--json');
    expect(before.code).toBe(0);
    const activeBefore = (JSON.parse(before.out) as { keys: Array<{ kid: string; status: string }> }).keys.find(
      (k) => k.status === 'active',
    )!.kid;
    const rotated = await run('keys', 'rotate');
    expect(rotated.code).toBe(0);
    expect(rotated.out).toContain('KID\tSTATUS\tCREATED\tRETIRED\tLEAVES JWKS');
    expect(rotated.out).toMatch(new RegExp(`${activeBefore}\\tretired`));
    const jwks = (await (await fetch(`${svc.url}/.well-known/jwks.json`)).json()) as { keys: Array<{ kid: string }> };
    expect(jwks.keys.map((k) => k.kid)).toContain(activeBefore);
    expect(jwks.keys.length).toBeGreaterThanOrEqual(2);
  });
});

describe('the official MCP SDK client with an identity token', () => {
  it('lists exactly its scope, calls a read tool; a trade token swaps on the paper venue', async () => {
    const { Client: McpClient } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const { randomUUID } = await import('node:crypto');
    const trader = evmWallet();
    const read = await onboardSiwe(trader, 'read');
    const trade = await onboardSiwe(trader, 'trade');
    const connect = async (token: string) => {
      const mcp = new McpClient({ name: 'identity-e2e', version: '1.0.0' });
      await mcp.connect(
        new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp/${read.body.publicId}`), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      );
      return mcp;
    };
    const readClient = await connect(read.body.accessToken);
    const tradeClient = await connect(trade.body.accessToken);
    try {
      const readNames = (await readClient.listTools()).tools.map((t) => t.name);
      // The same list as an API key of that scope would get: the wallet's owner signs in (same user) and makes one.
      const operator = new Client(svc.url);
      await operator.refreshCsrf();
      const { body: challenge } = await operator.post('/api/nest/auth/evm/nonce');
      const message = trader.message(challenge.nonce);
      const login = await operator.post('/api/nest/auth/evm/login', { message, signature: await trader.sign(message) });
      expect(login.status).toBe(200);
      operator.bearer = login.body.accessToken;
      await operator.refreshCsrf();
      const key = await operator.post(`/api/nest/agents/${read.body.agentId}/keys`, { name: 'read-key', scope: 'read' });
      expect(key.status).toBe(201);
      const keyClient = await connect(key.body.secret);
      expect(readNames.sort()).toEqual((await keyClient.listTools()).tools.map((t) => t.name).sort());
      await keyClient.close();

      const summary = await readClient.callTool({ name: 'trading_portfolio_summary', arguments: {} });
      expect(summary.isError).toBe(false);

      // Trading on: the owner switches it on and funds the agent's paper wallet.
      expect((await operator.put(`/api/nest/agents/${read.body.agentId}/trading`, { enabled: true })).status).toBe(200);
      expect(
        (await operator.put(`/api/nest/trading/config/${login.body.user.id}/default-order-profile`, { autoApprove: true })).status,
      ).toBe(200);
      const wallet = await tradeClient.callTool({ name: 'trading_wallet_custodial_ensure', arguments: {} });
      expect(wallet.isError).toBe(false);
      expect(
        (await operator.post(`/api/nest/trading/paper/faucet/${login.body.user.id}`, { chain: 'solana', token: 'USDC', amount: '100' }))
          .status,
      ).toBe(200);
      const swap = await tradeClient.callTool({
        name: 'trading_solana_aggregator_swap',
        arguments: {
          inputMint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
          outputMint: 'So11111111111111111111111111111111111111112',
          amount: '25000000',
          idempotencyKey: randomUUID(),
        },
      });
      expect(swap.structuredContent).toMatchObject({ status: 'filled', channel: 'mcp', amountIn: '25000000' });
      // The audit trail (written in batches) names the principal kind and the jti.
      let logs = await operator.get(`/api/nest/agents/${read.body.agentId}/logs?limit=200`);
      for (
        let i = 0;
        i < 50 && !logs.body.items.some((e: { operation: string }) => e.operation === 'trading_solana_aggregator_swap');
        i++
      ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        logs = await operator.get(`/api/nest/agents/${read.body.agentId}/logs?limit=200`);
      }
      expect(logs.body.items).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            operation: 'trading_solana_aggregator_swap',
            principal: { type: 'identity-token', id: trade.body.jti },
          }),
        ]),
      );
    } finally {
      await readClient.close();
      await tradeClient.close();
    }
  });
});

describe('ERC-8004 discovery documents', () => {
  it('discovery, onboarding (json and md from one source), skills manifest from the catalog, mcp.json, JWKS: public and cacheable', async () => {
    const get = async (path: string) => {
      const response = await fetch(`${svc.url}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toMatch(/public, max-age=\d+/);
      return response;
    };
    const discovery = await (await get('/.well-known/erc8004-discovery.json')).json();
    expect(discovery).toMatchObject({
      jwks_uri: `${PUBLIC_URL}/.well-known/jwks.json`,
      onboarding: { siwe: `${PUBLIC_URL}${ONBOARD}/siwe`, identity: `${PUBLIC_URL}${ONBOARD}/identity` },
      mcp: { endpoint: `${PUBLIC_URL}/mcp/{publicId}` },
      supportedRegistries: { namespace: 'eip155', chainIds: [CHAIN] },
    });
    const onboarding = await (await get('/.well-known/erc8004-onboarding.json')).json();
    expect(onboarding).toMatchObject({
      version: 'erc8004-onboarding-v2',
      scopes: { read: { lifetimeSeconds: 3600 }, trade: { lifetimeSeconds: 300 } },
      providers: ['testidp'],
      manageAtOnboarding: false,
    });
    expect(onboarding.errors).toEqual(
      expect.arrayContaining([
        { status: 403, message: 'Requested scope not available' },
        { status: 400, message: 'Token already revoked' },
      ]),
    );
    const markdown = await (await get('/.well-known/erc8004-onboarding.md')).text();
    expect(markdown).toContain('# ERC-8004 onboarding (erc8004-onboarding-v2)');
    for (const step of onboarding.steps) expect(markdown).toContain(`**${step.step}**`);
    expect(markdown).toContain('`testidp`');
    const manifest = await (await get('/.well-known/erc8004-skills-manifest.json')).json();
    const byName = new Map<string, { minScope: string; family: string; inputSchema: { type: string } }>(
      manifest.tools.map((t: { name: string }) => [t.name, t]),
    );
    expect(byName.get('trading_portfolio_summary')).toMatchObject({ minScope: 'read', inputSchema: { type: 'object' } });
    expect(byName.get('trading_solana_aggregator_swap')).toMatchObject({ minScope: 'trade', family: 'trading' });
    expect(manifest.tools.length).toBe(svc.service.operations.catalog.visibleTo({ kind: 'agent', scope: 'manage' }).length);
    const mcp = await (await get('/.well-known/mcp.json')).json();
    expect(mcp.authentication.credentials.map((c: { type: string }) => c.type)).toContain('identity-access-token');
    expect((await (await get('/.well-known/jwks.json')).json()).keys.length).toBeGreaterThanOrEqual(1);
  });
});
