import { z } from 'zod';
import { SCOPES } from '../../../machines/api-key.machine.js';
import { createKeySchema, type ApiKeysService, type CreatedKey, type KeySummary } from '../../accounts/api-keys.service.js';
import { AppError } from '../../errors/app-error.js';
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
    'A name for the key, shown in key lists: 1-100 characters, no control or bidirectional formatting characters.',
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
        'Create an API key for this agent. The secret is returned once and never again. A manage key needs a stepUpToken from the step-up route.',
      family: 'keys',
      minScope: 'manage',
      principals: ['agent', 'bot', 'operator'],
      input: createKeyInput,
      output: createdKeySchema,
      handler: (ctx, input) => keys.create(userOf(ctx), owner(ctx), input),
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
  ];
}
