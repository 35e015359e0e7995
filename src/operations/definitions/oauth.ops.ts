import { z } from 'zod';
import type { OAuthGrantContext, OAuthGrantEvent } from '../../../machines/oauth-grant.machine.js';
import type { ActorCollection } from '../../../kernel/ports/actor-collection.port.js';
import { SCOPES } from '../../../kernel/vocabulary/scopes.js';
import { consentSchema, type AuthorizationView, type GrantSummary, type OAuthGrants } from '../../auth/oauth/oauth-grants.service.js';
import { defineOperation, defineUnboundOperation } from '../operation-definition.js';
import { emptyInput, userOf } from './operator-paging.js';
import { isoTime } from './output-fields.js';

const authorizationId = z.string().min(1).max(64).describe('The `authorization_id` the consent page was opened with.');

const authorizationSchema = z.object({
  authorizationId: z.string(),
  clientId: z.string().describe('The client: the URL of its metadata document, or the id dynamic registration gave it'),
  clientName: z.string(),
  clientUri: z.string().optional(),
  redirectUri: z.string().describe('Where the browser goes back to, with the code or the refusal'),
  redirectHost: z.string().describe('The host of redirectUri: whom the code goes to'),
  scope: z.enum(SCOPES).describe('The scope the client asked for (read when it named none)'),
  resource: z.string().optional().describe('The MCP URL the client asked access to, when it named one'),
  agent: z
    .object({ agentId: z.string(), publicId: z.string(), name: z.string() })
    .optional()
    .describe('The agent that MCP URL belongs to (one of yours)'),
  expiresAt: isoTime,
}) satisfies z.ZodType<AuthorizationView>;

const grantSchema = z.object({
  grantId: z.string(),
  clientId: z.string(),
  clientName: z.string(),
  redirectHost: z.string(),
  scope: z.enum(SCOPES),
  createdAt: isoTime,
  lastUsedAt: isoTime.nullable().describe('Last use of its tokens, to the minute; null when never used'),
  expiresAt: isoTime,
}) satisfies z.ZodType<GrantSummary>;

const consentInput = z.union([
  consentSchema.options[0].extend({
    authorizationId,
    decision: consentSchema.options[0].shape.decision.describe('`deny`: refuse the client; nothing else is needed.'),
  }),
  consentSchema.options[1].extend({
    authorizationId,
    decision: consentSchema.options[1].shape.decision.describe('`approve` (the default).'),
    agentId: consentSchema.options[1].shape.agentId.describe('The agent the client may operate: one of yours.'),
    scope: consentSchema.options[1].shape.scope.describe('What the client may do: read, trade, or manage (needs `code`).'),
    code: consentSchema.options[1].shape.code.describe('Your authenticator (TOTP) code: required for manage, ignored otherwise.'),
  }),
]);

/**
 * OAuth for MCP as the operator sees it: the pending authorization request on the consent page,
 * the consent itself, and an agent's grants beside its keys (listed and revoked).
 */
export function oauthOperations(grants: OAuthGrants) {
  return [
    defineUnboundOperation({
      name: 'oauth_authorization_get',
      description: 'Read a pending OAuth authorization request: the client, where it redirects, the scope and agent it asks for.',
      family: 'keys',
      minScope: 'read',
      principals: ['operator'],
      target: 'owner',
      input: z.object({ authorizationId }).strict(),
      output: authorizationSchema,
      annotations: { readOnly: true, idempotent: true },
      handler: (ctx, input) => grants.authorization(userOf(ctx), input.authorizationId),
    }),
    defineUnboundOperation({
      name: 'oauth_consent',
      description:
        'Approve a pending OAuth authorization request for one of your agents with a scope (manage needs your authenticator code), ' +
        'or deny it. Answers the URL to send the browser back to the client with.',
      family: 'keys',
      minScope: 'manage',
      principals: ['operator'],
      target: 'owner',
      input: consentInput,
      output: z.object({ redirectTo: z.string().describe("The client's redirect URI with the code and state, or error=access_denied") }),
      annotations: { destructive: false, idempotent: false },
      handler: (ctx, input) => grants.consent(userOf(ctx), input),
    }),
    defineOperation({
      name: 'agent_oauth_grants_list',
      description: 'List the live OAuth grants of this agent: the client, its redirect host, the scope, creation, last use and expiry.',
      family: 'keys',
      minScope: 'manage',
      principals: ['operator'],
      input: emptyInput,
      output: z.object({ grants: z.array(grantSchema) }),
      annotations: { readOnly: true, idempotent: true },
      handler: (ctx) => grants.list(ctx.subject.id),
    }),
    defineOperation({
      name: 'agent_oauth_grants_revoke',
      description: 'Revoke an OAuth grant of this agent at once and for good: its tokens stop working and its event streams end.',
      family: 'keys',
      minScope: 'manage',
      principals: ['operator'],
      input: z.object({ grantId: z.string().min(1).max(64).describe('The grant to revoke (`agent_oauth_grants_list`).') }).strict(),
      output: z.object({ grantId: z.string(), revoked: z.literal(true), revokedAt: isoTime }),
      annotations: { destructive: true, idempotent: true },
      handler: (ctx, input) => grants.revoke(ctx.subject.id, input.grantId),
    }),
  ];
}

const system = { minScope: 'manage', principals: ['system'], target: 'service' } as const;

/** `oauth_grant_expire`: the end of a pending request, of an unexchanged code, or of a grant (due job). */
export function oauthDueOperations(actors: Pick<ActorCollection<OAuthGrantContext, OAuthGrantEvent>, 'send'>) {
  return [
    defineUnboundOperation({
      ...system,
      name: 'oauth_grant_expire',
      description: 'Ends an OAuth grant, request or code at its scheduled time (due job).',
      family: 'keys',
      input: z
        .object({
          grantId: z.string().min(1).describe('The grant actor id.'),
          at: z.number().int().nonnegative().describe('Epoch ms the event stands for, as scheduled.'),
        })
        .strict(),
      output: z.object({ accepted: z.boolean().describe('False when the grant had already moved on (nothing was written).') }),
      annotations: { idempotent: true },
      handler: async (_ctx, input) => ({ accepted: (await actors.send(input.grantId, { type: 'grant.expire', at: input.at })).accepted }),
    }),
  ];
}
