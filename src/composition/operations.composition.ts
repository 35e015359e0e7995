import type { Logger } from 'pino';
import type { AgentsService } from '../accounts/agents.service.js';
import type { ApiKeysService } from '../accounts/api-keys.service.js';
import type { AuthMiddlewareDeps } from '../http/auth/auth.middleware.js';
import { createCatalogAdminRoutes } from '../http/routes/catalog-admin.routes.js';
import { AGENT_REST_BINDINGS, createOperationRoutes } from '../http/routes/operation.routes.js';
import { AuditLog } from '../operations/audit-log.js';
import { agentOperations } from '../operations/definitions/agent.ops.js';
import { keyOperations } from '../operations/definitions/key.ops.js';
import { OperationCatalog } from '../operations/operation-catalog.js';
import { OperationInvoker } from '../operations/operation-invoker.js';
import type { ClockPort } from '../ports/clock.port.js';
import type { StorePort } from '../ports/store.port.js';
import type { ActorRuntime } from '../runtime/actor-runtime.js';

export interface OperationsDeps {
  runtime: ActorRuntime;
  store: StorePort;
  clock: ClockPort;
  logger: Logger;
  auth: AuthMiddlewareDeps;
  agents: AgentsService;
  keys: ApiKeysService;
  opsToken: string;
}

/** The operations catalog, the invoker every surface calls, the audit trail, and the REST bindings. */
export function buildOperations(deps: OperationsDeps) {
  const catalog = new OperationCatalog().register(...agentOperations(deps.runtime), ...keyOperations(deps.keys));
  const audit = new AuditLog(deps.store, deps.clock, deps.logger);
  const invoker = new OperationInvoker(catalog, audit, deps.clock);
  const routers = [
    createOperationRoutes({ auth: deps.auth, invoker, agents: deps.agents, bindings: AGENT_REST_BINDINGS }),
    createCatalogAdminRoutes({ catalog, opsToken: deps.opsToken }),
  ];
  return { catalog, audit, invoker, routers };
}
