/**
 * Ownership follows the NFT, from outside: an agent verified by SIWA on a registry deployed on
 * an in-process EVM (EDR) loses `verified` once its identity is transferred on chain, at its
 * next onboarding (a token issue) or by the ownership due job; its card leaves the discovery
 * feed, its identity tokens are refused as revoked, and its event stream says why. A registry
 * that cannot answer (an RPC returning `0x`, a registry no longer configured) unverifies nobody,
 * and a stored record the sweep cannot read leaves the sweep instead of stopping it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_IDENTITIES, IDENTITY_INDEX } from '../../src/identity/onboarding/agent-identity.records.js';
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
  for (const id of [7n, 9n, 11n, 13n, 15n, 17n]) await registerIdentity(edr, registry, owner.privateKey, id);
  rpc = await serveRpc(edr);
  svc = await startTestService({
    clock,
    // The `0x` sweeps fail every due agent: the breaker must not stay open for the tests after them.
    env: {
      ERC8004_RPC_URLS: `${CHAIN}=${rpc.url}`,
      ERC8004_OWNER_CHECK_MS: String(CHECK_MS),
      IDENTITY_JWKS_TIMEOUT_MS: '5000',
      CIRCUIT_BREAKER_THRESHOLD: '1000',
    },
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

/** The service's log lines with this message (and agent, when given). */
function logged(msg: string, agent?: string): Array<Record<string, unknown>> {
  return svc.logs
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === msg && (agent === undefined || line.agent === agent));
}

/** What a client sees of an agent that is still verified: its token works, its card is in the feed. */
async function expectStillVerified(agent: Awaited<ReturnType<typeof verifiedAgent>>) {
  expect((await tools(agent.publicId, agent.accessToken)).status).toBe(200);
  expect(await feedIds()).toContain(agent.publicId);
  expect((await anon.get(`/api/public/erc8004/agents/${agent.publicId}`)).body).toMatchObject({ verified: true });
}

describe('the ownership sweep when the registry cannot answer', () => {
  it('stored records it cannot read leave the sweep once, and the next agent is still checked', async () => {
    const store = svc.service.adapters.store;
    const registryRef = `eip155:${CHAIN}:${registry}`;
    const bad = {
      'malformed-id': { erc8004: { agentId: 'seven', registry: registryRef }, wallet: owner.address },
      'malformed-wallet': { erc8004: { agentId: '7', registry: registryRef } },
      ...Object.fromEntries(
        [1, 2, 3, 4, 5, 6].map((n) => [
          `malformed-registry-${n}`,
          { erc8004: { agentId: '7', registry: `eip155:${CHAIN}:0xnot-an-address-${n}` }, wallet: owner.address },
        ]),
      ),
    };
    // Due before every real agent, so the sweep meets them first.
    for (const [id, data] of Object.entries(bad))
      await store.put(AGENT_IDENTITIES, id, {
        data: { method: 'siwa', verified: true, updatedAt: clock.now(), ...data },
        expectedVersion: 0,
        indexes: { [IDENTITY_INDEX.ownerCheckAt]: clock.now() - 1_000 },
      });
    const moved = await verifiedAgent(13n);
    await transferIdentity(edr, registry, owner.privateKey, 13n, buyer.address);
    await clock.advance(2 * CHECK_MS + 1_000);
    await until(() => moved.sse.events().some((e) => e.event === 'agent.identity.unverified'), 'the ownership sweep', 10_000);
    await expectUnverified(moved);
    const dropped = 'stored agent identity cannot be checked for ERC-8004 ownership: taken out of the ownership sweep';
    await until(() => Object.keys(bad).every((id) => logged(dropped, id).length > 0), 'every malformed record logged');
    const due = await store.find(AGENT_IDENTITIES, { index: IDENTITY_INDEX.ownerCheckAt, lte: Number.MAX_SAFE_INTEGER }, { limit: 100 });
    expect(due.items.map((doc) => doc.id).filter((id) => id in bad)).toEqual([]);
    for (const id of Object.keys(bad)) expect(logged(dropped, id)).toHaveLength(1);
  });

  it('an RPC answering `0x` (no contract there) is a failure: the agent stays verified, its token valid', async () => {
    const agent = await verifiedAgent(15n);
    rpc.emptyCalls = true;
    try {
      await clock.advance(2 * CHECK_MS + 1_000);
      await until(() => logged('ERC-8004 ownership check failed', agent.agentId).length > 0, 'the failed check', 10_000);
    } finally {
      rpc.emptyCalls = false;
    }
    await expectStillVerified(agent);
    expect(agent.sse.events().some((e) => e.event === 'agent.identity.unverified')).toBe(false);
  });

  it('a registry no longer configured is not asked: its agents stay verified, their tokens valid', async () => {
    const agent = await verifiedAgent(17n);
    for (const stream of streams.splice(0)) stream.close();
    // The same data, restarted without the chain's RPC URL.
    await svc.service.stop();
    svc = await startTestService({
      clock,
      dataDir: svc.dataDir,
      env: { ERC8004_OWNER_CHECK_MS: String(CHECK_MS), IDENTITY_JWKS_TIMEOUT_MS: '5000' },
    });
    anon = new Client(svc.url);
    await clock.advance(2 * CHECK_MS + 1_000);
    const unserved = 'ERC-8004 registry no longer served (no RPC URL or not allowed): its agents were not checked and stay verified';
    await until(() => logged(unserved).length > 0, 'the sweep', 10_000);
    expect(logged(unserved)[0]).toMatchObject({ registries: [`eip155:${CHAIN}:${registry}`] });
    await expectStillVerified(agent);
  });
});
