import { DiscordRestApi } from '../../adapters/messaging/discord-rest.adapter.js';
import { TelegramBotApi } from '../../adapters/messaging/telegram-bot-api.adapter.js';
import { ProviderBreaker } from '../../adapters/resilience/provider-breaker.js';
import type { AskBot } from '../../agents/chat/ask-bot.js';
import { BotChat, CHAT_HISTORY_COLLECTION } from '../../agents/chat/bot-chat.js';
import type { TradingCommand } from '../../agents/chat/trading-command.js';
import type { StatusReader } from '../../agents/portfolio/portfolio.types.js';
import { FeesByChannelReader } from '../../agents/trading/fees-by-channel.js';
import { botDefinition, type Platform } from '../../machines/bot.machine.js';
import { orderDefinition } from '../../machines/order.machine.js';
import { SecretBox } from '../../kernel/crypto/secret-box.js';
import { BOT_SURFACE_BINDINGS } from '../http/routes/bot-surface.bindings.js';
import { BotPlatforms } from '../messaging/bot-platforms.service.js';
import { BOT_TOKENS_PURPOSE, MESSAGING_CONFIG_COLLECTION, MessagingConfigs } from '../messaging/messaging-config.service.js';
import { PLATFORM_LEASE_COLLECTION, PlatformLeases } from '../messaging/platform-leases.js';
import { PlatformRunner } from '../messaging/platform-runner.js';
import { commandGate } from '../operations/command-gate.js';
import { botSurfaceOperations } from '../operations/definitions/bot-surface.ops.js';
import type { FeatureModule, ModuleContext } from './feature-module.types.js';

/** Slack over a platform call's own wait (Telegram's long poll, Discord's pause) before its breaker calls it timed out. */
const CALL_SLACK_MS = 10_000;

/**
 * The rest of the legacy bot surface (the legacy routes): web chat through `ask_bot`
 * and the command executor (chat module, trading module), Telegram and Discord
 * configuration and connectors (started ones run from this module's start, on the process
 * holding their lease), and trading fees by channel.
 */
export function botSurfaceModule(
  ctx: ModuleContext,
  needs: { askBot: AskBot; command: TradingCommand; status: StatusReader },
): FeatureModule & { chat: BotChat } {
  const settings = ctx.config.messaging;
  const bots = ctx.runtime.collection(botDefinition);
  const chat = new BotChat({
    ask: needs.askBot,
    command: needs.command,
    status: needs.status,
    // Commands in a chat are refused as the catalog refuses their operation (switched-off families included).
    gate: commandGate(ctx.catalog),
    store: ctx.store,
    clock: ctx.clock,
  });
  const configs = new MessagingConfigs({
    store: ctx.store,
    box: new SecretBox(ctx.secrets.DATA_ENCRYPTION_KEY, BOT_TOKENS_PURPOSE),
    clock: ctx.clock,
  });
  const platforms = {
    telegram: new TelegramBotApi({ baseUrl: settings.telegramApiUrl, pollTimeoutSeconds: settings.telegramPollTimeoutSeconds }),
    discord: new DiscordRestApi({ baseUrl: settings.discordApiUrl, pollIntervalMs: settings.discordPollIntervalMs }),
  };
  const callBudgetMs: Record<Platform, number> = {
    telegram: settings.telegramPollTimeoutSeconds * 1000 + CALL_SLACK_MS,
    discord: settings.discordPollIntervalMs + CALL_SLACK_MS,
  };
  const runner = new PlatformRunner({
    bots,
    configs,
    platforms,
    chat,
    leases: new PlatformLeases({ store: ctx.store, clock: ctx.clock, leaseMs: settings.leaseMs }),
    breaker: (platform) =>
      new ProviderBreaker({
        provider: platform,
        threshold: settings.breaker.threshold,
        openMs: settings.breaker.openMs,
        timeoutMs: callBudgetMs[platform],
        clock: ctx.clock,
        logger: ctx.logger,
      }),
    clock: ctx.clock,
    logger: ctx.logger.child({ module: 'bot-platforms' }),
    retryMs: settings.retryMs,
    sweepMs: settings.sweepMs,
    renewMs: Math.max(1, Math.floor(settings.leaseMs / 3)),
  });
  const botPlatforms = new BotPlatforms({ bots, configs, runner, clock: ctx.clock });
  const fees = new FeesByChannelReader(ctx.runtime.collection(orderDefinition), ctx.clock);

  return {
    chat,
    name: 'bot-surface',
    definitions: [],
    collections: [CHAT_HISTORY_COLLECTION, MESSAGING_CONFIG_COLLECTION, PLATFORM_LEASE_COLLECTION],
    operations: botSurfaceOperations({ chat, configs, platforms: botPlatforms, fees }),
    bindings: BOT_SURFACE_BINDINGS,
    routers: [],
    dueJobs: [],
    // Connectors of started bots run again with the service (their state is the bot machine's).
    start: () => runner.start(),
    stop: () => runner.stop(),
  };
}
