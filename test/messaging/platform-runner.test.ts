/**
 * The platform runner's connection: the bot token is opened once per connection, not on every
 * poll round, and again when the configuration changes (the connector reconnects with it).
 */
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BotContext } from '../../machines/bot.machine.js';
import { SecretBox } from '../../kernel/crypto/secret-box.js';
import { BOT_TOKENS_PURPOSE, MESSAGING_CONFIG_COLLECTION, MessagingConfigs } from '../../src/messaging/messaging-config.service.js';
import { PLATFORM_LEASE_COLLECTION, PlatformLeases } from '../../src/messaging/platform-leases.js';
import { PlatformRunner } from '../../src/messaging/platform-runner.js';
import type { MessagingPlatformPort, PlatformCredentials } from '../../kernel/ports/messaging-platform.port.js';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { MemoryStore } from '../support/memory-store.adapter.js';
import { until } from '../support/events-harness.js';

const BOT = 'bot_1';
const FIRST = `123456789:${'A'.repeat(35)}`;
const SECOND = `123456789:${'B'.repeat(35)}`;

describe('PlatformRunner: the platform token', () => {
  let runner: PlatformRunner | undefined;
  afterEach(async () => {
    await runner?.stop();
  });

  it('is decrypted once per connection, not per poll round; a changed configuration opens the new one once', async () => {
    const clock = new ManualClock();
    const store = new MemoryStore(clock);
    await store.init([MESSAGING_CONFIG_COLLECTION, PLATFORM_LEASE_COLLECTION]);
    const box = new SecretBox('m'.repeat(40), BOT_TOKENS_PURPOSE);
    const opened = vi.spyOn(box, 'openText');
    const configs = new MessagingConfigs({ store, box, clock });
    await configs.update(BOT, 'telegram', { botToken: FIRST });

    const connected: PlatformCredentials[] = [];
    let polls = 0;
    const telegram: MessagingPlatformPort = {
      platform: 'telegram',
      connect: (credentials) => {
        connected.push(credentials);
        return {
          poll: async () => {
            await new Promise((resolve) => setTimeout(resolve, 2));
            polls++;
            return { messages: [], cursor: String(polls) };
          },
          send: async () => undefined,
        };
      },
    };
    const bot = {
      state: 'active',
      context: { botId: BOT, ownerId: 'usr_1', platforms: { telegram: { status: 'started' }, discord: { status: 'stopped' } } },
    } as unknown as { state: string; context: BotContext };
    runner = new PlatformRunner({
      bots: { get: async () => bot, find: async () => ({ items: [] }), send: async () => ({}) } as never,
      configs,
      platforms: { telegram, discord: telegram },
      chat: { send: async () => ({ reply: '' }) } as never,
      leases: new PlatformLeases({ store, clock, leaseMs: 60_000 }),
      breaker: () => ({ execute: (fn) => fn(new AbortController().signal), state: () => 'closed', openError: () => new Error('open') }),
      clock,
      logger: pino({ level: 'silent' }),
      retryMs: 10,
      sweepMs: 60_000,
      renewMs: 20_000,
    });

    runner.ensure(BOT, 'telegram');
    await until(() => polls >= 10, 'ten poll rounds');
    expect(connected.map((c) => c.token)).toEqual([FIRST]);
    expect(opened).toHaveBeenCalledTimes(1);

    await configs.update(BOT, 'telegram', { botToken: SECOND });
    await until(() => connected.length === 2, 'the reconnection');
    const after = polls;
    await until(() => polls >= after + 10, 'ten more poll rounds');
    expect(connected.map((c) => c.token)).toEqual([FIRST, SECOND]);
    expect(opened).toHaveBeenCalledTimes(2);
  });
});
