import { Router, type Request } from 'express';
import type { AgentsService } from '../../accounts/agents.service.js';
import type { OperationInvoker } from '../../operations/operation-invoker.js';
import { authenticated, sessionOf, type AuthMiddlewareDeps } from '../auth/auth.middleware.js';
import { requestContext } from '../request-context.middleware.js';
import { param } from './route-schemas.js';

/** A REST route bound to a catalog operation, acting on the `:agentId` of its path. */
export interface RestBinding {
  method: 'get' | 'post' | 'put' | 'delete';
  path: `/api/nest/agents/:agentId${string}`;
  operation: string;
  status?: number;
  /** Builds the operation input; default: the JSON body plus path parameters other than `agentId`. */
  input?: (req: Request) => unknown;
}

/** Query strings are text: list routes turn `limit` into a number and pass `cursor` through. */
const pageInput = (req: Request) => ({
  ...(req.query.limit === undefined ? {} : { limit: Number(req.query.limit) }),
  ...(typeof req.query.cursor === 'string' ? { cursor: req.query.cursor } : {}),
});

/** Operator routes served by the catalog: the same handlers as the MCP tools. */
export const AGENT_REST_BINDINGS: RestBinding[] = [
  { method: 'get', path: '/api/nest/agents/:agentId/status', operation: 'agent_status', input: () => ({}) },
  { method: 'post', path: '/api/nest/agents/:agentId/pause', operation: 'agent_pause' },
  { method: 'post', path: '/api/nest/agents/:agentId/resume', operation: 'agent_resume' },
  { method: 'put', path: '/api/nest/agents/:agentId/trading', operation: 'agent_trading_set' },
  { method: 'get', path: '/api/nest/agents/:agentId/keys', operation: 'agent_keys_list', input: pageInput },
  { method: 'post', path: '/api/nest/agents/:agentId/keys', operation: 'agent_keys_create', status: 201 },
  { method: 'delete', path: '/api/nest/agents/:agentId/keys/:keyId', operation: 'agent_keys_revoke' },
];

export interface OperationRoutesDeps {
  auth: AuthMiddlewareDeps;
  invoker: OperationInvoker;
  agents: AgentsService;
  bindings: RestBinding[];
}

/** Binds catalog operations to REST for signed-in operators acting on agents they own. */
export function createOperationRoutes(deps: OperationRoutesDeps): Router {
  const router = Router();
  const operator = authenticated(deps.auth, ['session']);
  for (const binding of deps.bindings) {
    router[binding.method](binding.path, ...operator, async (req, res) => {
      const session = sessionOf(res);
      const agentId = param(req, 'agentId');
      await deps.agents.ownedView(session.userId, agentId);
      const { agentId: _subject, ...params } = req.params as Record<string, string>;
      const input = binding.input ? binding.input(req) : { ...(req.body ?? {}), ...params };
      res.locals.audited = true; // the invoker records this call; the REST audit middleware must not
      const result = await deps.invoker.invoke({
        name: binding.operation,
        input,
        ctx: {
          principal: session,
          scope: 'manage',
          subject: { type: 'agent', id: agentId },
          userId: session.userId,
          surface: 'rest',
          ...requestContext(res),
        },
        viewer: { kind: 'operator', scope: 'manage' },
      });
      res.status(binding.status ?? 200).json(result);
    });
  }
  return router;
}
