/**
 * Ownership follows the NFT, from outside: an agent verified by SIWA on a registry deployed on
 * an in-process EVM (EDR) loses `verified` once its identity is transferred on chain, at its
 * next onboarding (a token issue) or by the ownership due job; its card leaves the discovery
 * feed, its identity tokens are refused as revoked, and its event stream says why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EdrChain } from '../adapters/live/support/edr-chain.js';
import { deployRegistry, registerIdentity, serveRpc, transferIdentity } from '../support/erc721-registry.js';
import { openSse, until, type SseStream } from '../support/events-harness.js';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { bearer, rawRpc } from '../support/mcp-fixtures.js';
import { Client, evmWallet, startTestService, type TestService } from '../support/test-service.js';

const ONBOARD = '/api/public/erc8004/onboarding';
const CHAIN = 31337;
const CHECK_MS = 60_000;

const clock = new ManualClock(Date.now());
const owner = evmWallet();
const buyer = evmWallet();
let svc: TestService;
let edr: EdrChain;
let rpc: Awaited<ReturnType<typeof serveRpc>>;
let registry: `0x${string}`;
let anon: Client;
const streams: SseStream[] = [];

beforeAll(async () => {
  edr = await EdrChain.start({ chainId: CHAIN, funded: [owner, buyer].map((w) => ({ address: w.address, wei: 10n ** 20n })) });
  registry = await deployRegistry(edr, owner.privateKey);
  for (const id of [7n, 9n, 11n]) await registerIdentity(edr, registry, owner.privateKey, id);
  rpc = await serveRpc(edr);
  svc = await startTestService({
    clock,
    env: { ERC8004_RPC_URLS: `${CHAIN}=${rpc.url}`, ERC8004_OWNER_CHECK_MS: String(CHECK_MS), IDENTITY_JWKS_TIMEOUT_MS: '5000' },
  });
  anon = new Client(svc.url);
}, 60_000);

afterAll(async () => {
  for (const stream of streams) stream.close();
  await svc?.stop();
  await new Promise<void>((resolve) => (rpc ? rpc.server.close(() => resolve()) : resolve()));
});

/** SIWA: the wallet signs in for ERC-8004 identity `id` on the registry. */
async function onboardSiwa(wallet: ReturnType<typeof evmWallet>, id: bigint, scope = 'read') {
  const { body } = await anon.post('/api/nest/auth/evm/nonce', {});
  const message = wallet
    .message(body.nonce, new Date(clock.now()), { chainId: CHAIN })
    .replace('\nVersion: 1\n', `\nVersion: 1\nAgent ID: ${id}\nAgent Registry: eip155:${CHAIN}:${registry}\n`);
  return anon.post(`${ONBOARD}/siwe`, { message, signature: await wallet.sign(message), scope });
}

/** The wallet's operator session (the user who owns the agents it onboarded). */
async function signIn(wallet: ReturnType<typeof evmWallet>): Promise<Client> {
  const client = new Client(svc.url);
  await client.refreshCsrf();
  const { body } = await client.post('/api/nest/auth/evm/nonce');
  const message = wallet.message(body.nonce, new Date(clock.now()));
  const login = await client.post('/api/nest/auth/evm/login', { message, signature: await wallet.sign(message) });
  expect(login.status).toBe(200);
  client.bearer = login.body.accessToken;
  await client.refreshCsrf();
  return client;
}

const tools = (publicId: string, token: string) =>
  rawRpc(svc.url, publicId, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, bearer(token));

async function feedIds(): Promise<string[]> {
  const feed = await anon.get('/api/public/erc8004/discovery/feed?limit=100');
  expect(feed.status).toBe(200);
  return feed.body.items.map((card: { publicId: string }) => card.publicId);
}

/** An agent verified by SIWA, its card published, and an event stream opened with a key of its owner. */
async function verifiedAgent(id: bigint) {
  const onboarded = await onboardSiwa(owner, id);
  expect(onboarded).toMatchObject({ status: 201, body: { verified: true } });
  const { agentId, publicId, accessToken } = onboarded.body as { agentId: string; publicId: string; accessToken: string };
  const operator = await signIn(owner);
  expect((await operator.post(`/api/nest/agents/${agentId}/card/publish`, {})).status).toBe(200);
  const key = await operator.post(`/api/nest/agents/${agentId}/keys`, { name: 'events', scope: 'read' });
  expect(key.status).toBe(201);
  const sse = await openSse(svc.url, publicId, { secret: key.body.secret });
  expect(sse.status).toBe(200);
  streams.push(sse);
  expect(await feedIds()).toContain(publicId);
  expect((await anon.get(`/api/public/erc8004/agents/${publicId}`)).body).toMatchObject({
    verified: true,
    registrations: [{ agentId: String(id), agentRegistry: `eip155:${CHAIN}:${registry}` }],
  });
  expect((await tools(publicId, accessToken)).status).toBe(200);
  return { agentId, publicId, accessToken, sse };
}

/** What a client sees of an agent whose identity moved to `buyer`. */
async function expectUnverified(agent: Awaited<ReturnType<typeof verifiedAgent>>) {
  const refused = await tools(agent.publicId, agent.accessToken);
  expect(refused.status).toBe(401);
  expect(JSON.stringify(refused.body)).toContain('Token has been revoked');
  expect(await feedIds()).not.toContain(agent.publicId);
  const card = (await anon.get(`/api/public/erc8004/agents/${agent.publicId}`)).body;
  expect(card.verified).toBe(false);
  expect(card.registrations).toBeUndefined();
  await until(() => agent.sse.events().some((e) => e.event === 'agent.identity.unverified'), 'the unverified event');
  expect(agent.sse.events().find((e) => e.event === 'agent.identity.unverified')!.data).toMatchObject({
    type: 'agent.identity.unverified',
    agentId: agent.agentId,
    reason: 'owner_changed',
    owner: buyer.address,
    wallet: owner.address,
  });
}

describe('ERC-8004 ownership follows the NFT', () => {
  it('at the next token issue: the old owner is refused (401) and its agent unverified at once, tokens revoked', async () => {
    const agent = await verifiedAgent(11n);
    await transferIdentity(edr, registry, owner.privateKey, 11n, buyer.address);
    const again = await onboardSiwa(owner, 11n);
    expect(again).toMatchObject({ status: 401, body: { message: 'Unauthorized' } });
    await expectUnverified(agent);
    // The new owner onboards its own agent: another id, verified.
    const bought = await onboardSiwa(buyer, 11n);
    expect(bought).toMatchObject({ status: 201, body: { verified: true } });
    expect(bought.body.agentId).not.toBe(agent.agentId);
    expect(bought.body.publicId).not.toBe(agent.publicId);
  });

  it('by the due job within the check interval: the moved identity’s agent is unverified; one still owned stays verified', async () => {
    const moved = await verifiedAgent(7n);
    const kept = await verifiedAgent(9n);
    await transferIdentity(edr, registry, owner.privateKey, 7n, buyer.address);
    // Nothing checks before the agent's check is due.
    expect((await tools(moved.publicId, moved.accessToken)).status).toBe(200);
    await clock.advance(2 * CHECK_MS + 1_000);
    await until(() => moved.sse.events().some((e) => e.event === 'agent.identity.unverified'), 'the ownership sweep', 10_000);
    await expectUnverified(moved);
    expect((await tools(kept.publicId, kept.accessToken)).status).toBe(200);
    expect(await feedIds()).toContain(kept.publicId);
    expect(kept.sse.events().some((e) => e.event === 'agent.identity.unverified')).toBe(false);
  });
});
