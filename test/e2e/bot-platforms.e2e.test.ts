import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundBot } from '../support/bot-funding.js';
import { FakeDiscord, FakeTelegram } from '../support/platform-fakes.js';
import { Client, signInSolana, startTestService, type TestService } from '../support/test-service.js';

const TELEGRAM_TOKEN = `123456789:${'A'.repeat(35)}`;
const DISCORD_TOKEN = `${'M'.repeat(24)}.Gabcde.${'x'.repeat(27)}`;
const CHANNEL = '1100000000000000001';
const OWNER_TG = 4242;
const STRANGER_TG = 777;
const OWNER_DC = '1200000000000000001';

async function until<T>(what: string, read: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('legacy bot platforms: Telegram and Discord connectors (e2e, local fakes)', () => {
  let svc: TestService;
  let telegram: FakeTelegram;
  let discord: FakeDiscord;
  let alice: Client;
  let userId: string;

  beforeAll(async () => {
    telegram = await new FakeTelegram(TELEGRAM_TOKEN).start();
    discord = await new FakeDiscord(DISCORD_TOKEN).start();
    svc = await startTestService({
      env: {
        TELEGRAM_API_URL: telegram.url,
        TELEGRAM_POLL_TIMEOUT_SECONDS: '1',
        DISCORD_API_URL: discord.url,
        DISCORD_POLL_INTERVAL_MS: '30',
        PLATFORM_RETRY_MS: '10',
        PLATFORM_SWEEP_MS: '200',
        CIRCUIT_BREAKER_THRESHOLD: '3',
      },
    });
    alice = new Client(svc.url);
    userId = (await signInSolana(alice)).user.id;
  });
  afterAll(async () => {
    await svc.stop();
    await telegram.stop();
    await discord.stop();
  });

  it('Telegram: config stored encrypted and shown masked; replies to a question; a trade command from the owner executes on the paper venue', async () => {
    const { body: bot } = await alice.post('/api/nest/bots', { name: 'TG bot', tradingEnabled: true });
    await fundBot(svc.service, userId, bot.id);

    const empty = await alice.get(`/api/nest/bots/${bot.id}/telegram-config`);
    expect(empty).toMatchObject({
      status: 200,
      body: { platform: 'telegram', configured: false, botToken: null, tradingUserIds: [], connector: { status: 'stopped' } },
    });
    expect(empty.headers.get('deprecation')).toBe('true');
    expect(empty.headers.get('link')).toBe('</api/nest/agents>; rel="successor-version"');
    // Not configured: cannot start.
    expect((await alice.post(`/api/nest/bots/${bot.id}/platforms/telegram/start`)).status).toBe(400);

    const put = await alice.put(`/api/nest/bots/${bot.id}/telegram-config`, {
      botToken: TELEGRAM_TOKEN,
      tradingUserIds: [String(OWNER_TG)],
    });
    expect(put.body).toMatchObject({
      configured: true,
      botToken: `************${TELEGRAM_TOKEN.slice(-4)}`,
      tradingUserIds: [String(OWNER_TG)],
    });
    expect(JSON.stringify(put.body)).not.toContain(TELEGRAM_TOKEN.slice(10, 30));
    // At rest the token is sealed, not stored in the clear.
    const stored = await svc.service.adapters.store.get<Record<string, unknown>>('bots.messaging-configs', `${bot.id}:telegram`);
    expect(JSON.stringify(stored?.data)).not.toContain(TELEGRAM_TOKEN.split(':')[1]);
    expect(stored?.data.tokenSealed).toMatch(/^v1\./);
    expect((await alice.put(`/api/nest/bots/${bot.id}/telegram-config`, { botToken: 'nope' })).status).toBe(400);

    // A message written before the start is backlog: not answered.
    const backlog = telegram.say(1, OWNER_TG, 'status');
    const started = await alice.post(`/api/nest/bots/${bot.id}/platforms/telegram/start`);
    expect(started).toMatchObject({ status: 200, body: { platform: 'telegram', status: 'started' } });
    expect(started.headers.get('deprecation')).toBe('true');
    expect((await alice.get(`/api/nest/bots/${bot.id}`)).body.platforms.telegram).toMatchObject({ status: 'started' });

    await until('the connector polling', async () => (telegram.polls >= 2 ? true : undefined));
    const question = telegram.say(1, OWNER_TG, 'status');
    expect((await telegram.replyTo(question)).text).toMatch(/TG bot .*trading is enabled/);
    expect(telegram.sent.some((m) => m.reply_parameters?.message_id === backlog)).toBe(false);

    // Someone not on the trading list gets a description, no order.
    const fromStranger = telegram.say(2, STRANGER_TG, 'swap 10 USDC to SOL');
    const described = await telegram.replyTo(fromStranger);
    expect(described.text).not.toMatch(/^Done:/);

    const trade = telegram.say(1, OWNER_TG, 'swap 10 USDC to SOL');
    const done = await telegram.replyTo(trade);
    expect(done.text).toMatch(/^Done: swap 10 USDC → [\d.]+ SOL filled \(order ord_/);
    const orderId = /order (ord_[\w-]+)/.exec(done.text)![1]!;
    const order = (await svc.service.runtime.collection({ type: 'order' } as never).get(orderId)) as {
      state: string;
      context: Record<string, unknown>;
    } | null;
    expect(order).toMatchObject({
      state: 'filled',
      context: { channel: 'telegram', subjectType: 'bot', subjectId: bot.id, venue: 'paper' },
    });

    // Fees by channel: the Telegram trade's fee (paper venue: 30 bps of its input).
    const fees = await alice.get(`/api/nest/bots/${bot.id}/trading/fees/channels`);
    expect(fees.headers.get('deprecation')).toBe('true');
    const tg = fees.body.channels.find((row: { channel: string }) => row.channel === 'telegram');
    expect(tg).toMatchObject({ orders: 1 });
    expect(Number(tg.feeUsd)).toBeCloseTo(Number(tg.volumeUsd) * 0.003, 3);
    expect(fees.body.channels.map((row: { channel: string }) => row.channel)).toEqual([
      'web',
      'mcp',
      'telegram',
      'discord',
      'widget',
      'dca',
    ]);
    expect(fees.body.total.orders).toBe(1);

    const stopped = await alice.post(`/api/nest/bots/${bot.id}/platforms/telegram/stop`);
    expect(stopped.body).toMatchObject({ status: 'stopped' });
    const pollsAtStop = telegram.polls;
    const ignored = telegram.say(1, OWNER_TG, 'status');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(telegram.polls).toBe(pollsAtStop);
    expect(telegram.sent.some((m) => m.reply_parameters?.message_id === ignored)).toBe(false);
  });

  it("Discord: reads the configured channel, answers with a reply, skips its own messages, executes the owner's trade; trading off is the soft refusal", async () => {
    const { body: bot } = await alice.post('/api/nest/bots', { name: 'DC bot', tradingEnabled: true });
    await fundBot(svc.service, userId, bot.id);
    // No channel yet: cannot start.
    await alice.put(`/api/nest/bots/${bot.id}/discord-config`, { botToken: DISCORD_TOKEN });
    expect((await alice.post(`/api/nest/bots/${bot.id}/platforms/discord/start`)).status).toBe(400);
    const config = await alice.put(`/api/nest/bots/${bot.id}/discord-config`, { channelIds: [CHANNEL], tradingUserIds: [OWNER_DC] });
    expect(config.body).toMatchObject({
      configured: true,
      botToken: `************${DISCORD_TOKEN.slice(-4)}`,
      channelIds: [CHANNEL],
      tradingUserIds: [OWNER_DC],
    });
    expect((await alice.post(`/api/nest/bots/${bot.id}/platforms/discord/start`)).body).toMatchObject({ status: 'started' });

    await new Promise((resolve) => setTimeout(resolve, 200));
    const question = discord.say(CHANNEL, OWNER_DC, 'help');
    const reply = await discord.replyTo(question);
    expect(reply.content.length).toBeGreaterThan(0);
    const trade = discord.say(CHANNEL, OWNER_DC, 'swap 5 USDC to SOL');
    expect((await discord.replyTo(trade)).content).toMatch(/^Done: swap 5 USDC → [\d.]+ SOL filled/);
    // Its own messages are never answered: one reply per person's message.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(discord.posted).toHaveLength(2);

    await alice.patch(`/api/nest/bots/${bot.id}`, { tradingEnabled: false });
    const refused = discord.say(CHANNEL, OWNER_DC, 'swap 5 USDC to SOL');
    expect((await discord.replyTo(refused)).content).toBe('Trading bu bot icin kapali.');
    await alice.post(`/api/nest/bots/${bot.id}/platforms/discord/stop`);
  });

  it("a connector that keeps failing is stopped by its circuit breaker and the bot's status says so", async () => {
    const { body: bot } = await alice.post('/api/nest/bots', { name: 'Failing bot' });
    await alice.put(`/api/nest/bots/${bot.id}/telegram-config`, { botToken: TELEGRAM_TOKEN });
    telegram.failing = true;
    try {
      await alice.post(`/api/nest/bots/${bot.id}/platforms/telegram/start`);
      const tripped = await until('the breaker to trip the connector', async () => {
        const { body } = await alice.get(`/api/nest/bots/${bot.id}`);
        return body.platforms.telegram.status === 'tripped' ? body.platforms.telegram : undefined;
      });
      expect(tripped.reason).toMatch(
        /^Circuit breaker open for provider: telegram; last error: Provider unavailable: telegram \(HTTP 502\)/,
      );
      const config = await alice.get(`/api/nest/bots/${bot.id}/telegram-config`);
      expect(config.body.connector).toMatchObject({ status: 'tripped', reason: tripped.reason });
      // Stopped: no more calls.
      const polls = telegram.polls;
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(telegram.polls).toBe(polls);
    } finally {
      telegram.failing = false;
    }
    // The owner starts it again once the platform is well.
    expect((await alice.post(`/api/nest/bots/${bot.id}/platforms/telegram/start`)).body).toMatchObject({ status: 'started' });
    await alice.post(`/api/nest/bots/${bot.id}/platforms/telegram/stop`);
  });
});
