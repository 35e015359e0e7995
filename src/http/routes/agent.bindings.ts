import type { RestBinding } from './operation.routes.js';

/** An agent's state, for the operator who owns it: status, pause, resume and the trading switch. */
export const AGENT_BINDINGS: RestBinding[] = [
  { method: 'get', path: '/api/nest/agents/:agentId/status', operation: 'agent_status' },
  { method: 'post', path: '/api/nest/agents/:agentId/pause', operation: 'agent_pause' },
  { method: 'post', path: '/api/nest/agents/:agentId/resume', operation: 'agent_resume' },
  { method: 'put', path: '/api/nest/agents/:agentId/trading', operation: 'agent_trading_set' },
];
