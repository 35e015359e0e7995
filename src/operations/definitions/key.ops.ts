import { z } from 'zod';
import { SCOPES } from '../../../kernel/vocabulary/scopes.js';
import {
  MAX_ROTATION_GRACE_S,
  createKeySchema,
  type ApiKeysService,
  type CreatedKey,
  type KeySummary,
} from '../../accounts/api-keys.service.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import type { OperationContext } from '../operation.types.js';
import { defineOperation } from '../operation-definition.js';
import { pageFields } from './list-paging.js';
import { isoTime } from './output-fields.js';

/**
 * `createKeySchema` (REST validates bot keys with it too) with what each field is; `extend`
 * keeps its checks and its strictness.
 */
const createKeyInput = createKeySchema.extend({
  name: createKeySchema.shape.name.describe(
    'A name for the key, shown in key lists: 1-100 characters, no control, invisible or bidirectional formatting characters.',
  ),
  scope: createKeySchema.shape.scope.describe(
    'What the key may do: `read` (status, portfolio, research), `trade` (read plus trading and strategies) or `manage` (everything, keys and risk settings included).',
  ),
  stepUpToken: createKeySchema.shape.stepUpToken.describe(
    'Required for a `manage` key, ignored otherwise: the token the owner gets by step-up with a TOTP code (`POST /api/nest/agents/:agentId/control/mcp/step-up`, ' +
      'for a bot `POST /api/nest/bots/:botId/mcp/step-up`); it works once, within 5 minutes.',
  ),
});

/** A key as every key list shows it (agents and legacy bots alike); the secret is never in it. */
export const keySummarySchema = z.object({
  keyId: z.string(),
  name: z.string(),
  prefix: z.string().describe('First 13 characters of the key; safe to display'),
  maskedSecret: z.string(),
  scope: z.enum(SCOPES),
  createdAt: isoTime,
  expiresAt: isoTime,
  status: z.enum(['active', 'revoked', 'expired']),
}) satisfies z.ZodType<KeySummary>;

/** A key just created: its summary and the full key, returned exactly once. */
export const createdKeySchema = keySummarySchema.extend({
  secret: z.string().describe('The full key, returned exactly once'),
}) satisfies z.ZodType<CreatedKey>;

/** The keys a rotation made, each with its one-time secret and the key it replaces. */
/** How long rotated keys keep working: one field for the owner's rotate route and the manage key's tool. */
export const rotationGraceSeconds = z
  .number()
  .int()
  .min(0)
  .max(MAX_ROTATION_GRACE_S)
  .default(0)
  .describe(`Seconds the old keys keep working (0-${MAX_ROTATION_GRACE_S}); default 0: they stop at once.`);

export const rotatedKeysSchema = z.object({
  keys: z.array(
    createdKeySchema.extend({
      replaces: z.string().describe('The keyId of the key this one replaces'),
      replacedExpiresAt: z.string().describe('ISO 8601 time the replaced key stops working'),
    }),
  ),
});

/** The scopes a credential operating the agent may give keys: never `manage`. */
const CREDENTIAL_KEY_SCOPES = ['read', 'trade'] as const;

/**
 * A manage key comes only from the owner's session with a step-up: a key or identity token
 * that could make one (or rotate one into a fresh secret) would outlive its own revocation.
 */
const MANAGE_KEY_OWNER_ONLY = "A manage key can only be created or rotated by the agent's owner";

/** True when the call comes from a credential operating the agent (a key or identity token), not its owner's session. */
const byCredential = (ctx: OperationContext) => ctx.principal.type !== 'session';

/** Key management of the agent (or legacy bot) the call acts on; `manage` scope. */
export function keyOperations(keys: ApiKeysService) {
  const owner = (ctx: OperationContext) => ({ type: ctx.subject.type, id: ctx.subject.id });
  const userOf = (ctx: OperationContext) => {
    if (!ctx.userId) throw AppError.forbidden();
    return ctx.userId;
  };
  return [
    defineOperation({
      name: 'agent_keys_list',
      description: 'List the API keys of this agent: name, prefix, masked secret, scope, creation, expiry and status.',
      family: 'keys',
      minScope: 'manage',
      principals: ['agent', 'bot', 'operator'],
      input: z.object(pageFields).strict(),
      output: z.object({ items: z.array(keySummarySchema), nextCursor: z.string().optional() }),
      annotations: { readOnly: true, idempotent: true },
      handler: (ctx, input) => keys.list(owner(ctx), input.cursor ? { limit: input.limit, cursor: input.cursor } : { limit: input.limit }),
    }),
    defineOperation({
      name: 'agent_keys_create',
      description:
        'Create an API key for this agent. The secret is returned once and never again. A manage key needs a stepUpToken from the ' +
        "step-up route and only the agent's owner can create one: a key or identity token creates read and trade keys.",
      family: 'keys',
      minScope: 'manage',
      principals: ['agent', 'bot', 'operator'],
      input: createKeyInput,
      output: createdKeySchema,
      handler: (ctx, input) => {
        if (input.scope === 'manage' && byCredential(ctx)) throw AppError.forbidden(MANAGE_KEY_OWNER_ONLY);
        return keys.create(userOf(ctx), owner(ctx), input);
      },
    }),
    defineOperation({
      name: 'agent_keys_revoke',
      description: 'Revoke an API key of this agent at once and for good.',
      family: 'keys',
      minScope: 'manage',
      principals: ['agent', 'bot', 'operator'],
      input: z.object({ keyId: z.string().min(1).max(128).describe('The key to revoke, by its keyId (`agent_keys_list`).') }).strict(),
      output: keySummarySchema,
      annotations: { destructive: true, idempotent: true },
      handler: (ctx, input) => keys.revoke(owner(ctx), input.keyId),
    }),
    defineOperation({
      name: 'agent_keys_rotate',
      description:
        "Rotate this agent's read and trade keys: per active one (or only `keyId`), a new key of the same name and scope; the old " +
        'one stops working after `graceSeconds`. The answer carries each new secret, once. Manage keys are rotated by the owner only.',
      family: 'keys',
      minScope: 'manage',
      principals: ['agent', 'bot'],
      input: z
        .object({
          keyId: z
            .string()
            .min(1)
            .max(128)
            .optional()
            .describe('Rotate only this key (a read or trade key); default: every active read and trade key.'),
          graceSeconds: rotationGraceSeconds,
        })
        .strict(),
      output: rotatedKeysSchema,
      handler: async (ctx, input) => {
        if (input.keyId !== undefined && (await keys.ownedView(owner(ctx), input.keyId)).context.scope === 'manage')
          throw AppError.forbidden(MANAGE_KEY_OWNER_ONLY);
        const rotation = { graceSeconds: input.graceSeconds, scopes: CREDENTIAL_KEY_SCOPES };
        return { keys: await keys.rotate(userOf(ctx), owner(ctx), input.keyId ? { ...rotation, keyId: input.keyId } : rotation) };
      },
    }),
  ];
}
