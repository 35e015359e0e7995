import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundBot } from '../support/bot-funding.js';
import { Client, signInSolana, startTestService, type TestService } from '../support/test-service.js';

const TELEGRAM_TOKEN = `123456789:${'B'.repeat(35)}`;

describe('legacy bot web chat, and the new bot routes across two users (e2e)', () => {
  let svc: TestService;
  let alice: Client;
  let bob: Client;
  let aliceId: string;

  beforeAll(async () => {
    svc = await startTestService();
    alice = new Client(svc.url);
    bob = new Client(svc.url);
    aliceId = (await signInSolana(alice)).user.id;
    await signInSolana(bob);
  });
  afterAll(() => svc.stop());

  it('answers through ask_bot, keeps the conversation per chat id, and executes a trade command through the safety path', async () => {
    const { body: bot } = await alice.post('/api/nest/bots', { name: 'Web bot' });
    const asked = await alice.post(`/api/nest/bots/${bot.id}/chat`, { message: 'status', chat_id: 'c1' });
    expect(asked).toMatchObject({
      status: 200,
      body: { chat_id: 'c1', intent: 'status', executed: false, reply: expect.stringContaining('Web bot') },
    });
    expect(asked.headers.get('deprecation')).toBe('true');
    expect(asked.headers.get('link')).toBe('</api/nest/agents>; rel="successor-version"');

    // Trading off: the interface's soft refusal, nothing placed.
    const refused = await alice.post(`/api/nest/bots/${bot.id}/chat`, { message: 'swap 10 USDC to SOL', chat_id: 'c1' });
    expect(refused).toMatchObject({
      status: 200,
      body: { success: false, error: { code: 'TRADING_DISABLED', message: 'Trading bu bot icin kapali.', details: { retryable: false } } },
    });

    await alice.patch(`/api/nest/bots/${bot.id}`, { tradingEnabled: true });
    await fundBot(svc.service, aliceId, bot.id);
    const trade = await alice.post(`/api/nest/bots/${bot.id}/chat`, { message: 'swap 10 USDC to SOL', chat_id: 'c1', message_id: 'm-1' });
    expect(trade.body).toMatchObject({
      intent: 'swap',
      executed: true,
      order: { status: 'filled', channel: 'chat', botId: bot.id },
      reply: expect.stringMatching(/^Done: swap 10 USDC/),
    });
    // The same message id again places no second order.
    const again = await alice.post(`/api/nest/bots/${bot.id}/chat`, { message: 'swap 10 USDC to SOL', chat_id: 'c1', message_id: 'm-1' });
    expect(again.body.order.order_id).toBe(trade.body.order.order_id);

    // The conversation is kept per chat id: four exchanges in c1, none in c2.
    const turns = async (chatId: string) => {
      const doc = await svc.service.adapters.store.get<{ turns: Array<{ role: string; text: string }> }>(
        'bots.chat-histories',
        `bot:${bot.id}|chat|${chatId}`,
      );
      return doc?.data.turns ?? [];
    };
    const c1 = await turns('c1');
    expect(c1.map((t) => t.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    expect(c1[3]!.text).toBe('Trading bu bot icin kapali.');
    expect(await turns('c2')).toEqual([]);

    // Web chat orders count as `web` in the fees by channel.
    const fees = await alice.get(`/api/nest/bots/${bot.id}/trading/fees/channels`);
    expect(fees.body.channels.find((row: { channel: string }) => row.channel === 'web')).toMatchObject({ orders: 1 });
    expect(Number(fees.body.total.feeUsd)).toBeGreaterThan(0);
    const later = await alice.get(
      `/api/nest/bots/${bot.id}/trading/fees/channels?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
    );
    expect(later.body.total.orders).toBe(0);
    expect((await alice.get(`/api/nest/bots/${bot.id}/trading/fees/channels?from=yesterday`)).status).toBe(400);
  });

  it('the history is bounded: the oldest turns drop off', async () => {
    const { body: bot } = await alice.post('/api/nest/bots', { name: 'Chatty' });
    for (let i = 0; i < 22; i++) await alice.post(`/api/nest/bots/${bot.id}/chat`, { message: `status ${i}`, chat_id: 'long' });
    const doc = await svc.service.adapters.store.get<{ turns: Array<{ text: string }> }>('bots.chat-histories', `bot:${bot.id}|chat|long`);
    expect(doc!.data.turns).toHaveLength(40);
    expect(doc!.data.turns[0]!.text).toBe('status 2');
  });

  it("every new route: another user's bot is 404 Bot not found, as a missing one; bad input is 400", async () => {
    const { body: bot } = await alice.post('/api/nest/bots', { name: 'Private', tradingEnabled: true });
    await alice.put(`/api/nest/bots/${bot.id}/telegram-config`, { botToken: TELEGRAM_TOKEN });
    const routes: Array<[string, string, unknown?]> = [
      ['POST', `/api/nest/bots/${bot.id}/chat`, { message: 'status' }],
      ['GET', `/api/nest/bots/${bot.id}/telegram-config`],
      ['PUT', `/api/nest/bots/${bot.id}/telegram-config`, { tradingUserIds: ['1'] }],
      ['GET', `/api/nest/bots/${bot.id}/discord-config`],
      ['PUT', `/api/nest/bots/${bot.id}/discord-config`, { channelIds: ['1'] }],
      ['POST', `/api/nest/bots/${bot.id}/platforms/telegram/start`, {}],
      ['POST', `/api/nest/bots/${bot.id}/platforms/telegram/stop`, {}],
      ['GET', `/api/nest/bots/${bot.id}/trading/fees/channels`],
    ];
    for (const [method, path, body] of routes) {
      const theirs = await bob.request(method, path, body);
      expect({ path, method, status: theirs.status, message: theirs.body?.message }).toEqual({
        path,
        method,
        status: 404,
        message: 'Bot not found',
      });
      expect(theirs.headers.get('deprecation')).toBe('true');
      const missing = await bob.request(method, path.replace(bot.id, 'bot_missing'), body);
      expect({ path, status: missing.status, message: missing.body?.message }).toEqual({ path, status: 404, message: 'Bot not found' });
    }
    // Bob's attempts changed nothing: alice's connector is still stopped and her config as she left it.
    const mine = await alice.get(`/api/nest/bots/${bot.id}/telegram-config`);
    expect(mine.body).toMatchObject({ tradingUserIds: [], connector: { status: 'stopped' } });
    // Bad input on her own bot is a 400, never a 500.
    expect((await alice.post(`/api/nest/bots/${bot.id}/platforms/slack/start`, {})).status).toBe(400);
    expect((await alice.post(`/api/nest/bots/${bot.id}/chat`, { message: '' })).status).toBe(400);
    expect((await alice.post(`/api/nest/bots/${bot.id}/chat`, { message: 'hi', extra: 1 })).status).toBe(400);
    expect((await alice.put(`/api/nest/bots/${bot.id}/discord-config`, { channelIds: ['general'] })).status).toBe(400);
    // Without a session: 401; without CSRF: 403.
    expect((await new Client(svc.url).get(`/api/nest/bots/${bot.id}/telegram-config`)).status).toBe(401);
    const noCsrf = new Client(svc.url);
    noCsrf.bearer = alice.bearer;
    expect((await noCsrf.post(`/api/nest/bots/${bot.id}/chat`, { message: 'status' })).status).toBe(403);
  });
});
