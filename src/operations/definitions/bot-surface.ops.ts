import { z } from 'zod';
import type { BotChat } from '../../../agents/chat/bot-chat.js';
import { FEE_CHANNELS, type FeesByChannelReader } from '../../../agents/trading/fees-by-channel.js';
import { PLATFORMS, type Platform } from '../../../machines/bot.machine.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import type { BotPlatforms } from '../../messaging/bot-platforms.service.js';
import { discordConfigSchema, telegramConfigSchema, type MessagingConfigs } from '../../messaging/messaging-config.service.js';
import { defineOperation } from '../operation-definition.js';
import type { OperationContext } from '../operation.types.js';
import { orderOutput } from './trading-schemas.js';
import { isoTime } from './output-fields.js';

const platformStatusSchema = z.object({
  platform: z.enum(PLATFORMS),
  status: z
    .enum(['stopped', 'started', 'tripped'])
    .describe('`tripped`: stopped by the service after its circuit breaker opened; `reason` says why'),
  since: isoTime,
  reason: z.string().optional(),
});

const configOutput = z.object({
  platform: z.enum(PLATFORMS),
  configured: z.boolean(),
  botToken: z.string().nullable().describe('The stored token masked (its last 4 characters), null when none'),
  channelIds: z.array(z.string()).optional(),
  tradingUserIds: z.array(z.string()),
  updatedAt: isoTime.optional(),
  connector: platformStatusSchema,
});

const chatOutput = z.object({
  chat_id: z.string(),
  reply: z.string(),
  intent: z.string(),
  params: z.record(z.string(), z.unknown()).optional(),
  confidence: z.number().min(0).max(1),
  executed: z.boolean().describe('True when a trading command was executed (an order placed or approved, a strategy changed)'),
  order: orderOutput.optional(),
  degraded: z.boolean().optional(),
});

const money = (what: string) => z.string().describe(what);
const feesRow = { orders: z.number().int(), volumeUsd: money('USD, 2 decimals'), feeUsd: money('USD, 6 decimals') };
const feesOutput = z.object({
  botId: z.string(),
  currency: z.literal('USD'),
  channels: z.array(z.object({ channel: z.enum(FEE_CHANNELS), ...feesRow })),
  total: z.object(feesRow),
  ordersWithoutFee: z
    .number()
    .int()
    .describe('Filled orders from before fees were kept on orders: in `orders` and `volumeUsd`, not in `feeUsd`'),
  from: isoTime.optional(),
  to: isoTime.optional(),
  asOf: isoTime,
});

/** The bot a call acts on; an agent is not one. */
function botOf(ctx: OperationContext): string {
  if (ctx.subject.type !== 'bot') throw AppError.notFound('Bot not found');
  return ctx.subject.id;
}

/**
 * The rest of the legacy bot surface (the legacy routes): web chat, the Telegram and Discord
 * configuration and connectors, and trading fees by channel. Operator-only, on bots the
 * operator owns (the binding's owner check answers 404 for anyone else's).
 */
export function botSurfaceOperations(deps: {
  chat: BotChat;
  configs: MessagingConfigs;
  platforms: BotPlatforms;
  fees: FeesByChannelReader;
}) {
  const operator = { family: 'bots', principals: ['operator'] } as const;
  const read = { ...operator, minScope: 'read', annotations: { readOnly: true, idempotent: true } } as const;
  const manage = { ...operator, minScope: 'manage', annotations: { destructive: false, idempotent: true } } as const;

  const configOperations = (platform: Platform, schema: typeof telegramConfigSchema | typeof discordConfigSchema) => {
    const Name = platform === 'telegram' ? 'Telegram' : 'Discord';
    const withConnector = async (botId: string, config: Awaited<ReturnType<MessagingConfigs['get']>>) => ({
      ...config,
      connector: await deps.platforms.status(botId, platform),
    });
    return [
      defineOperation({
        ...read,
        name: `bot_${platform}_config_get`,
        description: `The bot's ${Name} configuration (token masked) and the state of its ${Name} connector.`,
        input: z.object({}).strict(),
        output: configOutput,
        handler: async (ctx) => withConnector(botOf(ctx), await deps.configs.get(botOf(ctx), platform)),
      }),
      defineOperation({
        ...manage,
        name: `bot_${platform}_config_set`,
        description: `Update the bot's ${Name} configuration: the fields given are replaced, the others kept. A running connector picks the change up on its next poll.`,
        input: schema,
        output: configOutput,
        handler: async (ctx, input) => withConnector(botOf(ctx), await deps.configs.update(botOf(ctx), platform, input)),
      }),
    ];
  };

  const platformInput = z.object({ platform: z.enum(PLATFORMS).describe('`telegram` or `discord`') }).strict();
  const window = z
    .string()
    .datetime({ offset: true })
    .describe('ISO 8601 time')
    .transform((value) => Date.parse(value));

  return [
    defineOperation({
      ...operator,
      minScope: 'read',
      name: 'bot_chat',
      description:
        'Send the bot a chat message, as its web chat does. Questions are answered like `ask_bot` (with the conversation of `chat_id` in view); ' +
        'trading commands ("buy 0.5 SOL of BONK", "approve <order_id>") are executed through the same safety path as the trading command ' +
        "when the bot's trading is on (else the soft error `Trading bu bot icin kapali.`). The conversation is kept per `chat_id` (last 40 turns).",
      input: z
        .object({
          message: z.string().min(1).max(4000).describe('The question or command, 1-4000 characters.'),
          chat_id: z
            .string()
            .min(1)
            .max(256)
            .default('web')
            .describe('The conversation (1-256 characters, default `web`): its history is kept and read back for the reply.'),
          message_id: z
            .string()
            .min(1)
            .max(128)
            .optional()
            .describe('Your id of this message (1-128 characters): a trading command sent again with the same id places no second order.'),
        })
        .strict(),
      output: chatOutput,
      annotations: { destructive: false, idempotent: false },
      handler: (ctx, input) =>
        deps.chat.send({
          subject: { type: 'bot', id: botOf(ctx) },
          userId: ctx.userId ?? '',
          channel: 'chat',
          chatId: input.chat_id,
          message: input.message,
          mayTrade: true,
          // The owner in the console: the catalog's rules as on REST (the bot's MCP categories are its MCP's and its channels').
          caller: { kind: 'operator', scope: ctx.scope },
          ...(input.message_id ? { messageId: input.message_id } : {}),
        }),
    }),
    ...configOperations('telegram', telegramConfigSchema),
    ...configOperations('discord', discordConfigSchema),
    defineOperation({
      ...manage,
      name: 'bot_platform_start',
      description:
        "Start the bot's Telegram or Discord connector: it answers messages until stopped, also across restarts. 400 when the platform is not configured.",
      input: platformInput,
      output: platformStatusSchema,
      handler: (ctx, input) => deps.platforms.start(botOf(ctx), input.platform),
    }),
    defineOperation({
      ...manage,
      name: 'bot_platform_stop',
      description: "Stop the bot's Telegram or Discord connector.",
      input: platformInput,
      output: platformStatusSchema,
      handler: (ctx, input) => deps.platforms.stop(botOf(ctx), input.platform),
    }),
    defineOperation({
      ...read,
      name: 'bot_trading_fees_channels',
      description:
        "Venue fees of the bot's filled orders by the channel that placed them (web, mcp, telegram, discord, widget, dca), in USD at quote time.",
      input: z.object({ from: window.optional(), to: window.optional() }).strict(),
      output: feesOutput,
      handler: async (ctx, input) => {
        const botId = botOf(ctx);
        const fees = await deps.fees.read(
          { type: 'bot', id: botId },
          { ...(input.from !== undefined ? { from: input.from } : {}), ...(input.to !== undefined ? { to: input.to } : {}) },
        );
        return {
          botId,
          currency: 'USD' as const,
          ...fees,
          ...(input.from !== undefined ? { from: new Date(input.from).toISOString() } : {}),
          ...(input.to !== undefined ? { to: new Date(input.to).toISOString() } : {}),
        };
      },
    }),
  ];
}
