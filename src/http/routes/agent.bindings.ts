import { listInput, type RestBinding } from './operation.routes.js';

/** The operator's agents: create, list, read, choose the default; status, pause, resume and the trading switch. */
export const AGENT_BINDINGS: RestBinding[] = [
  { method: 'post', path: '/api/nest/agents', operation: 'agent_create', subject: 'none', status: 201 },
  { method: 'get', path: '/api/nest/agents', operation: 'agent_list', subject: 'none', input: listInput },
  { method: 'get', path: '/api/nest/agents/:agentId', operation: 'agent_get', inputFirst: true },
  // Takes no fields; a body it is sent was never read, and still is not.
  { method: 'put', path: '/api/nest/agents/:agentId/default', operation: 'agent_default_set', input: () => ({}) },
  { method: 'get', path: '/api/nest/agents/:agentId/status', operation: 'agent_status' },
  { method: 'post', path: '/api/nest/agents/:agentId/pause', operation: 'agent_pause' },
  { method: 'post', path: '/api/nest/agents/:agentId/resume', operation: 'agent_resume' },
  { method: 'put', path: '/api/nest/agents/:agentId/trading', operation: 'agent_trading_set' },
];
