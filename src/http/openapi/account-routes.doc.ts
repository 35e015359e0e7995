/**
 * The hand-written operator routes: agents (`agents.routes.ts`), their audit logs
 * (`audit.routes.ts`) and the legacy bot routes (`bots.routes.ts`, interface 4.7), with
 * the schemas those routes validate with. Agent keys and controls are catalog bindings
 * and are described from the catalog instead (see `catalog-routes.doc.ts`).
 */
import { z } from 'zod';
import { createAgentSchema } from '../../accounts/agents.service.js';
import { createKeySchema } from '../../accounts/api-keys.service.js';
import { createBotSchema, mcpConfigSchema, patchBotSchema, replaceBotSchema } from '../../accounts/bots.service.js';
import { auditPageSchema } from '../routes/audit.routes.js';
import { codeBodySchema, pageQuerySchema } from '../routes/route-schemas.js';
import {
  agentSummarySchema,
  botMcpConfigSchema,
  botSchema,
  createdKeySchema,
  keySummarySchema,
  pageOf,
  stepUpResponseSchema,
} from './response-schemas.js';
import { rotateTokenSchema } from '../routes/bots.routes.js';
import type { RouteDoc } from './route-doc.types.js';


const session = ['session'] as const;
const AGENTS = 'Agents';
const BOTS = 'Legacy bots';
const LOGS = 'Audit logs: newest first, `?limit=` (1–200, default 50) and `?cursor=`.';

export const AGENT_ROUTE_DOCS: RouteDoc[] = [
  { method: 'post', path: '/api/nest/agents', tag: AGENTS, summary: 'Create an agent', auth: session, body: createAgentSchema, status: 201, response: agentSummarySchema, errors: [409] },
  { method: 'get', path: '/api/nest/agents', tag: AGENTS, summary: 'List your agents', auth: session, query: pageQuerySchema, response: pageOf(agentSummarySchema) },
  { method: 'get', path: '/api/nest/agents/:agentId', tag: AGENTS, summary: 'Get one of your agents', auth: session, response: agentSummarySchema },
  {
    method: 'put',
    path: '/api/nest/agents/:agentId/default',
    tag: AGENTS,
    summary: 'Make this agent the default of `:userId` trading routes',
    auth: session,
    response: agentSummarySchema,
  },
  {
    method: 'post',
    path: '/api/nest/agents/:agentId/control/mcp/step-up',
    tag: AGENTS,
    summary: 'Issue a step-up token from a TOTP code',
    description: 'The token lasts 5 minutes, works once, and is bound to you and this agent.',
    auth: session,
    body: codeBodySchema,
    response: stepUpResponseSchema,
    errors: [429],
  },
  {
    method: 'get',
    path: '/api/nest/agents/:agentId/logs',
    tag: AGENTS,
    summary: 'Audit log of the agent',
    description: LOGS,
    auth: session,
    query: pageQuerySchema,
    response: auditPageSchema,
  },
];

const bot = (doc: Omit<RouteDoc, 'tag' | 'auth' | 'deprecated'>): RouteDoc => ({ ...doc, tag: BOTS, auth: session, deprecated: true });

export const BOT_ROUTE_DOCS: RouteDoc[] = [
  bot({ method: 'get', path: '/api/nest/bots', summary: 'List your bots', query: pageQuerySchema, response: pageOf(botSchema) }),
  bot({
    method: 'get',
    path: '/api/nest/bots/list',
    summary: 'Simplified list of your bots',
    query: pageQuerySchema,
    response: pageOf(botSchema.pick({ id: true, name: true, status: true })),
  }),
  bot({ method: 'post', path: '/api/nest/bots', summary: 'Create a bot', body: createBotSchema, status: 201, response: botSchema }),
  bot({ method: 'get', path: '/api/nest/bots/:id', summary: 'Get a bot', response: botSchema }),
  bot({ method: 'patch', path: '/api/nest/bots/:id', summary: 'Update some fields of a bot', body: patchBotSchema, response: botSchema }),
  bot({ method: 'put', path: '/api/nest/bots/:id', summary: 'Replace a bot’s profile', body: replaceBotSchema, response: botSchema }),
  bot({ method: 'delete', path: '/api/nest/bots/:id', summary: 'Delete a bot', response: z.object({ id: z.string(), deleted: z.literal(true) }) }),
  bot({
    method: 'get',
    path: '/api/nest/bots/:botId/mcp',
    summary: 'MCP config and key list',
    description: 'Keys page like every list: `?limit=` (1–200, default 50) and `?cursor=`; `nextCursor` leads to the next page.',
    query: pageQuerySchema,
    response: z.object({ config: botMcpConfigSchema, keys: z.array(keySummarySchema), nextCursor: z.string().optional() }),
  }),
  bot({ method: 'put', path: '/api/nest/bots/:botId/mcp', summary: 'Update the MCP config', body: mcpConfigSchema, response: z.object({ config: botMcpConfigSchema }) }),
  bot({ method: 'get', path: '/api/nest/bots/:botId/mcp/logs', summary: 'MCP audit logs', description: LOGS, query: pageQuerySchema, response: auditPageSchema }),
  bot({
    method: 'post',
    path: '/api/nest/bots/:botId/mcp/keys',
    summary: 'Create an MCP API key',
    description: 'The secret is in this response only. A `manage` key needs a `stepUpToken`.',
    body: createKeySchema,
    status: 201,
    response: createdKeySchema,
  }),
  bot({ method: 'delete', path: '/api/nest/bots/:botId/mcp/keys/:keyId', summary: 'Revoke an MCP API key', response: keySummarySchema }),
  bot({ method: 'post', path: '/api/nest/bots/:botId/mcp/step-up', summary: 'Issue a step-up token for manage scope', body: codeBodySchema, response: stepUpResponseSchema }),
  bot({
    method: 'post',
    path: '/api/nest/bots/:botId/mcp/token',
    summary: 'Rotate the MCP access token',
    description: 'Creates a new bot key first, then revokes the previous token.',
    body: rotateTokenSchema,
    bodyRequired: false,
    status: 201,
    response: createdKeySchema.extend({ revokedKeyId: z.string().optional() }),
  }),
];
