/**
 * Agent cards, the public directory and the legacy bot surface through the SDK against the
 * real service: the owner edits and publishes a card (`cards`), the directory finds it by page
 * and search (`DirectoryClient`), asks again with `If-None-Match` and gets the kept body back on
 * a 304; a revoked card is 404 and the page's ETag changes. A legacy bot answers a web chat
 * message and shows its messaging configuration and fees by channel (`bots`).
 */
import nacl from 'tweetnacl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DirectoryClient, naclSigner, OperatorClient, type SdkError } from '../../sdk/src/index.js';
import { PUBLIC_URL, startTestService, type TestService } from '../support/test-service.js';

const caught = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.fail('expected an SdkError'),
    (error: SdkError) => error,
  );

/** A fetch that records each exchange: path with query, the If-None-Match sent, the status and ETag answered. */
function recordingFetch() {
  const seen: Array<{ path: string; ifNoneMatch: string | undefined; status: number; etag: string | null }> = [];
  const fetchImpl: typeof fetch = async (input, init = {}) => {
    const response = await fetch(input, init);
    const url = new URL(String(input));
    seen.push({
      path: `${url.pathname}${url.search}`,
      ifNoneMatch: (init.headers as Record<string, string>)['if-none-match'],
      status: response.status,
      etag: response.headers.get('etag'),
    });
    return response;
  };
  return { fetch: fetchImpl, seen };
}

describe('cards, directory and legacy bots through the SDK (e2e)', () => {
  let svc: TestService;
  let operator: OperatorClient;

  beforeAll(async () => {
    svc = await startTestService();
    operator = new OperatorClient({ baseUrl: svc.url, publicUrl: PUBLIC_URL });
    await operator.signInWithSolana(naclSigner(nacl.sign.keyPair()));
  });
  afterAll(() => svc?.stop());

  it('publish → page and search (a 304 answers with the kept body) → card and snapshot → revoke → 404 and a new ETag', async () => {
    const word = `heron${Date.now().toString(36)}`;
    const { agentId, publicId } = await operator.agents.create({ name: 'card owner' });
    expect(await operator.cards.get(agentId)).toMatchObject({ publicId, status: 'draft' });
    const draft = await operator.cards.update(agentId, { name: `Heron ${word}`, description: `Watches ${word} pools` });
    expect(draft).toMatchObject({ name: `Heron ${word}`, status: 'draft', unpublishedChanges: false });
    const published = await operator.cards.publish(agentId, { snapshot: true });
    expect(published).toMatchObject({ status: 'published', snapshot: true, publishedAt: expect.any(String) });

    const { fetch, seen } = recordingFetch();
    const directory = new DirectoryClient({ baseUrl: svc.url, fetch });
    const found = await directory.page({ q: word });
    expect(found.items.map((card) => card.publicId)).toEqual([publicId]);
    expect(found.items[0]).toMatchObject({ name: `Heron ${word}`, verified: false, services: [expect.objectContaining({ name: 'MCP' })] });
    expect((await directory.page({ limit: 200 })).items.map((card) => card.publicId)).toContain(publicId);

    // Again: sent with the ETag, answered 304, the kept body returned as it was.
    expect(await directory.page({ q: word })).toBe(found);
    const searches = seen.filter((r) => r.path.endsWith(`q=${word}`));
    expect(searches.map((r) => r.status)).toEqual([200, 304]);
    expect(searches[1]!.ifNoneMatch).toBe(searches[0]!.etag);

    expect(await directory.card(publicId)).toEqual(found.items[0]);
    expect(await directory.snapshot(publicId)).toMatchObject({ publicId, positions: [], openOrders: 0 });
    // The feed lists verified agents only (an ERC-8004 identity proven on chain): not this one.
    expect((await directory.feed({ limit: 200 })).items.map((card) => card.publicId)).not.toContain(publicId);
    // The operator's client carries a directory client too.
    expect(await operator.directory.card(publicId)).toEqual(found.items[0]);

    expect(await operator.cards.revoke(agentId)).toMatchObject({ status: 'revoked' });
    expect(await caught(directory.card(publicId))).toMatchObject({ code: 'unknown_error', status: 404, message: 'Agent not found' });
    expect(await directory.page({ q: word })).toEqual({ items: [] });
    const after = seen.filter((r) => r.path.endsWith(`q=${word}`));
    expect(after.map((r) => r.status)).toEqual([200, 304, 200]);
    expect(after[2]!.etag).not.toBe(after[0]!.etag);
  });

  it('a legacy bot: web chat through bots.chat, messaging configuration, platform start refused without a token, fees by channel', async () => {
    const bot = await operator.bots.create({ name: 'legacy sdk bot' });
    expect((await operator.bots.list()).items.map((item) => item.id)).toContain(bot.id);
    expect(await operator.bots.get(bot.id)).toMatchObject({ id: bot.id, name: 'legacy sdk bot' });

    const answer = await operator.bots.chat(bot.id, { message: 'status', chat_id: 'sdk' });
    expect(answer).toMatchObject({ chat_id: 'sdk', intent: 'status', executed: false, reply: expect.any(String) });
    expect(answer.reply.length).toBeGreaterThan(0);

    expect(await operator.bots.telegramConfig(bot.id)).toMatchObject({ platform: 'telegram', configured: false, botToken: null });
    expect(await operator.bots.setTelegramConfig(bot.id, { tradingUserIds: ['4242'] })).toMatchObject({ tradingUserIds: ['4242'] });
    expect(await operator.bots.discordConfig(bot.id)).toMatchObject({ platform: 'discord', configured: false });
    const refused = await caught(operator.bots.startPlatform(bot.id, 'telegram'));
    expect(refused).toMatchObject({ code: 'unknown_error', status: 400, message: 'telegram bot token is not configured' });
    expect(await operator.bots.stopPlatform(bot.id, 'telegram')).toMatchObject({ platform: 'telegram', status: 'stopped' });

    const fees = await operator.bots.feesByChannel(bot.id);
    expect(fees).toMatchObject({ botId: bot.id, currency: 'USD', total: { orders: 0 }, ordersWithoutFee: 0 });
    // Someone else's bot is not found, as a missing one.
    const stranger = new OperatorClient({ baseUrl: svc.url, publicUrl: PUBLIC_URL });
    await stranger.signInWithSolana(naclSigner(nacl.sign.keyPair()));
    expect(await caught(stranger.bots.chat(bot.id, { message: 'status' }))).toMatchObject({ code: 'unknown_error', status: 404 });
  });
});
