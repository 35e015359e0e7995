/**
 * Agent cards and the public directory from outside, over HTTP: owners edit,
 * publish and revoke; strangers read the directory without a credential.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateCardDrafts } from '../../src/directory/card-drafts.migration.js';
import type { CardsService } from '../../src/directory/cards.service.js';
import { CARD_TERMS, type CardTermRecord, TERM_INDEX } from '../../src/directory/card.records.js';
import { createLogger } from '../../src/observability/logger.js';
import { Operator } from '../support/mcp-fixtures.js';
import { Client, evmWallet, PUBLIC_URL, startTestService, type TestService } from '../support/test-service.js';

const PUBLIC = '/api/public/erc8004';
const REG_TYPE = 'https://eips.ethereum.org/EIPS/eip-8004#registration-v1';

let svc: TestService;
let owner: Operator;
let stranger: Operator;
let anonymous: Client;

beforeAll(async () => {
  svc = await startTestService();
  owner = await Operator.signIn(svc);
  stranger = await Operator.signIn(svc);
  anonymous = new Client(svc.url);
}, 60_000);

afterAll(async () => {
  await svc?.stop();
});

const cardPath = (agentId: string) => `/api/nest/agents/${agentId}/card`;

async function publishedAgent(name: string, description: string, snapshot = false) {
  const agent = await owner.agent(name);
  const put = await owner.client.put(cardPath(agent.agentId), {
    name,
    description,
    services: [{ name: 'web', endpoint: 'https://example.org' }],
  });
  expect(put.status).toBe(200);
  const published = await owner.client.post(`${cardPath(agent.agentId)}/publish`, { snapshot });
  expect(published.status).toBe(200);
  expect(published.body.status).toBe('published');
  return agent;
}

/** Every published card of the directory page matching `q` (all pages). */
async function search(q?: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const query = new URLSearchParams({ limit: '2', ...(q ? { q } : {}), ...(cursor ? { cursor } : {}) });
    const page = await anonymous.get(`${PUBLIC}/agents/page?${query}`);
    expect(page.status).toBe(200);
    ids.push(...page.body.items.map((card: { publicId: string }) => card.publicId));
    cursor = page.body.nextCursor;
  } while (cursor);
  return ids;
}

/** The search index entries of a card, as stored. */
async function indexEntriesOf(cardId: string): Promise<number> {
  const { items } = await svc.service.adapters.store.find<CardTermRecord>(
    CARD_TERMS,
    { index: TERM_INDEX, gte: '', lte: '\uffff' },
    { limit: 10_000 },
  );
  return items.filter((doc) => doc.data.card === cardId).length;
}

describe('agent cards and the public directory', () => {
  it('a new agent has a draft card with its name and its MCP endpoint; it is not public until published', async () => {
    const agent = await owner.agent('Drafty');
    const card = await owner.client.get(cardPath(agent.agentId));
    expect(card.status).toBe(200);
    expect(card.body).toMatchObject({
      type: REG_TYPE,
      name: 'Drafty',
      description: '',
      services: [{ name: 'MCP', endpoint: `${PUBLIC_URL}/mcp/${agent.publicId}` }],
      active: true,
      publicId: agent.publicId,
      verified: false,
      status: 'draft',
      snapshot: false,
      unpublishedChanges: false,
    });
    const pub = await anonymous.get(`${PUBLIC}/agents/${agent.publicId}`);
    expect(pub.status).toBe(404);
    expect(pub.body.message).toBe('Agent not found');
  });

  it('a published card is on the page and found by words of its name (prefix) and description; revoke removes it and changes the ETag', async () => {
    const agent = await publishedAgent('Arbitrage Falcon', 'Hunts spreads between Solana pools');
    const other = await publishedAgent('Quiet Heron', 'Holds USDC');

    const page = await anonymous.get(`${PUBLIC}/agents/page`);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('public, max-age=30');
    const etag = page.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    // Newest first.
    expect(page.body.items.slice(0, 2).map((c: { publicId: string }) => c.publicId)).toEqual([other.publicId, agent.publicId]);
    const card = page.body.items[1];
    expect(card).toEqual({
      type: REG_TYPE,
      name: 'Arbitrage Falcon',
      description: 'Hunts spreads between Solana pools',
      services: [
        { name: 'MCP', endpoint: `${PUBLIC_URL}/mcp/${agent.publicId}`, version: expect.any(String) },
        { name: 'web', endpoint: 'https://example.org' },
      ],
      active: true,
      publicId: agent.publicId,
      verified: false,
      updatedAt: expect.any(String),
    });
    // The client holds it already: 304, no body.
    const again = await anonymous.get(`${PUBLIC}/agents/page`, { 'if-none-match': etag! });
    expect(again.status).toBe(304);

    expect(await search('arb')).toEqual([agent.publicId]);
    expect(await search('SOLANA spreads')).toEqual([agent.publicId]);
    expect(await search('falcon heron')).toEqual([]);
    expect(await search('usdc')).toEqual([other.publicId]);
    expect(await search('spread')).toEqual([]); // description words match whole

    const one = await anonymous.get(`${PUBLIC}/agents/${agent.publicId}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(card);

    const revoked = await owner.client.post(`${cardPath(agent.agentId)}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.status).toBe('revoked');
    expect((await anonymous.get(`${PUBLIC}/agents/${agent.publicId}`)).status).toBe(404);
    expect(await search('arb')).toEqual([]);
    const after = await anonymous.get(`${PUBLIC}/agents/page`, { 'if-none-match': etag! });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(etag);
    expect(after.body.items.map((c: { publicId: string }) => c.publicId)).not.toContain(agent.publicId);
    // Revoking again changes nothing.
    expect((await owner.client.post(`${cardPath(agent.agentId)}/revoke`)).body.status).toBe('revoked');
  });

  it('several words: every card holding them all, newest first, across pages', async () => {
    const made = [];
    for (const [name, description] of [
      ['Gamma one', 'delta epsilon'],
      ['Gamma two', 'epsilon only'],
      ['Gamma three', 'delta and epsilon'],
      ['Other', 'delta epsilon'],
      ['Gamma four', 'epsilon delta'],
    ]) {
      made.push(await publishedAgent(name!, description!));
    }
    const [one, , three, , four] = made;
    expect(await search('gam epsilon delta')).toEqual([four!.publicId, three!.publicId, one!.publicId]);
    expect(await search('delta gamma')).toEqual([four!.publicId, three!.publicId, one!.publicId]);
    expect(
      (await anonymous.get(`${PUBLIC}/agents/page?q=delta+gamma&cursor=${Buffer.from('{"k":"x"}').toString('base64url')}`)).status,
    ).toBe(400);
  });

  it('edits show once published again', async () => {
    const agent = await publishedAgent('Editor Bird', 'first words');
    await owner.client.put(cardPath(agent.agentId), { name: 'Editor Bird', description: 'second words' });
    const draft = await owner.client.get(cardPath(agent.agentId));
    expect(draft.body).toMatchObject({ description: 'second words', status: 'published', unpublishedChanges: true });
    expect((await anonymous.get(`${PUBLIC}/agents/${agent.publicId}`)).body.description).toBe('first words');
    expect(await search('second')).toEqual([]);
    await owner.client.post(`${cardPath(agent.agentId)}/publish`, {});
    expect((await anonymous.get(`${PUBLIC}/agents/${agent.publicId}`)).body.description).toBe('second words');
    expect(await search('second')).toEqual([agent.publicId]);
    expect(await search('first')).toEqual([]);
  });

  it('the snapshot only when published with snapshot: true, and only the snapshot fields', async () => {
    const hidden = await publishedAgent('No Snapshot', 'private');
    const denied = await anonymous.get(`${PUBLIC}/agents/${hidden.publicId}/snapshot`);
    expect(denied.status).toBe(404);
    expect(denied.body.message).toBe('Agent not found');

    const shown = await publishedAgent('Open Book', 'public', true);
    await owner.client.put(`/api/nest/agents/${shown.agentId}/trading`, { enabled: true });
    await owner.client.post(
      `/api/nest/trading/wallets/custodial/${owner.userId}?agentId=${shown.agentId}`,
      { chain: 'solana' },
      { 'x-idempotency-key': crypto.randomUUID() },
    );
    const faucet = await owner.client.post(`/api/nest/trading/paper/faucet/${owner.userId}`, {
      chain: 'solana',
      token: 'USDC',
      amount: '1234.56',
      agentId: shown.agentId,
    });
    expect(faucet.status).toBe(200);
    const snap = await anonymous.get(`${PUBLIC}/agents/${shown.publicId}/snapshot`);
    expect(snap.status).toBe(200);
    expect(snap.headers.get('cache-control')).toBe('public, max-age=30');
    expect(Object.keys(snap.body).sort()).toEqual(['asOf', 'openOrders', 'pnlPct24h', 'positions', 'publicId', 'valueUsd']);
    expect(snap.body.publicId).toBe(shown.publicId);
    expect(snap.body.openOrders).toBe(0);
    // Three significant digits: the exact balance would point at the wallet.
    expect(snap.body.positions).toEqual([{ symbol: 'USDC', valueUsd: expect.stringMatching(/^12[0-9]0\.00$/), share: 1 }]);
    expect(snap.body.valueUsd).toBe(snap.body.positions[0].valueUsd);
    expect(JSON.stringify(snap.body)).not.toMatch(/1234\.56|wallet|address|order_id/i);

    // Nothing changed: the same body and ETag (asOf is when the figures were first seen), so revalidation hits.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const etag = snap.headers.get('etag');
    const reread = await anonymous.get(`${PUBLIC}/agents/${shown.publicId}/snapshot`);
    expect(reread.headers.get('etag')).toBe(etag);
    expect(reread.body.asOf).toBe(snap.body.asOf);
    expect((await anonymous.get(`${PUBLIC}/agents/${shown.publicId}/snapshot`, { 'if-none-match': etag! })).status).toBe(304);
    // A change to the figures: a new ETag, and the old one no longer matches.
    await owner.client.post(`/api/nest/trading/paper/faucet/${owner.userId}`, {
      chain: 'solana',
      token: 'USDC',
      amount: '5000',
      agentId: shown.agentId,
    });
    const changed = await anonymous.get(`${PUBLIC}/agents/${shown.publicId}/snapshot`, { 'if-none-match': etag! });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(changed.body.valueUsd).not.toBe(snap.body.valueUsd);

    // Published again without it: gone.
    await owner.client.post(`${cardPath(shown.agentId)}/publish`, { snapshot: false });
    expect((await anonymous.get(`${PUBLIC}/agents/${shown.publicId}/snapshot`)).status).toBe(404);
  });

  it("a paused agent's card is 404 and off the page and feed; resumed, it is back", async () => {
    const agent = await publishedAgent('Sleepy Owl', 'naps');
    expect(await search('sleepy')).toEqual([agent.publicId]);
    expect((await owner.client.post(`/api/nest/agents/${agent.agentId}/pause`)).status).toBe(200);
    const gone = await anonymous.get(`${PUBLIC}/agents/${agent.publicId}`);
    expect(gone.status).toBe(404);
    expect(gone.body.message).toBe('Agent not found');
    expect(await search('sleepy')).toEqual([]);
    expect(await search()).not.toContain(agent.publicId);
    // The pause took the card's search entries out of the index (not only out of the answers).
    await expect.poll(() => indexEntriesOf(`agent:${agent.agentId}`)).toBe(0);
    await owner.client.post(`/api/nest/agents/${agent.agentId}/resume`);
    expect((await anonymous.get(`${PUBLIC}/agents/${agent.publicId}`)).status).toBe(200);
    await expect.poll(() => indexEntriesOf(`agent:${agent.agentId}`)).toBeGreaterThan(0);
    expect(await search('sleepy')).toEqual([agent.publicId]);
  });

  it('legacy bots: the agent-card routes over the same model, deprecated; a deleted bot has no public card', async () => {
    const bot = await owner.client.post('/api/nest/bots', { name: 'Legacy Card Bot' });
    const botId = bot.body.id as string;
    const put = await owner.client.put(`/api/nest/bots/${botId}/agent-card`, { name: 'Legacy Card Bot', description: 'old school' });
    expect(put.status).toBe(200);
    expect(put.headers.get('deprecation')).toBe('true');
    expect(put.headers.get('link')).toContain('successor-version');
    const published = await owner.client.post(`/api/nest/bots/${botId}/agent-card/publish`, {});
    expect(published.status).toBe(200);
    expect(published.headers.get('deprecation')).toBe('true');
    const got = await owner.client.get(`/api/nest/bots/${botId}/agent-card`);
    expect(got.body).toMatchObject({ name: 'Legacy Card Bot', status: 'published', publicId: bot.body.publicId });
    expect((await anonymous.get(`${PUBLIC}/agents/${bot.body.publicId}`)).status).toBe(200);
    expect(await search('school')).toEqual([bot.body.publicId]);
    expect((await owner.client.delete(`/api/nest/bots/${botId}`)).status).toBe(200);
    expect((await anonymous.get(`${PUBLIC}/agents/${bot.body.publicId}`)).status).toBe(404);
    expect(await search('school')).toEqual([]);
  });

  it("two users: every card route on another user's agent or bot is 404, as a missing one", async () => {
    const agent = await owner.agent('Mine');
    const bot = (await owner.client.post('/api/nest/bots', { name: 'My Bot' })).body.id as string;
    const routes: Array<[string, string, unknown?]> = [
      ['GET', cardPath(agent.agentId)],
      ['PUT', cardPath(agent.agentId), { name: 'Hijacked' }],
      ['POST', `${cardPath(agent.agentId)}/publish`, {}],
      ['POST', `${cardPath(agent.agentId)}/revoke`, {}],
      ['GET', `/api/nest/bots/${bot}/agent-card`],
      ['PUT', `/api/nest/bots/${bot}/agent-card`, { name: 'Hijacked' }],
      ['POST', `/api/nest/bots/${bot}/agent-card/publish`, {}],
      ['POST', `/api/nest/bots/${bot}/agent-card/revoke`, {}],
    ];
    for (const [method, path, body] of routes) {
      const theirs = await stranger.client.request(method, path, body);
      const missing = await stranger.client.request(method, path.replace(agent.agentId, 'no-such-agent').replace(bot, 'no-such-bot'), body);
      expect([path, theirs.status, theirs.body.message]).toEqual([
        path,
        404,
        path.includes('/bots/') ? 'Bot not found' : 'Agent not found',
      ]);
      expect(theirs.body).toEqual({ ...missing.body });
      // Without a session: 401.
      expect((await anonymous.request(method, path, body)).status).toBe(401);
    }
    expect((await owner.client.get(cardPath(agent.agentId))).body).toMatchObject({ name: 'Mine', status: 'draft' });
  });

  it("bad input is a 400 in the interface's envelope", async () => {
    const agent = await owner.agent('Validator');
    const bad = await owner.client.put(cardPath(agent.agentId), { name: 'ok', description: 'line\u202Eevil', extra: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toEqual(expect.arrayContaining(['extra is not a known field']));
    expect(bad.body.message.join(' ')).toMatch(/description: must not contain/);
    expect((await anonymous.get(`${PUBLIC}/agents/page?limit=0`)).status).toBe(400);
    expect((await anonymous.get(`${PUBLIC}/agents/page?cursor=%%%`)).status).toBe(400);
    expect((await anonymous.get(`${PUBLIC}/agents/page?color=red`)).body.message).toEqual(['color is not a known field']);
    expect((await anonymous.get(`${PUBLIC}/agents/pub_nothing?x=1`)).status).toBe(400);
  });

  it("an onboarded agent's registration is its card's draft; a SIWA-verified one is in the discovery feed once published", async () => {
    const wallet = evmWallet();
    const { body: challenge } = await anonymous.post('/api/nest/auth/evm/nonce', {});
    const message = wallet.message(challenge.nonce);
    const registration = {
      type: REG_TYPE,
      name: 'Onboarded Otter',
      description: 'came through SIWE',
      services: [{ name: 'A2A', endpoint: 'https://otter.example/a2a' }],
      active: true,
    };
    const onboarded = await anonymous.post(`${PUBLIC}/onboarding/siwe`, {
      message,
      signature: await wallet.sign(message),
      scope: 'read',
      registration,
    });
    expect(onboarded.status).toBe(201);

    const operator = new Client(svc.url);
    await operator.refreshCsrf();
    const nonce = await operator.post('/api/nest/auth/evm/nonce');
    const login = wallet.message(nonce.body.nonce);
    const session = await operator.post('/api/nest/auth/evm/login', { message: login, signature: await wallet.sign(login) });
    operator.bearer = session.body.accessToken;
    await operator.refreshCsrf();
    const card = await operator.get(cardPath(onboarded.body.agentId));
    expect(card.status).toBe(200);
    expect(card.body).toMatchObject({
      name: 'Onboarded Otter',
      description: 'came through SIWE',
      services: [{ name: 'MCP' }, { name: 'A2A', endpoint: 'https://otter.example/a2a' }],
      status: 'draft',
      verified: false,
      publicId: onboarded.body.publicId,
    });
    expect((await operator.post(`${cardPath(onboarded.body.agentId)}/publish`, {})).status).toBe(200);
    expect(await search('otter')).toEqual([onboarded.body.publicId]);
    // Not verified (plain SIWE): not in the feed.
    const feed = await anonymous.get(`${PUBLIC}/discovery/feed`);
    expect(feed.status).toBe(200);
    expect(feed.body.items.map((c: { publicId: string }) => c.publicId)).not.toContain(onboarded.body.publicId);
  });
});

describe('verified cards and drafts from before cards', () => {
  const cardsOf = () => (svc.service.modules.find((m) => m.name === 'directory') as unknown as { cards: CardsService }).cards;

  it('the discovery feed lists verified published agents, newest first', async () => {
    const first = await owner.agent('Verified One');
    const second = await owner.agent('Verified Two');
    // As SIWA onboarding records it (generated agent ids are their actor ids).
    for (const agent of [first, second]) {
      await cardsOf().onboarded(agent.agentId, { verified: true, registrations: [{ agentId: '7', agentRegistry: 'eip155:8453:0xabc' }] });
      expect((await owner.client.post(`${cardPath(agent.agentId)}/publish`, {})).status).toBe(200);
    }
    const feed = await anonymous.get(`${PUBLIC}/discovery/feed?limit=2`);
    expect(feed.status).toBe(200);
    expect(feed.headers.get('etag')).toBeTruthy();
    expect(feed.body.items.map((c: { publicId: string }) => c.publicId)).toEqual([second.publicId, first.publicId]);
    expect(feed.body.items[0]).toMatchObject({ verified: true, registrations: [{ agentId: '7', agentRegistry: 'eip155:8453:0xabc' }] });
    await owner.client.post(`${cardPath(second.agentId)}/revoke`);
    const after = await anonymous.get(`${PUBLIC}/discovery/feed`);
    expect(after.body.items.map((c: { publicId: string }) => c.publicId)).not.toContain(second.publicId);
  });

  it("an identity record's old cardDraft moves to the agent's card once, and leaves the identity record", async () => {
    const agent = await owner.agent('Old Timer');
    const { store } = svc.service.adapters;
    await store.put('agent_identities', agent.agentId, {
      data: {
        method: 'siwe',
        verified: false,
        wallet: '0x0',
        cardDraft: { type: 'x', name: 'Old Draft', description: 'from before', services: [], active: true },
        updatedAt: 1,
      },
      expectedVersion: 0,
    });
    const mark = await store.get('directory.meta', 'card-drafts-v1');
    if (mark) await store.delete('directory.meta', 'card-drafts-v1', mark.version);
    const moved = await migrateCardDrafts({ store, cards: cardsOf(), logger: createLogger({ level: 'silent' }), now: () => Date.now() });
    expect(moved).toBe(1);
    expect((await owner.client.get(cardPath(agent.agentId))).body).toMatchObject({
      name: 'Old Draft',
      description: 'from before',
      status: 'draft',
    });
    const identity = await store.get<Record<string, unknown>>('agent_identities', agent.agentId);
    expect(identity?.data.cardDraft).toBeUndefined();
    expect(identity?.data.method).toBe('siwe');
    // Done once: a second run moves nothing.
    expect(await migrateCardDrafts({ store, cards: cardsOf(), logger: createLogger({ level: 'silent' }), now: () => Date.now() })).toBe(0);
  });
});
