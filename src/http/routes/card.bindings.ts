import type { RestBinding } from './operation.routes.js';

const BOTS = 'Legacy bots';

/**
 * Agent cards (public directory and agent cards): the agent routes, and the legacy
 * bot `agent-card` routes of the legacy routes over the same operations (with `Deprecation` and `Link`).
 */
export const CARD_BINDINGS: RestBinding[] = [
  { method: 'get', path: '/api/nest/agents/:agentId/card', operation: 'agent_card_get' },
  { method: 'put', path: '/api/nest/agents/:agentId/card', operation: 'agent_card_update' },
  { method: 'post', path: '/api/nest/agents/:agentId/card/publish', operation: 'agent_card_publish' },
  { method: 'post', path: '/api/nest/agents/:agentId/card/revoke', operation: 'agent_card_revoke' },
  { method: 'get', path: '/api/nest/bots/:botId/agent-card', operation: 'agent_card_get', subject: 'bot', tag: BOTS, deprecated: true },
  { method: 'put', path: '/api/nest/bots/:botId/agent-card', operation: 'agent_card_update', subject: 'bot', tag: BOTS, deprecated: true },
  {
    method: 'post',
    path: '/api/nest/bots/:botId/agent-card/publish',
    operation: 'agent_card_publish',
    subject: 'bot',
    tag: BOTS,
    deprecated: true,
  },
  {
    method: 'post',
    path: '/api/nest/bots/:botId/agent-card/revoke',
    operation: 'agent_card_revoke',
    subject: 'bot',
    tag: BOTS,
    deprecated: true,
  },
];
