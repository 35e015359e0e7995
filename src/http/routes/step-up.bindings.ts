import type { RestBinding } from './operation.routes.js';

/** A step-up token for the operator's next sensitive change on an agent (the TOTP code in, a short-lived token out). */
export const STEP_UP_BINDINGS: RestBinding[] = [
  { method: 'post', path: '/api/nest/agents/:agentId/control/mcp/step-up', operation: 'step_up_issue' },
];
