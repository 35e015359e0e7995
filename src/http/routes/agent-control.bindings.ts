import { type RestBinding, withStepUp } from './operation.routes.js';

/**
 * The agent wallet and control-plane routes control plane: the claim (any signed-in operator; the agent is found by the
 * proof, not by ownership, hence `subject: 'none'`), and the changes that need the claim, the
 * owner's session with CSRF and `X-Step-Up-Token`. Step-up itself is an account binding.
 */
export const AGENT_CONTROL_BINDINGS: RestBinding[] = [
  { method: 'post', path: '/api/nest/agents/:agentId/control/claim', operation: 'agent_control_claim', subject: 'none' },
  { method: 'put', path: '/api/nest/agents/:agentId/control/scopes', operation: 'agent_control_scopes_set', input: withStepUp },
  { method: 'post', path: '/api/nest/agents/:agentId/control/mcp/keys/rotate', operation: 'agent_control_keys_rotate', input: withStepUp },
];
