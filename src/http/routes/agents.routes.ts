import { Router } from 'express';
import { AgentsService, createAgentSchema, toSummary } from '../../accounts/agents.service.js';
import type { StepUpService } from '../../auth/step-up/step-up.service.js';
import { authenticated, sessionOf, type AuthMiddlewareDeps } from '../auth/auth.middleware.js';
import { parseBody, parseQuery } from '../validate.js';
import { codeBodySchema, noQuery, page, pageQuerySchema, param } from './route-schemas.js';

export interface AgentRoutesDeps {
  auth: AuthMiddlewareDeps;
  agents: AgentsService;
  stepUp: StepUpService;
}

/** Operators' agents and step-up (keys and controls are catalog operations, see operation.routes). */
export function createAgentRoutes(deps: AgentRoutesDeps): Router {
  const { agents } = deps;
  const router = Router();
  const operator = authenticated(deps.auth, ['session']);
  // Only the list takes a query string (`limit`, `cursor`); elsewhere any parameter is refused.
  const unqueried = [...operator, noQuery];

  router.post('/api/nest/agents', ...unqueried, async (req, res) => {
    res.status(201).json(await agents.create(sessionOf(res).userId, parseBody(createAgentSchema, req)));
  });
  router.get('/api/nest/agents', ...operator, async (req, res) => {
    res.json(await agents.list(sessionOf(res).userId, page(parseQuery(pageQuerySchema, req))));
  });
  // The audit entry and the step-up target name the agent by its actor id: a chosen
  // agentId in the path is scoped to its owner (AgentsService), the actor id is unique.
  router.get('/api/nest/agents/:agentId', ...unqueried, async (req, res) => {
    const view = await agents.ownedView(sessionOf(res).userId, param(req, 'agentId'));
    res.locals.auditSubject = `agent:${view.id}`;
    res.json(toSummary(view));
  });
  router.put('/api/nest/agents/:agentId/default', ...unqueried, async (req, res) => {
    const view = await agents.setDefault(sessionOf(res).userId, param(req, 'agentId'));
    res.locals.auditSubject = `agent:${view.id}`;
    res.json(toSummary(view));
  });

  router.post('/api/nest/agents/:agentId/control/mcp/step-up', ...unqueried, async (req, res) => {
    const { userId } = sessionOf(res);
    const view = await agents.ownedView(userId, param(req, 'agentId'));
    const { code } = parseBody(codeBodySchema, req);
    res.locals.auditSubject = `agent:${view.id}`;
    res.json(await deps.stepUp.issue({ userId, target: `agent:${view.id}`, code }));
  });
  return router;
}
