import { listInput, type RestBinding } from './operation.routes.js';

/** An agent's API keys, for the operator who owns it. */
export const KEY_BINDINGS: RestBinding[] = [
  { method: 'get', path: '/api/nest/agents/:agentId/keys', operation: 'agent_keys_list', input: listInput },
  { method: 'post', path: '/api/nest/agents/:agentId/keys', operation: 'agent_keys_create', status: 201 },
  { method: 'delete', path: '/api/nest/agents/:agentId/keys/:keyId', operation: 'agent_keys_revoke' },
];
