import { bodyWith, listInput, type RestBinding } from './operation.routes.js';

/**
 * The trading routes trading routes served by catalog operations. `:userId` must be the
 * signed-in user; the account is the user's default agent unless `agentId` is given.
 */
export const TRADING_BINDINGS: RestBinding[] = [
  { method: 'post', path: '/api/nest/trading/command', operation: 'trading_command', tag: 'Trading' },
  { method: 'get', path: '/api/nest/trading/approvals/:userId', operation: 'trading_approvals_list', tag: 'Trading', input: listInput },
  {
    method: 'post',
    path: '/api/nest/trading/orders/:userId/:orderId/approve',
    operation: 'trading_orders_approve',
    tag: 'Trading',
    input: (req) => bodyWith(req, { order_id: req.params.orderId }),
  },
  {
    method: 'post',
    path: '/api/nest/trading/orders/:userId/:orderId/cancel',
    operation: 'trading_orders_cancel',
    tag: 'Trading',
    input: (req) => bodyWith(req, { order_id: req.params.orderId }),
  },
  { method: 'get', path: '/api/nest/trading/positions/:userId', operation: 'trading_positions', tag: 'Trading' },
  { method: 'get', path: '/api/nest/trading/positions/:userId/pnl', operation: 'trading_positions_pnl', tag: 'Trading' },
  {
    method: 'get',
    path: '/api/nest/trading/positions/:userId/history',
    operation: 'trading_portfolio_history',
    tag: 'Trading',
    input: listInput,
  },
  {
    method: 'get',
    path: '/api/nest/trading/orders/:userId',
    operation: 'trading_orders_list',
    tag: 'Trading',
    input: listInput,
  },
  { method: 'get', path: '/api/nest/trading/evm/status', operation: 'trading_evm_status', tag: 'Trading' },
  { method: 'post', path: '/api/nest/trading/evm/quote/:userId', operation: 'trading_evm_quote', tag: 'Trading' },
  { method: 'post', path: '/api/nest/trading/evm/swap/:userId', operation: 'trading_evm_swap', tag: 'Trading' },
  { method: 'post', path: '/api/nest/trading/research/token', operation: 'trading_research_token', tag: 'Trading' },
  { method: 'post', path: '/api/nest/trading/preflight/:userId', operation: 'trading_preflight', tag: 'Trading' },
  { method: 'post', path: '/api/nest/trading/risk/token', operation: 'trading_token_risk_report', tag: 'Trading' },
];

/** Paper venue only (trading accounts). */
export const PAPER_FAUCET_BINDING: RestBinding = {
  method: 'post',
  path: '/api/nest/trading/paper/faucet/:userId',
  operation: 'trading_paper_faucet',
  tag: 'Trading',
};
