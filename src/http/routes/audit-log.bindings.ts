import { listInput, type RestBinding } from './operation.routes.js';

/** An agent's audit log, for the operator who owns it. */
export const AUDIT_LOG_BINDINGS: RestBinding[] = [
  { method: 'get', path: '/api/nest/agents/:agentId/logs', operation: 'audit_log_list', input: listInput, inputFirst: true },
];
