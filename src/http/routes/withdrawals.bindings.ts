import { type RestBinding, withStepUp } from './operation.routes.js';

/**
 * The agent wallet and control-plane routes agent wallet routes (the agent's own credential: its keys and its identity
 * tokens) and the withdrawal settings of the control plane (the owner's session).
 */
export const WITHDRAWAL_BINDINGS: RestBinding[] = [
  { method: 'get', path: '/api/nest/agents/wallet/balance', operation: 'agent_wallet_balance', caller: 'agent' },
  {
    method: 'post',
    path: '/api/nest/agents/wallet/withdraw/evm',
    operation: 'agent_wallet_withdraw_evm',
    caller: 'agent',
    status: 201,
    input: withStepUp,
  },
  {
    method: 'post',
    path: '/api/nest/agents/wallet/withdraw/solana',
    operation: 'agent_wallet_withdraw_solana',
    caller: 'agent',
    status: 201,
    input: withStepUp,
  },
  { method: 'get', path: '/api/nest/agents/:agentId/control/withdraw', operation: 'agent_withdraw_settings_get' },
  { method: 'put', path: '/api/nest/agents/:agentId/control/withdraw', operation: 'agent_withdraw_settings_set', input: withStepUp },
];
