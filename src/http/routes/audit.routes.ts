import { Router, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import { chosenAgentId } from '../../../machines/agent-id.js';
import type { AgentsService } from '../../accounts/agents.service.js';
import type { BotsService } from '../../accounts/bots.service.js';
import type { AuditLog } from '../../operations/audit-log.js';
import type { AuditEntry } from '../../operations/audit.types.js';
import { authenticated, sessionOf, type AuthMiddlewareDeps } from '../auth/auth.middleware.js';
import { parseQuery } from '../validate.js';
import { page, pageQuerySchema, param } from './route-schemas.js';

export interface AuditRoutesDeps {
  auth: AuthMiddlewareDeps;
  agents: AgentsService;
  bots: BotsService;
  audit: Pick<AuditLog, 'list'>;
}

/** One audit entry as the log routes show it; the stored entry with `at` as ISO 8601. */
export const auditEntryViewSchema = z.object({
  at: z.string().describe('ISO 8601 time the call started'),
  surface: z.enum(['rest', 'mcp']),
  operation: z.string().describe('Tool name, or `METHOD /route/template` for REST calls outside the catalog'),
  principal: z.object({ type: z.string(), id: z.string() }),
  credentialPrefix: z.string().optional().describe('Display prefix of the key used; never the secret'),
  scope: z.string().optional(),
  subject: z.string().optional().describe('`agent:<id>` or `bot:<id>`'),
  argsDigest: z.string().describe('SHA-256 of the canonical arguments, secret fields removed first'),
  outcome: z.enum(['ok', 'error']),
  error: z.string().optional().describe('Error code or HTTP status'),
  latencyMs: z.number(),
  requestId: z.string(),
  correlationId: z.string(),
});

export const auditPageSchema = z.object({ items: z.array(auditEntryViewSchema), nextCursor: z.string().optional() });
export type AuditEntryView = z.output<typeof auditEntryViewSchema>;

/** The same deprecation headers as every other legacy bot route (CONTRACT "Legacy routes"). */
const deprecated: RequestHandler = (_req, res, next) => {
  res.set({ Deprecation: 'true', Link: '</api/nest/agents>; rel="successor-version"' });
  next();
};

/**
 * Audit trails for their owners, newest first: a legacy bot's MCP logs (interface 4.7,
 * section 6) and the same for agents. Someone else's agent or bot is 404 like a missing one.
 */
export function createAuditRoutes(deps: AuditRoutesDeps): Router {
  const router = Router();
  const operator = authenticated(deps.auth, ['session']);
  const send = async (res: Response, subject: string, query: z.output<typeof pageQuerySchema>) => {
    const { items, nextCursor } = await deps.audit.list(subject, page(query));
    res.json({ items: items.map(toView), ...(nextCursor ? { nextCursor } : {}) });
  };

  router.get('/api/nest/bots/:botId/mcp/logs', deprecated, ...operator, async (req, res) => {
    const botId = param(req, 'botId');
    // Query first: a bad `limit` is a 400 for anyone, and says nothing about the bot.
    const query = parseQuery(pageQuerySchema, req);
    await deps.bots.ownedView(sessionOf(res).userId, botId);
    await send(res, `bot:${botId}`, query);
  });
  router.get('/api/nest/agents/:agentId/logs', ...operator, async (req, res) => {
    const agentId = param(req, 'agentId');
    const query = parseQuery(pageQuerySchema, req);
    // Entries name the agent by its actor id (a chosen agentId is scoped to its owner).
    const agent = await deps.agents.ownedView(sessionOf(res).userId, agentId);
    await send(res, `agent:${agent.id}`, query);
  });
  return router;
}

/** `agent:<actor id>` as the owner knows the agent (`agent:alpha`, not `agent:<ownerId>~alpha`); bots unchanged. */
function shownSubject(subject: string): string {
  return subject.startsWith('agent:') ? `agent:${chosenAgentId(subject.slice('agent:'.length))}` : subject;
}

/** Only the documented fields leave the service, whatever else a stored entry might carry. */
function toView(entry: AuditEntry): AuditEntryView {
  const { at, principal, credentialPrefix, scope, subject, error } = entry;
  return {
    at: new Date(at).toISOString(),
    surface: entry.surface,
    operation: entry.operation,
    principal: { type: principal.type, id: principal.id },
    // JSON drops the undefined ones.
    credentialPrefix,
    scope,
    subject: subject === undefined ? undefined : shownSubject(subject),
    argsDigest: entry.argsDigest,
    outcome: entry.outcome,
    error,
    latencyMs: entry.latencyMs,
    requestId: entry.requestId,
    correlationId: entry.correlationId,
  };
}
