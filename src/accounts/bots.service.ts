import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import {
  DEFAULT_BOT_MCP,
  PLATFORMS,
  type BotContext,
  type BotEvent,
  type BotInput,
  type BotMcpConfig,
  type BotProfile,
  type Platform,
  type PlatformState,
} from '../../machines/bot.machine.js';
import { AppError } from '../../kernel/errors/app-error.js';
import { randomId } from '../../kernel/vocabulary/ids.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { ApiKeysService } from './api-keys.service.js';
import { countUpTo, type OwnerCaps } from './owner-caps.js';
import type { ActorCollection, ActorView } from '../../kernel/ports/actor-collection.port.js';
import { freeTextSchema, nameSchema } from '../../kernel/shared/name.schema.js';

/** A legacy bot as its routes show it. */
export interface Bot extends BotProfile {
  id: string;
  publicId: string;
  status: 'active';
  /** Its Telegram and Discord connectors: `tripped` (with `reason`) when the service stopped one that kept failing. */
  platforms: Record<Platform, { status: PlatformState['status']; since: string; reason?: string }>;
  createdAt: string;
  updatedAt: string;
}

const profileFields = {
  name: nameSchema().describe('Display name of the bot'),
  description: freeTextSchema(2000).describe(
    'Free text about the bot, up to 2000 characters; tabs and line feeds allowed, other control, invisible and bidirectional formatting characters not',
  ),
  tradingEnabled: z.boolean().describe('Whether the bot may trade'),
};

/** PUT replaces the whole profile; POST needs a name; PATCH changes what it names. */
export const createBotSchema = z
  .object({
    ...profileFields,
    description: profileFields.description.default(''),
    tradingEnabled: profileFields.tradingEnabled.default(false),
  })
  .strict();
export const replaceBotSchema = z.object(profileFields).strict();
export const patchBotSchema = z
  .object(profileFields)
  .partial()
  .strict()
  .refine((value) => Object.keys(value).length > 0, { message: 'at least one field is required' });
export const mcpConfigSchema = z
  .object({
    enabled: z.boolean().describe('Whether the bot answers MCP calls'),
    granularErrors: z.boolean().describe('`Tool not found: <name>` instead of the generic error for unknown tools'),
    disabledCategories: z.array(z.string().min(1).max(64)).max(50).describe('Tool families switched off for this bot'),
  })
  .partial()
  .strict();

const BOT_NOT_FOUND = 'Bot not found';

/** Legacy Studio bots: each is a `bot` actor owned by one user. */
export class BotsService {
  constructor(
    private readonly bots: ActorCollection<BotContext, BotEvent, BotInput>,
    private readonly clock: ClockPort,
    private readonly keys: Pick<ApiKeysService, 'revokeAll'>,
    private readonly caps: OwnerCaps,
    /** At most this many live bots per user (`MAX_BOTS_PER_USER`); deleted ones do not count. */
    private readonly maxBots: number,
  ) {}

  /** A new bot; 409 `Bot limit reached: ...` when the user holds `maxBots` live bots already. */
  async create(ownerId: string, input: z.infer<typeof createBotSchema>): Promise<Bot> {
    const count = (cap: number) =>
      countUpTo(
        cap,
        (cursor) => this.bots.find({ index: 'ownerId', eq: ownerId }, { limit: 200, ...(cursor ? { cursor } : {}) }),
        (view) => view.state === 'active',
      );
    return this.caps.create(`bots:${ownerId}`, this.maxBots, `Bot limit reached: at most ${this.maxBots} bots per user`, count, () =>
      this.createUncapped(ownerId, input),
    );
  }

  private async createUncapped(ownerId: string, input: z.infer<typeof createBotSchema>): Promise<Bot> {
    const botId = `bot_${randomBytes(12).toString('base64url')}`;
    const publicId = randomId('pub');
    const view = await this.bots.create(botId, {
      botId,
      publicId,
      ownerId,
      ...input,
      mcp: DEFAULT_BOT_MCP,
      createdAt: this.clock.now(),
    });
    return toBot(view);
  }

  /** The user's bots, deleted ones left out. */
  async list(ownerId: string, page: { limit: number; cursor?: string }): Promise<{ items: Bot[]; nextCursor?: string }> {
    const docs = await this.bots.find({ index: 'ownerId', eq: ownerId }, page);
    const views = docs.items.filter((view) => view.state === 'active');
    return { items: views.map(toBot), ...(docs.nextCursor ? { nextCursor: docs.nextCursor } : {}) };
  }

  async get(ownerId: string, botId: string): Promise<Bot> {
    return toBot(await this.ownedView(ownerId, botId));
  }

  async update(ownerId: string, botId: string, changes: Partial<BotProfile>): Promise<Bot> {
    await this.ownedView(ownerId, botId);
    const { view } = await this.bots.send(botId, { type: 'bot.update', changes, at: this.clock.now() });
    return toBot(view);
  }

  /**
   * Deletes the bot and revokes its keys, so none of them authenticates any more. Keys go
   * first: if that fails, the bot is still there and the DELETE can be retried.
   */
  async delete(ownerId: string, botId: string): Promise<{ id: string; deleted: true }> {
    await this.ownedView(ownerId, botId);
    await this.keys.revokeAll({ type: 'bot', id: botId });
    await this.bots.send(botId, { type: 'bot.delete', at: this.clock.now() });
    return { id: botId, deleted: true };
  }

  async mcpConfig(ownerId: string, botId: string): Promise<BotMcpConfig> {
    return (await this.ownedView(ownerId, botId)).context.mcp;
  }

  async configureMcp(ownerId: string, botId: string, changes: Partial<BotMcpConfig>): Promise<BotMcpConfig> {
    await this.ownedView(ownerId, botId);
    const { view } = await this.bots.send(botId, { type: 'bot.mcp.configure', changes, at: this.clock.now() });
    return view.context.mcp;
  }

  async recordTokenRotation(botId: string, keyId: string): Promise<void> {
    await this.bots.send(botId, { type: 'bot.mcp.token.rotated', keyId, at: this.clock.now() });
  }

  /** A live bot the user owns; 404 for missing, deleted or someone else's. */
  async ownedView(ownerId: string, botId: string): Promise<ActorView<BotContext>> {
    const view = await this.bots.get(botId);
    if (view?.state !== 'active' || view.context.ownerId !== ownerId) throw AppError.notFound(BOT_NOT_FOUND);
    return view;
  }
}

function toBot(view: ActorView<BotContext>): Bot {
  const c = view.context;
  return {
    id: c.botId,
    publicId: c.publicId,
    name: c.name,
    description: c.description,
    tradingEnabled: c.tradingEnabled,
    status: 'active',
    platforms: Object.fromEntries(
      PLATFORMS.map((platform) => {
        const { status, since, reason } = c.platforms[platform];
        return [platform, { status, since: new Date(since).toISOString(), ...(reason ? { reason } : {}) }];
      }),
    ) as Bot['platforms'],
    createdAt: new Date(c.createdAt).toISOString(),
    updatedAt: new Date(c.updatedAt).toISOString(),
  };
}
