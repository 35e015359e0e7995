import { z } from 'zod';
import { chosenAgentId } from '../../../machines/agent-id.js';
import { escapeUnsafe } from '../../../kernel/shared/escape-unsafe.js';
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

/** Entries one `agent_mcp_logs_list` call reads at most looking for MCP ones; past it, the page ends early with a cursor. */
const MAX_SCANNED = 2_000;

/**
 * The entries of `subject` made over MCP, newest first: pages of the whole trail read until
 * `limit` are found, the trail ends, or MAX_SCANNED entries were read (a page may then hold
 * fewer than `limit`, with a `nextCursor`). The trail's own cursor is the page's: each read
 * asks for no more than the room left, so nothing is skipped between pages.
 */
async function mcpEntries(audit: Pick<AuditLog, 'list' | 'flush'>, subject: string, page: { limit: number; cursor?: string }) {
  // The caller's earlier calls were recorded before they were answered: written now, so it reads them.
  await audit.flush();
  const items: AuditEntry[] = [];
  let cursor = page.cursor;
  let scanned = 0;
  do {
    const read = await audit.list(subject, { limit: page.limit - items.length, ...(cursor ? { cursor } : {}) });
    scanned += read.items.length;
    items.push(...read.items.filter((entry) => entry.surface === 'mcp'));
    cursor = read.nextCursor;
  } while (cursor && items.length < page.limit && scanned < MAX_SCANNED);
  return { items: items.map(toView), ...(cursor ? { nextCursor: cursor } : {}) };
}

/**
 * The audit trail of an agent or legacy bot: all of it for its owner (the legacy routes section 6
 * for bots, the same for agents), and its MCP calls for the agent's own credentials (`read`
 * includes them; scope families over MCP).
 */
export function auditLogOperations(audit: Pick<AuditLog, 'list' | 'flush'>) {
  return [
    defineOperation({
      name: 'agent_mcp_logs_list',
      description:
        "This agent's MCP call log, newest first: every MCP request made on it by any of its credentials (tools called, " +
        'refused ones included, and protocol methods), with the time, credential prefix, scope, a digest of the arguments, ' +
        'outcome, error code and latency. A page may hold fewer than `limit` entries; follow `nextCursor` while there is one.',
      family: 'audit',
      minScope: 'read',
      principals: ['agent', 'bot'],
      input: z.object(pageFields).strict(),
      output: auditPageSchema,
      annotations: { readOnly: true, idempotent: true },
      handler: (ctx, input) => mcpEntries(audit, `${ctx.subject.type}:${ctx.subject.id}`, pageOf(input)),
    }),
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
    // A call to a tool that does not exist is logged under the name it asked for, which may hold control characters.
    operation: escapeUnsafe(entry.operation),
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
