import { assign, emit, setup } from 'xstate';
import type { MachineDefinition } from './machine-definition.types.js';

/** MCP settings of a legacy bot. */
export interface BotMcpConfig {
  enabled: boolean;
  /** `Tool not found: <name>` instead of `Method not found` for hidden tools. */
  granularErrors: boolean;
  /** Tool families switched off for this bot. */
  disabledCategories: string[];
}

/** The editable fields of a legacy Studio bot. */
export interface BotProfile {
  name: string;
  description: string;
  tradingEnabled: boolean;
}

/** The messaging platforms a bot can be connected to (the legacy routes `platforms/:platform`). */
export const PLATFORMS = ['telegram', 'discord'] as const;
export type Platform = (typeof PLATFORMS)[number];

/**
 * Whether a platform connector should run: `started` by its owner, `stopped` by its owner (or
 * never started), or `tripped`: stopped by the service because the connector kept failing
 * (its circuit breaker opened), with the reason; the owner starts it again.
 */
export interface PlatformState {
  status: 'stopped' | 'started' | 'tripped';
  /** Epoch ms of the last change. */
  since: number;
  /** Why it was tripped. */
  reason?: string;
}

/** A legacy Studio bot (retired as a user-facing path, kept for compatibility). */
export interface BotContext extends BotProfile {
  botId: string;
  publicId: string;
  ownerId: string;
  mcp: BotMcpConfig;
  /** The key currently serving as the bot's MCP access token. */
  mcpTokenKeyId?: string;
  /** Its platform connectors; a started one runs on one process of the service, also after a restart. */
  platforms: Record<Platform, PlatformState>;
  /** Epoch ms. */
  createdAt: number;
  updatedAt: number;
}

export type BotInput = Omit<BotContext, 'mcpTokenKeyId' | 'updatedAt' | 'platforms'>;

export type BotEvent =
  | { type: 'bot.update'; changes: Partial<BotProfile>; at: number }
  | { type: 'bot.mcp.configure'; changes: Partial<BotMcpConfig>; at: number }
  | { type: 'bot.mcp.token.rotated'; keyId: string; at: number }
  | { type: 'bot.platform.start'; platform: Platform; at: number }
  | { type: 'bot.platform.stop'; platform: Platform; at: number }
  | { type: 'bot.platform.trip'; platform: Platform; reason: string; at: number }
  | { type: 'bot.delete'; at: number };

export const DEFAULT_BOT_MCP: BotMcpConfig = { enabled: true, granularErrors: false, disabledCategories: [] };

function stoppedPlatforms(at: number): Record<Platform, PlatformState> {
  return { telegram: { status: 'stopped', since: at }, discord: { status: 'stopped', since: at } };
}

type PlatformEvent = Extract<BotEvent, { type: `bot.platform.${string}` }>;
const platformOf = (event: BotEvent): Platform => (event as PlatformEvent).platform;
const statusOf = (context: BotContext, event: BotEvent) => context.platforms[platformOf(event)].status;

/** The platforms' states after `event` (a new object: snapshots are shared). */
function withPlatform(context: BotContext, event: BotEvent, next: PlatformState): Record<Platform, PlatformState> {
  return { ...context.platforms, [platformOf(event)]: next };
}

export const botMachine = setup({
  types: {
    context: {} as BotContext,
    input: {} as BotInput,
    events: {} as BotEvent,
    emitted: {} as { type: 'bot.updated' | 'bot.deleted'; botId: string },
  },
  actions: {
    announce: emit(({ context }) => ({ type: 'bot.updated' as const, botId: context.botId })),
  },
  guards: {
    // A no-op start or stop is not accepted (nothing is written); a tripped connector can be started or stopped.
    notStarted: ({ context, event }) => statusOf(context, event) !== 'started',
    notStopped: ({ context, event }) => statusOf(context, event) !== 'stopped',
    started: ({ context, event }) => statusOf(context, event) === 'started',
  },
}).createMachine({
  id: 'bot',
  initial: 'active',
  context: ({ input }) => ({ ...input, platforms: stoppedPlatforms(input.createdAt), updatedAt: input.createdAt }),
  states: {
    active: {
      on: {
        'bot.update': {
          actions: [assign(({ context, event }) => ({ ...context, ...event.changes, updatedAt: event.at })), 'announce'],
        },
        'bot.mcp.configure': {
          actions: [assign(({ context, event }) => ({ mcp: { ...context.mcp, ...event.changes }, updatedAt: event.at })), 'announce'],
        },
        'bot.mcp.token.rotated': {
          actions: assign({ mcpTokenKeyId: ({ event }) => event.keyId, updatedAt: ({ event }) => event.at }),
        },
        'bot.platform.start': {
          guard: 'notStarted',
          actions: [
            assign(({ context, event }) => ({
              platforms: withPlatform(context, event, { status: 'started', since: event.at }),
              updatedAt: event.at,
            })),
            'announce',
          ],
        },
        'bot.platform.stop': {
          guard: 'notStopped',
          actions: [
            assign(({ context, event }) => ({
              platforms: withPlatform(context, event, { status: 'stopped', since: event.at }),
              updatedAt: event.at,
            })),
            'announce',
          ],
        },
        // Only a running connector trips: a stop that raced the breaker stays a stop.
        'bot.platform.trip': {
          guard: 'started',
          actions: [
            assign(({ context, event }) => ({
              platforms: withPlatform(context, event, {
                status: 'tripped',
                since: event.at,
                reason: (event as Extract<BotEvent, { type: 'bot.platform.trip' }>).reason,
              }),
              updatedAt: event.at,
            })),
            'announce',
          ],
        },
        'bot.delete': {
          target: 'deleted',
          // A deleted bot's connectors stop with it.
          actions: [
            assign({ platforms: ({ event }) => stoppedPlatforms(event.at), updatedAt: ({ event }) => event.at }),
            emit(({ context }) => ({ type: 'bot.deleted' as const, botId: context.botId })),
          ],
        },
      },
    },
    deleted: { type: 'final' },
  },
});

export const botDefinition: MachineDefinition<BotContext, BotEvent, BotInput> = {
  type: 'bot',
  version: 2,
  machine: botMachine,
  migrations: {
    // v2 adds the platform connectors, all stopped (v1 had none).
    1: (persisted) => {
      const context = persisted.context as Record<string, unknown> & { updatedAt: number };
      return { ...persisted, context: { ...context, platforms: stoppedPlatforms(context.updatedAt) } };
    },
  },
  // `platforms`: `started` while a connector should run, so every process finds them without a scan.
  indexNames: ['ownerId', 'publicId', 'platforms'],
  indexes: (context) => ({
    ownerId: context.ownerId,
    publicId: context.publicId,
    platforms: Object.values(context.platforms).some((platform) => platform.status === 'started') ? 'started' : 'none',
  }),
  stream: (context) => `bot:${context.botId}`,
};
