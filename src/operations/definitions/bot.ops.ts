import { z } from 'zod';
import { SCOPES } from '../../../kernel/vocabulary/scopes.js';
import { stepUpTokenSchema, type ApiKeysService } from '../../accounts/api-keys.service.js';
import {
  createBotSchema,
  mcpConfigSchema,
  patchBotSchema,
  replaceBotSchema,
  type Bot,
  type BotsService,
} from '../../accounts/bots.service.js';
import type { BotMcpConfig } from '../../../machines/bot.machine.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import type { OperationContext } from '../operation.types.js';
import { defineOperation, defineUnboundOperation } from '../operation-definition.js';
import { pageFields, pageSchema } from './list-paging.js';
import { createdKeySchema, keySummarySchema } from './key.ops.js';
import { emptyInput, pageOf, userOf } from './operator-paging.js';
import { isoTime } from './output-fields.js';

/** A platform connector's state; `tripped`: stopped by its circuit breaker, `reason` says why. */
const connectorState = z.object({ status: z.enum(['stopped', 'started', 'tripped']), since: isoTime, reason: z.string().optional() });

/** A legacy bot as its routes show it (`Bot` of the bots service). */
const botSchema = replaceBotSchema.extend({
  id: z.string(),
  publicId: z.string(),
  status: z.literal('active'),
  platforms: z.object({ telegram: connectorState, discord: connectorState }),
  createdAt: isoTime,
  updatedAt: isoTime,
}) satisfies z.ZodType<Bot>;

/** The stored MCP config: every field of the update schema, present. */
const botMcpConfigSchema = mcpConfigSchema.required() satisfies z.ZodType<BotMcpConfig>;

/** Input of `bot_token_rotate` (scope defaults to read); every field is optional. */
const rotateTokenSchema = z
  .object({
    scope: z.enum(SCOPES).default('read').describe('Scope of the new token (default read)'),
    stepUpToken: stepUpTokenSchema.describe('Step-up token, required for a manage token'),
  })
  .strict();

/** The bot a call acts on; an agent is not one. */
function botOf(ctx: OperationContext): string {
  if (ctx.subject.type !== 'bot') throw AppError.notFound('Bot not found');
  return ctx.subject.id;
}

/**
 * Legacy Studio bot management (the legacy routes), operator-only; a bot's MCP keys are the
 * key operations (`agent_keys_create`, `agent_keys_revoke`) acting on the bot.
 */
export function botOperations(bots: BotsService, keys: ApiKeysService) {
  const bot = { family: 'bots', minScope: 'manage', principals: ['operator'] } as const;
  const read = { family: 'bots', minScope: 'read', principals: ['operator'], annotations: { readOnly: true, idempotent: true } } as const;
  return [
    defineUnboundOperation({
      ...read,
      name: 'bot_list',
      description: 'List your bots.',
      target: 'owner',
      input: z.object(pageFields).strict(),
      output: pageSchema(botSchema),
      handler: (ctx, input) => bots.list(userOf(ctx), pageOf(input)),
    }),
    defineUnboundOperation({
      ...read,
      name: 'bot_list_simplified',
      description: 'Simplified list of your bots: id, name and status.',
      target: 'owner',
      input: z.object(pageFields).strict(),
      output: pageSchema(botSchema.pick({ id: true, name: true, status: true })),
      handler: async (ctx, input) => {
        const { items, nextCursor } = await bots.list(userOf(ctx), pageOf(input));
        return { items: items.map(({ id, name, status }) => ({ id, name, status })), ...(nextCursor ? { nextCursor } : {}) };
      },
    }),
    defineUnboundOperation({
      ...bot,
      name: 'bot_create',
      description: 'Create a bot.',
      target: 'owner',
      input: createBotSchema,
      output: botSchema,
      annotations: { destructive: false, idempotent: false },
      handler: (ctx, input) => bots.create(userOf(ctx), input),
    }),
    defineOperation({
      ...read,
      name: 'bot_get',
      description: 'Get a bot.',
      input: emptyInput,
      output: botSchema,
      handler: (ctx) => bots.get(userOf(ctx), botOf(ctx)),
    }),
    defineOperation({
      ...bot,
      name: 'bot_update',
      description: 'Update some fields of a bot.',
      input: patchBotSchema,
      output: botSchema,
      annotations: { destructive: false, idempotent: true },
      handler: (ctx, input) => bots.update(userOf(ctx), botOf(ctx), withoutUndefined(input)),
    }),
    defineOperation({
      ...bot,
      name: 'bot_replace',
      description: 'Replace a bot’s profile.',
      input: replaceBotSchema,
      output: botSchema,
      annotations: { destructive: false, idempotent: true },
      handler: (ctx, input) => bots.update(userOf(ctx), botOf(ctx), input),
    }),
    defineOperation({
      ...bot,
      name: 'bot_delete',
      description: 'Delete a bot; its keys are revoked.',
      input: emptyInput,
      output: z.object({ id: z.string(), deleted: z.literal(true) }),
      annotations: { destructive: true, idempotent: false },
      handler: (ctx) => bots.delete(userOf(ctx), botOf(ctx)),
    }),
    defineOperation({
      ...read,
      name: 'bot_mcp_config_get',
      description: 'MCP config of the bot and its keys. Keys page like every list: `nextCursor` leads to the next page.',
      input: z.object(pageFields).strict(),
      output: z.object({ config: botMcpConfigSchema, keys: z.array(keySummarySchema), nextCursor: z.string().optional() }),
      handler: async (ctx, input) => {
        const botId = botOf(ctx);
        const config = await bots.mcpConfig(userOf(ctx), botId);
        const { items, nextCursor } = await keys.list({ type: 'bot', id: botId }, pageOf(input));
        return { config, keys: items, ...(nextCursor ? { nextCursor } : {}) };
      },
    }),
    defineOperation({
      ...bot,
      name: 'bot_mcp_config_set',
      description: 'Update the MCP config of the bot.',
      input: mcpConfigSchema,
      output: z.object({ config: botMcpConfigSchema }),
      annotations: { destructive: false, idempotent: true },
      handler: async (ctx, input) => ({ config: await bots.configureMcp(userOf(ctx), botOf(ctx), withoutUndefined(input)) }),
    }),
    defineOperation({
      ...bot,
      name: 'bot_token_rotate',
      description: 'Rotate the MCP access token: a new bot key is created first, then the previous token is revoked.',
      input: rotateTokenSchema,
      output: createdKeySchema.extend({ revokedKeyId: z.string().optional() }),
      annotations: { destructive: true, idempotent: false },
      handler: async (ctx, input) => {
        const userId = userOf(ctx);
        const botId = botOf(ctx);
        const previous = (await bots.ownedView(userId, botId)).context;
        const owner = { type: 'bot' as const, id: botId };
        // The key it replaces is revoked right after: a rotation at the key cap still rotates.
        const created = await keys.create(
          userId,
          owner,
          { name: 'MCP access token', ...input },
          previous.mcpTokenKeyId ? { replaces: previous.mcpTokenKeyId } : {},
        );
        await bots.recordTokenRotation(botId, created.keyId);
        const revoked = previous.mcpTokenKeyId ? await keys.revoke(owner, previous.mcpTokenKeyId) : undefined;
        return { ...created, ...(revoked ? { revokedKeyId: revoked.keyId } : {}) };
      },
    }),
  ];
}

/** zod leaves optional fields out; the type says they may be undefined (exact optional property types). */
function withoutUndefined<T extends Record<string, unknown>>(input: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}
