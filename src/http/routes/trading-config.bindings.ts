import { listInput, type RestBinding } from './operation.routes.js';

const BASE = '/api/nest/trading/config/:userId' as const;
const tag = 'Trading';

/**
 * The trading configuration routes of the trading routes, each bound to its catalog operation
 * (the same handler as the MCP tool). They act on the signed-in user's default agent, or
 * the owned agent named by `agentId` in the query string or body. DELETE of a listed token
 * takes the chain as `?chain=`; it may be left out for a Solana mint, never for an EVM address.
 */
export const TRADING_CONFIG_BINDINGS: RestBinding[] = [
  { method: 'get', path: BASE, operation: 'trading_config_get', tag },
  { method: 'get', path: `${BASE}/default-order-profile`, operation: 'trading_config_order_profile_get', tag },
  { method: 'put', path: `${BASE}/default-order-profile`, operation: 'trading_config_order_profile_set', tag },
  { method: 'put', path: `${BASE}/trade-defaults`, operation: 'trading_config_trade_defaults_set', tag },
  { method: 'put', path: `${BASE}/risk-policy`, operation: 'trading_config_risk_policy_set', tag },
  { method: 'put', path: `${BASE}/notifications`, operation: 'trading_config_notifications_set', tag },
  { method: 'put', path: `${BASE}/wallet-mode`, operation: 'trading_config_wallet_mode_set', tag },
  { method: 'get', path: `${BASE}/favorites`, operation: 'trading_config_favorites_list', tag, input: listInput },
  { method: 'post', path: `${BASE}/favorites`, operation: 'trading_config_favorites_add', tag },
  { method: 'delete', path: `${BASE}/favorites/:address`, operation: 'trading_config_favorites_remove', tag },
  { method: 'get', path: `${BASE}/blacklist`, operation: 'trading_config_blacklist_list', tag, input: listInput },
  { method: 'post', path: `${BASE}/blacklist`, operation: 'trading_config_blacklist_add', tag },
  { method: 'delete', path: `${BASE}/blacklist/:address`, operation: 'trading_config_blacklist_remove', tag },
  { method: 'put', path: `${BASE}/pool-preferences`, operation: 'trading_config_pool_preferences_set', tag },
  { method: 'put', path: `${BASE}/launchpads/:type/toggle`, operation: 'trading_config_launchpad_toggle', tag },
  { method: 'put', path: `${BASE}/launchpads/:type/priority`, operation: 'trading_config_launchpad_priority_set', tag },
];
