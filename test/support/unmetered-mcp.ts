import { agentDefinition } from '../../machines/agent.machine.js';
import { botDefinition } from '../../machines/bot.machine.js';
import { SystemClock } from '../../adapters/clock/system-clock.adapter.js';
import { InProcessRateLimiter } from '../../adapters/rate-limit/in-process-rate-limiter.adapter.js';
import { McpAccessResolver } from '../../src/mcp/mcp-access.js';
import { MCP_TARGET_CACHE_MS, createMcpHttpHandler } from '../../src/mcp/mcp-http.handler.js';
import { createLogger } from '../../src/observability/logger.js';
import type { TestService } from './test-service.js';

/** One constant policy, as the real ones are (a limiter may check each list once). */
const UNMETERED = [{ name: 'minute', limit: 1e9, windowMs: 60_000 }];

/**
 * The service's MCP handler with a rate budget too large to deny: the limiter still counts
 * every request (same cost) but a fuzz run or a benchmark is never refused. Close `limiter` after.
 */
export function unmeteredMcpHandler(svc: TestService, options: { cacheTargets?: boolean } = {}) {
  const { runtime, services, operations } = svc.service;
  const clock = new SystemClock();
  const limiter = new InProcessRateLimiter({ clock });
  const access = new McpAccessResolver(
    { agents: runtime.collection(agentDefinition), bots: runtime.collection(botDefinition) },
    services.resolver,
    false,
    ...(options.cacheTargets ? [{ ttlMs: MCP_TARGET_CACHE_MS, clock }] : []),
  );
  const handler = createMcpHttpHandler({
    access,
    invoker: operations.invoker,
    catalog: operations.catalog,
    limiter,
    logger: createLogger({ level: 'silent' }),
    clock,
    rateWindows: () => UNMETERED,
  });
  return { handler, limiter };
}
