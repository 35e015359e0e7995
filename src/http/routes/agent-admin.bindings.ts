import { listInput, type RestBinding } from './operation.routes.js';

/** The operator's agents: create one, list them, read one, choose the default. */
export const AGENT_ADMIN_BINDINGS: RestBinding[] = [
  { method: 'post', path: '/api/nest/agents', operation: 'agent_create', subject: 'none', status: 201 },
  { method: 'get', path: '/api/nest/agents', operation: 'agent_list', subject: 'none', input: listInput },
  { method: 'get', path: '/api/nest/agents/:agentId', operation: 'agent_get', inputFirst: true },
  // Takes no fields; a body it is sent was never read, and still is not.
  { method: 'put', path: '/api/nest/agents/:agentId/default', operation: 'agent_default_set', input: () => ({}) },
];
