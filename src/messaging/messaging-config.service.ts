import { z } from 'zod';
import type { Platform } from '../../machines/bot.machine.js';
import type { SecretBox } from '../../kernel/crypto/secret-box.js';
import { AppError } from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { CollectionSpec, StorePort } from '../../kernel/ports/store.port.js';
import { updateRecord } from '../../kernel/shared/record-update.js';

/**
 * A legacy bot's messaging configuration (the legacy routes `telegram-config`, `discord-config`):
 * a plain record per bot and platform. The bot token is sealed with the data key (AES-256-GCM,
 * the record's id as additional data) and only ever shown masked; the connector opens it when
 * it connects.
 */
export const MESSAGING_CONFIG_COLLECTION: CollectionSpec = { name: 'bots.messaging-configs', indexes: [] };
/** Purpose of the data key's derived key for bot tokens. */
export const BOT_TOKENS_PURPOSE = 'bot-platform-tokens';

const userIds = z.array(z.string().regex(/^\d{1,20}$/, 'must be a numeric user id')).max(100);
const tradingUserIds = userIds.describe(
  'Platform user ids (numeric) whose trading commands are executed, up to 100; anyone else chatting with the bot gets answers and descriptions of commands, never an order. Default none.',
);

export const telegramConfigSchema = z
  .object({
    botToken: z
      .string()
      .regex(/^\d{1,20}:[A-Za-z0-9_-]{30,100}$/, 'must be a Telegram bot token (<bot id>:<secret>)')
      .describe('The bot token from @BotFather (`<bot id>:<secret>`); stored encrypted, shown masked. Omit to keep the stored one.'),
    tradingUserIds,
  })
  .partial()
  .strict();

export const discordConfigSchema = z
  .object({
    botToken: z
      .string()
      .regex(/^[A-Za-z0-9_-]{20,100}\.[A-Za-z0-9_-]{4,20}\.[A-Za-z0-9_-]{20,100}$/, 'must be a Discord bot token')
      .describe('The bot token from the Discord developer portal; stored encrypted, shown masked. Omit to keep the stored one.'),
    channelIds: z
      .array(z.string().regex(/^\d{1,20}$/, 'must be a numeric channel id'))
      .max(20)
      .describe('Ids of the channels the bot reads and answers in, up to 20; at least one is needed to start.'),
    tradingUserIds,
  })
  .partial()
  .strict();

export type MessagingConfigInput = z.infer<typeof discordConfigSchema>;

interface StoredConfig {
  tokenSealed?: string;
  tokenHint?: string;
  channelIds: string[];
  tradingUserIds: string[];
  /** Epoch ms. */
  updatedAt: number;
}

/** The configuration as its routes show it: the token masked. */
export interface MessagingConfigView {
  platform: Platform;
  configured: boolean;
  /** `****…` and the token's last 4 characters; null when none is stored. */
  botToken: string | null;
  channelIds?: string[];
  tradingUserIds: string[];
  updatedAt?: string;
}

/** What a connector needs, the token opened. `version` changes with every write (a running connector reconnects). */
export interface PlatformSettings {
  token: string;
  channelIds: string[];
  tradingUserIds: string[];
  version: number;
}

export class MessagingConfigs {
  constructor(private readonly deps: { store: StorePort; box: SecretBox; clock: ClockPort }) {}

  async get(botId: string, platform: Platform): Promise<MessagingConfigView> {
    const doc = await this.deps.store.get<StoredConfig>(MESSAGING_CONFIG_COLLECTION.name, recordId(botId, platform));
    return view(platform, doc?.data);
  }

  /** Sets the fields given; the others keep their values. */
  async update(botId: string, platform: Platform, input: MessagingConfigInput): Promise<MessagingConfigView> {
    const id = recordId(botId, platform);
    // Sealed outside the retry loop: `apply` must have no effects, and one IV per write is enough.
    const sealed = input.botToken === undefined ? undefined : this.deps.box.seal(input.botToken, id);
    const { doc } = await updateRecord<StoredConfig>(this.deps.store, { collection: MESSAGING_CONFIG_COLLECTION.name, id }, (current) => ({
      data: {
        ...(current?.data ?? { channelIds: [], tradingUserIds: [] }),
        ...(sealed && input.botToken ? { tokenSealed: sealed, tokenHint: input.botToken.slice(-4) } : {}),
        ...(input.channelIds ? { channelIds: [...new Set(input.channelIds)] } : {}),
        ...(input.tradingUserIds ? { tradingUserIds: [...new Set(input.tradingUserIds)] } : {}),
        updatedAt: this.deps.clock.now(),
      },
    }));
    return view(platform, doc?.data);
  }

  /**
   * The settings a connector runs with; 400 when the platform cannot be started as configured.
   * `current`, those it runs with already, is answered as it is while the record has not
   * changed since: a poll round reads the record but opens no token.
   */
  async settings(botId: string, platform: Platform, current?: PlatformSettings): Promise<PlatformSettings> {
    const id = recordId(botId, platform);
    const doc = await this.deps.store.get<StoredConfig>(MESSAGING_CONFIG_COLLECTION.name, id);
    if (!doc?.data.tokenSealed) throw AppError.validation([`${platform} bot token is not configured`]);
    if (platform === 'discord' && doc.data.channelIds.length === 0)
      throw AppError.validation(['discord channelIds must name at least one channel']);
    if (current?.version === doc.version) return current;
    return {
      token: this.deps.box.openText(doc.data.tokenSealed, id),
      channelIds: [...doc.data.channelIds],
      tradingUserIds: [...doc.data.tradingUserIds],
      version: doc.version,
    };
  }
}

function recordId(botId: string, platform: Platform): string {
  return `${botId}:${platform}`;
}

function view(platform: Platform, data: StoredConfig | undefined): MessagingConfigView {
  return {
    platform,
    configured: data?.tokenSealed !== undefined,
    botToken: data?.tokenHint ? `${'*'.repeat(12)}${data.tokenHint}` : null,
    ...(platform === 'discord' ? { channelIds: [...(data?.channelIds ?? [])] } : {}),
    tradingUserIds: [...(data?.tradingUserIds ?? [])],
    ...(data ? { updatedAt: new Date(data.updatedAt).toISOString() } : {}),
  };
}
