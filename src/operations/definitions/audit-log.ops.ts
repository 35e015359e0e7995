import { z } from 'zod';
import { chosenAgentId } from '../../../machines/agent-id.js';
import type { AuditLog } from '../audit-log.js';
import type { AuditEntry } from '../audit.types.js';
import { defineOperation } from '../operation-definition.js';
import { pageFields } from './list-paging.js';
import { pageOf } from './operator-paging.js';

/** One audit entry as its owner reads it; the stored entry with `at` as ISO 8601. */
export const auditEntryViewSchema = z.object({
  at: z.string().describe('ISO 8601 time the call started'),
  surface: z.enum(['rest', 'mcp', 'system', 'widget']),
  operation: z.string().describe('Operation (tool) name, or the MCP method or `METHOD /route/template` of calls outside the catalog'),
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

const auditPageSchema = z.object({ items: z.array(auditEntryViewSchema), nextCursor: z.string().optional() });
export type AuditEntryView = z.output<typeof auditEntryViewSchema>;

/**
 * The audit trail of an agent or legacy bot for its owner, newest first (interface 4.7
 * section 6 for bots, the same for agents). Operator-only.
 */
export function auditLogOperations(audit: Pick<AuditLog, 'list'>) {
  return [
    defineOperation({
      name: 'audit_log_list',
      description: 'Audit log of this agent or bot, newest first: every call made on it, on every surface.',
      family: 'audit',
      minScope: 'read',
      principals: ['operator'],
      input: z.object(pageFields).strict(),
      output: auditPageSchema,
      annotations: { readOnly: true, idempotent: true },
      handler: async (ctx, input) => {
        const { items, nextCursor } = await audit.list(`${ctx.subject.type}:${ctx.subject.id}`, pageOf(input));
        return { items: items.map(toView), ...(nextCursor ? { nextCursor } : {}) };
      },
    }),
  ];
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
    ...(credentialPrefix === undefined ? {} : { credentialPrefix }),
    ...(scope === undefined ? {} : { scope }),
    ...(subject === undefined ? {} : { subject: shownSubject(subject) }),
    argsDigest: entry.argsDigest,
    outcome: entry.outcome,
    ...(error === undefined ? {} : { error }),
    latencyMs: entry.latencyMs,
    requestId: entry.requestId,
    correlationId: entry.correlationId,
  };
}
