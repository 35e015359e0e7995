import type { Logger } from 'pino';
import type { BotContext, BotEvent, BotInput, Platform } from '../../machines/bot.machine.js';
import { PLATFORMS } from '../../machines/bot.machine.js';
import type { BotChat } from '../../agents/chat/bot-chat.js';
import { isAppError, isFaultKind } from '../../kernel/errors/app-error.js';
import type { ActorCollection } from '../../kernel/ports/actor-collection.port.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { IncomingMessage, MessagingPlatformPort, PlatformClient } from '../../kernel/ports/messaging-platform.port.js';
import type { MessagingConfigs, PlatformSettings } from './messaging-config.service.js';
import type { PlatformLeases } from './platform-leases.js';

/** A circuit breaker around one connector's platform calls (cockatiel's, built by the composition root). */
export interface ConnectorBreaker {
  execute<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T>;
  state(): 'closed' | 'open' | 'half_open';
  /** The refusal of an open breaker (`Circuit breaker open for provider: <platform>`). */
  openError(): Error;
}

export interface PlatformRunnerDeps {
  bots: Pick<ActorCollection<BotContext, BotEvent, BotInput>, 'get' | 'find' | 'send'>;
  configs: Pick<MessagingConfigs, 'settings'>;
  platforms: Record<Platform, MessagingPlatformPort>;
  chat: Pick<BotChat, 'send'>;
  leases: PlatformLeases;
  /** A fresh breaker per connection run. */
  breaker: (platform: Platform) => ConnectorBreaker;
  clock: ClockPort;
  logger: Logger;
  /** First pause after a failed poll; doubles per failure up to 30 s. */
  retryMs: number;
  /** How often every started connector is looked for (those of other processes that died, or started elsewhere). */
  sweepMs: number;
  /** How often a running connector renews its lease (a third of the lease). */
  renewMs: number;
}

const MAX_RETRY_MS = 30_000;
const SORRY = 'Sorry, something went wrong while answering. Please try again.';

/**
 * Runs the Telegram and Discord connectors of legacy bots whose platform is `started` in the
 * bot machine: one loop per bot and platform, on the process holding its lease. Each loop
 * polls the platform, hands every message to the chat core, sends the answer back, and
 * stores its cursor. A loop ends when its platform is no longer started (stopped here or on
 * another process, the bot deleted), when the service stops, or when its circuit breaker
 * opens: then the bot's platform is tripped, with the reason, and stays stopped until its
 * owner starts it again.
 */
export class PlatformRunner {
  private readonly loops = new Map<string, { abort: AbortController; done: Promise<void> }>();
  private cancelSweep: (() => void) | undefined;
  private stopped = false;

  constructor(private readonly deps: PlatformRunnerDeps) {}

  /** Starts every started connector, then looks again every `sweepMs`. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.sweep();
    const again = () => {
      this.cancelSweep = this.deps.clock.setTimer(() => {
        void this.sweep()
          .catch((error: unknown) => this.deps.logger.error({ err: error }, 'platform connector sweep failed'))
          .finally(() => {
            if (!this.stopped) again();
          });
      }, this.deps.sweepMs);
    };
    again();
  }

  /** Ends every loop here (their leases are released for another process). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelSweep?.();
    const running = [...this.loops.values()];
    for (const loop of running) loop.abort.abort();
    await Promise.all(running.map((loop) => loop.done));
  }

  /** Runs the connector here now, unless it runs already (started by its owner on this process). */
  ensure(botId: string, platform: Platform): void {
    const key = `${botId}:${platform}`;
    if (this.stopped || this.loops.has(key)) return;
    const abort = new AbortController();
    const done = this.run(botId, platform, abort.signal)
      .catch((error: unknown) => this.deps.logger.error({ err: error, botId, platform }, 'platform connector ended with an error'))
      .finally(() => {
        if (this.loops.get(key)?.abort === abort) this.loops.delete(key);
      });
    this.loops.set(key, { abort, done });
  }

  /** Ends the connector's loop here now (stopped by its owner on this process). */
  async halt(botId: string, platform: Platform): Promise<void> {
    const loop = this.loops.get(`${botId}:${platform}`);
    loop?.abort.abort();
    await loop?.done;
  }

  private async sweep(): Promise<void> {
    let cursor: string | undefined;
    do {
      const page = await this.deps.bots.find({ index: 'platforms', eq: 'started' }, { limit: 200, ...(cursor ? { cursor } : {}) });
      for (const view of page.items) {
        if (view.state !== 'active') continue;
        for (const platform of PLATFORMS) if (view.context.platforms[platform].status === 'started') this.ensure(view.id, platform);
      }
      cursor = page.nextCursor;
    } while (cursor && !this.stopped);
  }

  private async run(botId: string, platform: Platform, signal: AbortSignal): Promise<void> {
    const { deps } = this;
    if (!(await deps.leases.take(botId, platform))) return;
    const log = deps.logger.child({ botId, platform });
    const breaker = deps.breaker(platform);
    let connection: { settings: PlatformSettings; client: PlatformClient; cursor: string | undefined } | undefined;
    let renewAt = deps.clock.now() + deps.renewMs;
    let failures = 0;
    log.info('platform connector running');
    try {
      while (!signal.aborted) {
        // Read every round: a stop, a trip or a delete on any process ends this loop.
        const bot = await deps.bots.get(botId);
        if (bot?.state !== 'active' || bot.context.platforms[platform].status !== 'started') return;
        if (deps.clock.now() >= renewAt) {
          if (!(await deps.leases.take(botId, platform))) return;
          renewAt = deps.clock.now() + deps.renewMs;
        }
        try {
          // The token is opened once per connection: again only when the configuration changed.
          const settings = await deps.configs.settings(botId, platform, connection?.settings);
          if (connection?.settings.version !== settings.version) {
            // New credentials (or the first round): connect, and resume where these credentials left off.
            connection = {
              settings,
              client: deps.platforms[platform].connect(settings),
              cursor: await deps.leases.cursor(botId, platform, settings.version),
            };
          }
          const { client } = connection;
          const poll = await breaker.execute((callSignal) => client.poll(connection?.cursor, AbortSignal.any([callSignal, signal])));
          // The bot as it is now, not as before a long poll: its MCP categories and trading switch apply to these messages.
          const current = poll.messages.length > 0 ? await deps.bots.get(botId) : bot;
          if (current?.state !== 'active' || current.context.platforms[platform].status !== 'started') return;
          for (const message of poll.messages) {
            if (signal.aborted) return;
            const reply = await this.answer(current.context, platform, settings, message);
            await breaker.execute((callSignal) => client.send(message.chatId, reply, message, AbortSignal.any([callSignal, signal])));
          }
          connection.cursor = poll.cursor;
          await deps.leases.save(botId, platform, poll.cursor, settings.version);
          failures = 0;
        } catch (error) {
          if (signal.aborted) return;
          if (breaker.state() === 'open') {
            await this.trip(botId, platform, breaker, error);
            return;
          }
          if (isAppError(error) && error.code === 'RESOURCE_CONFLICT') return; // the lease went to another process
          log.warn({ err: error, failures: failures + 1 }, 'platform connector call failed');
          await pause(Math.min(deps.retryMs * 2 ** failures, MAX_RETRY_MS), deps.clock, signal);
          failures++;
        }
      }
    } finally {
      await deps.leases.release(botId, platform).catch((error: unknown) => log.warn({ err: error }, 'platform lease release failed'));
      log.info('platform connector ended');
    }
  }

  /** The chat core's answer; a refusal (trading off, a safety check) is said as its message. */
  private async answer(bot: BotContext, platform: Platform, settings: PlatformSettings, message: IncomingMessage): Promise<string> {
    try {
      const answer = await this.deps.chat.send({
        subject: { type: 'bot', id: bot.botId },
        userId: bot.ownerId,
        channel: platform,
        chatId: message.chatId,
        message: message.text.slice(0, 4000),
        mayTrade: settings.tradingUserIds.includes(message.userId),
        // The bot on its own channel: the catalog's rules as for its MCP key, its disabled categories included.
        caller: { kind: 'bot', scope: 'trade', disabledFamilies: bot.mcp.disabledCategories },
        // Read once for the messages of this poll; the safety path reads it again before any order.
        tradingEnabled: bot.tradingEnabled,
        messageId: message.messageId,
      });
      return answer.reply;
    } catch (error) {
      if (isAppError(error) && !isFaultKind(error.kind)) return error.messages?.join('; ') ?? error.message;
      if (isAppError(error) && error.retryable) return error.message;
      this.deps.logger.error({ err: error, botId: bot.botId, platform }, 'platform message could not be answered');
      return SORRY;
    }
  }

  private async trip(botId: string, platform: Platform, breaker: ConnectorBreaker, error: unknown): Promise<void> {
    const last =
      error instanceof Error && !(isAppError(error) && error.code === 'CIRCUIT_BREAKER_OPEN') ? `; last error: ${error.message}` : '';
    const reason = `${breaker.openError().message}${last}`;
    this.deps.logger.warn({ botId, platform, reason }, 'platform connector stopped by its circuit breaker');
    await this.deps.bots.send(botId, { type: 'bot.platform.trip', platform, reason, at: this.deps.clock.now() });
  }
}

/** Waits `ms` on the clock, or less when `signal` aborts. */
function pause(ms: number, clock: ClockPort, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const cancel = clock.setTimer(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      cancel();
      resolve();
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
