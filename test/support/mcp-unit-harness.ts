/**
 * The MCP handler over its own catalog and a stub access resolver, on a real node:http server:
 * for behaviour the service's catalog cannot show (a failing tool, a trade tool, many pages).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { InProcessRateLimiter } from '../../adapters/rate-limit/in-process-rate-limiter.adapter.js';
import { SystemClock } from '../../adapters/clock/system-clock.adapter.js';
import type { KeyScope } from '../../kernel/vocabulary/scopes.js';
import { AppError } from '../../kernel/errors/app-error.js';
import type { McpAccess } from '../../src/mcp/mcp-access.js';
import { createMcpHttpHandler } from '../../src/mcp/mcp-http.handler.js';
import { createLogger } from '../../src/observability/logger.js';
import type { AuditEntry } from '../../src/operations/audit.types.js';
import { OperationCatalog } from '../../src/operations/operation-catalog.js';
import { OperationInvoker } from '../../src/operations/operation-invoker.js';
import type { AnyOperation } from '../../src/operations/operation.types.js';
import { defineOperation } from '../../src/operations/operation-definition.js';

export const PUBLIC_ID = 'pub_unit';

const op = (
  name: string,
  minScope: KeyScope,
  handler: () => Promise<unknown>,
  extra: Partial<Omit<AnyOperation, 'effect'>> = {},
): AnyOperation =>
  defineOperation({
    name,
    description: `${name} test tool`,
    family: 'agents',
    minScope,
    principals: ['agent'],
    input: z.object({}).strict(),
    handler,
    ...extra,
  });

/** Tools that fail in each way a handler can, plus a trade tool and filler for paging. */
function unitOperations(fillers = 0): AnyOperation[] {
  return [
    op('crash_tool', 'read', async () => {
      throw new Error('database exploded with secrets inside');
    }),
    op('provider_down_tool', 'read', async () => {
      throw new AppError('PROVIDER_UNAVAILABLE', 'Provider unavailable: jupiter');
    }),
    op('breaker_tool', 'read', async () => {
      throw AppError.circuitBreakerOpen('jupiter', 42);
    }),
    op('kill_switch_tool', 'read', async () => {
      throw new AppError('KILL_SWITCH_ACTIVE', 'Trading kill switch is active for chain: solana', { retryable: false });
    }),
    op('conflict_tool', 'read', async () => {
      throw AppError.conflict('Agent cannot be paused (agent is paused)');
    }),
    op('trade_tool', 'trade', async () => ({ ok: true })),
    op('order_approve_tool', 'read', async () => ({ approved: true }), { input: z.object({ order_id: z.string() }).strict() }),
    op('shape_tool', 'read', async () => ({ kept: 1, extra: 'dropped from structuredContent' }), {
      output: z.object({ kept: z.number() }),
    }),
    op('wrong_output_tool', 'read', async () => ({ kept: 'not a number' }), { output: z.object({ kept: z.number() }) }),
    op('bot_only_tool', 'read', async () => ({}), { principals: ['bot'] }),
    ...Array.from({ length: fillers }, (_, i) => op(`filler_${String(i).padStart(3, '0')}`, 'read', async () => ({ i }))),
  ];
}

/** `Bearer <scope>[:granular]` stands for a key of that scope on `PUBLIC_ID`. */
function stubAccess(publicId: string, authorization: string | undefined): Promise<McpAccess> {
  const match = /^Bearer (read|trade|manage)(:granular)?$/.exec(authorization ?? '');
  if (!match) return Promise.reject(AppError.unauthorized());
  if (publicId !== PUBLIC_ID) return Promise.reject(AppError.notFound('Agent not found'));
  const scope = match[1] as KeyScope;
  return Promise.resolve({
    principal: {
      type: 'agent-key',
      keyId: `key_${scope}`,
      scope,
      ownerId: 'agent_1',
      prefix: 'mcpk_unit',
      expiresAt: Date.now() + 86_400_000,
    },
    subject: { type: 'agent', id: 'agent_1' },
    scope,
    viewer: { kind: 'agent', scope },
    userId: 'user_1',
    granularErrors: match[2] !== undefined,
  });
}

export interface UnitHarness {
  url: string;
  catalog: OperationCatalog;
  audit: AuditEntry[];
  logs: string[];
  close(): Promise<void>;
}

export async function startUnitHarness(options: { fillers?: number; perMinute?: number } = {}): Promise<UnitHarness> {
  const clock = new SystemClock();
  const catalog = new OperationCatalog().register(...unitOperations(options.fillers));
  const audit: AuditEntry[] = [];
  const logs: string[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => void logs.push(line) } });
  const limiter = new InProcessRateLimiter({ clock });
  const handler = createMcpHttpHandler({
    access: { resolve: stubAccess },
    invoker: new OperationInvoker(catalog, { record: (entry) => void audit.push(entry) }, clock),
    catalog,
    limiter,
    logger,
    clock,
    rateWindows: () => [{ name: 'minute', limit: options.perMinute ?? 1e9, windowMs: 60_000 }],
  });
  const server: Server = createServer((req, res) => {
    if (!handler(req, res)) res.writeHead(418).end('express would answer');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    catalog,
    audit,
    logs,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await limiter.close();
    },
  };
}
