import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderDefinition } from '../../machines/order.machine.js';
import { fundBot } from '../support/bot-funding.js';
import { FakeTelegram } from '../support/platform-fakes.js';
import { Client, signInSolana, startTestService, type solanaWallet, type TestService } from '../support/test-service.js';

const TELEGRAM_TOKEN = `123456789:${'C'.repeat(35)}`;
const OWNER_TG = 5151;
const SITE = 'https://shop.example.com';
const SWAP = 'swap 10 USDC to SOL';

/**
 * A catalog family switched off refuses its effect on every road: the bot's web chat, its
 * Telegram connector and its widget's owner chat answer a trade as the catalog answers the
 * command route (`Tool not found: trading_command`) and order nothing; the bot's own MCP
 * categories hold on its channels too. Switched on again, the same messages trade.
 */
describe('catalog families and a legacy bot’s chats (e2e)', () => {
  let svc: TestService;
  let telegram: FakeTelegram;
  let alice: Client;
  let wallet: ReturnType<typeof solanaWallet>;
  let botId: string;
  let widgetToken: string;
  const page = { origin: SITE };

  const catalog = async (body: unknown) => {
    const response = await fetch(`${svc.url}/api/nest/ops/catalog`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${svc.opsToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
  };
  const orders = async () =>
    (await svc.service.runtime.collection(orderDefinition).find({ index: 'subject', eq: `bot:${botId}` }, { limit: 100 })).items.length;
  const webChat = (message: string, messageId?: string) =>
    alice.post(`/api/nest/bots/${botId}/chat`, { message, chat_id: 'web', ...(messageId ? { message_id: messageId } : {}) });
  const widgetChat = (message: string, messageId?: string) =>
    new Client(svc.url).post(
      `/api/widget/${botId}/chat`,
      { message, ...(messageId ? { message_id: messageId } : {}) },
      { ...page, authorization: `Bearer ${widgetToken}` },
    );
  const telegramChat = async (message: string) => (await telegram.replyTo(telegram.say(1, OWNER_TG, message))).text;

  beforeAll(async () => {
    telegram = await new FakeTelegram(TELEGRAM_TOKEN).start();
    svc = await startTestService({
      env: { TELEGRAM_API_URL: telegram.url, TELEGRAM_POLL_TIMEOUT_SECONDS: '1', PLATFORM_RETRY_MS: '10', PLATFORM_SWEEP_MS: '200' },
    });
    alice = new Client(svc.url);
    const signedIn = await signInSolana(alice);
    wallet = signedIn.wallet;
    botId = (await alice.post('/api/nest/bots', { name: 'Parity bot', tradingEnabled: true })).body.id;
    await fundBot(svc.service, signedIn.user.id, botId);

    // Telegram: the owner's account may trade.
    await alice.put(`/api/nest/bots/${botId}/telegram-config`, { botToken: TELEGRAM_TOKEN, tradingUserIds: [String(OWNER_TG)] });
    expect((await alice.post(`/api/nest/bots/${botId}/platforms/telegram/start`)).body).toMatchObject({ status: 'started' });
    // Messages written before the connector runs are backlog, never answered: wait for its polls.
    for (const deadline = Date.now() + 10_000; telegram.polls < 2; ) {
      if (Date.now() > deadline) throw new Error('the Telegram connector never polled');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    // The widget: a session its owner signed in to.
    await alice.put(`/api/nest/bots/${botId}/widget-config`, { allowedOrigins: [SITE] });
    const anon = new Client(svc.url);
    widgetToken = (await anon.post(`/api/widget/${botId}/init`, {}, page)).body.sessionToken;
    const session = { ...page, authorization: `Bearer ${widgetToken}` };
    const challenge = await anon.post(`/api/widget/${botId}/sign-in/nonce`, { chain: 'solana', walletAddress: wallet.address }, session);
    const signed = await anon.post(
      `/api/widget/${botId}/sign-in`,
      { message: challenge.body.message, signature: wallet.sign(challenge.body.message) },
      session,
    );
    expect(signed.body).toMatchObject({ owner: true });
  });
  afterAll(async () => {
    await svc.stop();
    await telegram.stop();
  });

  it('family `trading` off: a trade on the web chat, Telegram and the widget owner chat is refused and nothing is ordered; a DCA pause still runs', async () => {
    await catalog({ disabledFamilies: ['trading'] });
    try {
      const web = await webChat(SWAP, 'off-1');
      expect(web).toMatchObject({ status: 404, body: { message: 'Tool not found: trading_command' } });
      const widget = await widgetChat(SWAP, 'off-1');
      expect(widget).toMatchObject({ status: 404, body: { message: 'Tool not found: trading_command' } });
      expect(await telegramChat(SWAP)).toBe('Tool not found: trading_command');
      // Every order-placing intent: an approval is the `trading` family's too.
      expect((await webChat('approve ord_anything')).body.message).toBe('Tool not found: trading_orders_approve');
      expect(await orders()).toBe(0);

      // Pausing DCA is the `strategy` family's (`trading_dca_pause`): still allowed, on every chat.
      expect((await webChat('dca pause')).body).toMatchObject({ intent: 'dca_pause', executed: true });
      expect((await widgetChat('dca pause')).body).toMatchObject({ intent: 'dca_pause', executed: true });
      expect(await telegramChat('dca pause')).toBe('No active DCA strategy to pause.');
      // A question is still answered.
      expect((await webChat('status')).body).toMatchObject({ intent: 'status', executed: false });
    } finally {
      await catalog({});
    }

    // Back on: the same messages trade.
    expect((await webChat(SWAP, 'on-1')).body).toMatchObject({ executed: true, order: { status: 'filled', channel: 'chat' } });
    expect((await widgetChat(SWAP, 'on-1')).body).toMatchObject({ executed: true, order: { status: 'filled', channel: 'widget' } });
    expect(await telegramChat(SWAP)).toMatch(/^Done: swap 10 USDC → [\d.]+ SOL filled/);
    expect(await orders()).toBe(3);
  });

  it('family `strategy` off: a DCA strategy is not created through a chat, as through the catalog', async () => {
    await catalog({ disabledFamilies: ['strategy'] });
    try {
      const created = await webChat('dca 10 USDC into SOL every day');
      expect(created).toMatchObject({ status: 404, body: { message: 'Tool not found: trading_dca_strategy_create' } });
      expect((await widgetChat('dca 10 USDC into SOL every day')).body).toMatchObject({
        message: 'Tool not found: trading_dca_strategy_create',
      });
    } finally {
      await catalog({});
    }
    // Back on: created.
    expect((await webChat('dca 10 USDC into SOL every day')).body).toMatchObject({ intent: 'dca_create', executed: true });
  });

  it("the bot's MCP `disabledCategories` hold on its Telegram and widget chats; the owner's console chat is the operator's, as on REST", async () => {
    const before = await orders();
    expect((await alice.put(`/api/nest/bots/${botId}/mcp`, { disabledCategories: ['trading'] })).status).toBe(200);
    try {
      expect(await telegramChat(SWAP)).toBe('Tool not found: trading_command');
      expect((await widgetChat(SWAP, 'cat-1')).body).toMatchObject({ message: 'Tool not found: trading_command' });
      expect(await orders()).toBe(before);
      expect((await webChat(SWAP, 'cat-1')).body).toMatchObject({ executed: true, order: { status: 'filled' } });
    } finally {
      await alice.put(`/api/nest/bots/${botId}/mcp`, { disabledCategories: [] });
    }
    expect(await telegramChat(SWAP)).toMatch(/^Done: swap 10 USDC/);
  });
});
