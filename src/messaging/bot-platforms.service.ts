import type { BotContext, BotEvent, BotInput, Platform, PlatformState } from '../../machines/bot.machine.js';
import { AppError } from '../../kernel/errors/app-error.js';
import type { ActorCollection } from '../../kernel/ports/actor-collection.port.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { MessagingConfigs } from './messaging-config.service.js';
import type { PlatformRunner } from './platform-runner.js';

/** A platform connector's state as routes show it. */
export interface PlatformStatusView {
  platform: Platform;
  status: PlatformState['status'];
  /** ISO 8601 of the last change. */
  since: string;
  /** Why the service stopped it (`tripped`). */
  reason?: string;
}

/**
 * Starting and stopping a legacy bot's platform connectors (the legacy routes
 * `platforms/:platform/start|stop`): a transition of the bot machine, which every process
 * reads, then this process's runner acts on it at once (others on their next sweep).
 */
export class BotPlatforms {
  constructor(
    private readonly deps: {
      bots: Pick<ActorCollection<BotContext, BotEvent, BotInput>, 'get' | 'send'>;
      configs: Pick<MessagingConfigs, 'settings'>;
      runner: Pick<PlatformRunner, 'ensure' | 'halt'>;
      clock: ClockPort;
    },
  ) {}

  /** Starts it (again, when stopped or tripped); 400 when it is not configured enough to run. */
  async start(botId: string, platform: Platform): Promise<PlatformStatusView> {
    await this.deps.configs.settings(botId, platform);
    const { view } = await this.deps.bots.send(botId, { type: 'bot.platform.start', platform, at: this.deps.clock.now() });
    this.deps.runner.ensure(botId, platform);
    return platformStatus(platform, view.context.platforms[platform]);
  }

  async stop(botId: string, platform: Platform): Promise<PlatformStatusView> {
    const { view } = await this.deps.bots.send(botId, { type: 'bot.platform.stop', platform, at: this.deps.clock.now() });
    await this.deps.runner.halt(botId, platform);
    return platformStatus(platform, view.context.platforms[platform]);
  }

  async status(botId: string, platform: Platform): Promise<PlatformStatusView> {
    const view = await this.deps.bots.get(botId);
    if (!view) throw AppError.notFound('Bot not found');
    return platformStatus(platform, view.context.platforms[platform]);
  }
}

function platformStatus(platform: Platform, state: PlatformState): PlatformStatusView {
  return { platform, status: state.status, since: new Date(state.since).toISOString(), ...(state.reason ? { reason: state.reason } : {}) };
}
