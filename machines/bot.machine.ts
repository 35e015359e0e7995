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

/** A legacy Studio bot (retired as a user-facing path, kept for compatibility). */
export interface BotContext extends BotProfile {
  botId: string;
  publicId: string;
  ownerId: string;
  mcp: BotMcpConfig;
  /** The key currently serving as the bot's MCP access token. */
  mcpTokenKeyId?: string;
  /** Epoch ms. */
  createdAt: number;
  updatedAt: number;
}

export type BotInput = Omit<BotContext, 'mcpTokenKeyId' | 'updatedAt'>;

export type BotEvent =
  | { type: 'bot.update'; changes: Partial<BotProfile>; at: number }
  | { type: 'bot.mcp.configure'; changes: Partial<BotMcpConfig>; at: number }
  | { type: 'bot.mcp.token.rotated'; keyId: string; at: number }
  | { type: 'bot.delete'; at: number };

export const DEFAULT_BOT_MCP: BotMcpConfig = { enabled: true, granularErrors: false, disabledCategories: [] };

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
}).createMachine({
  id: 'bot',
  initial: 'active',
  context: ({ input }) => ({ ...input, updatedAt: input.createdAt }),
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
        'bot.delete': {
          target: 'deleted',
          actions: [assign({ updatedAt: ({ event }) => event.at }), emit(({ context }) => ({ type: 'bot.deleted' as const, botId: context.botId }))],
        },
      },
    },
    deleted: { type: 'final' },
  },
});

export const botDefinition: MachineDefinition<BotContext, BotEvent, BotInput> = {
  type: 'bot',
  version: 1,
  machine: botMachine,
  indexNames: ['ownerId', 'publicId'],
  indexes: (context) => ({ ownerId: context.ownerId, publicId: context.publicId }),
  stream: (context) => `bot:${context.botId}`,
};
