import { listInput, type RestBinding } from './operation.routes.js';

/** DCA strategies (the trading routes). */
export const DCA_BINDINGS: RestBinding[] = [
  {
    method: 'get',
    path: '/api/nest/trading/strategies/:userId',
    operation: 'trading_dca_strategies_list',
    tag: 'Trading',
    input: listInput,
  },
  { method: 'post', path: '/api/nest/trading/strategies/:userId', operation: 'trading_dca_strategy_create', tag: 'Trading', status: 201 },
  {
    method: 'delete',
    path: '/api/nest/trading/strategies/:userId/:strategyName',
    operation: 'trading_dca_strategy_delete',
    tag: 'Trading',
  },
  {
    method: 'post',
    path: '/api/nest/trading/strategies/:userId/:strategyName/approve',
    operation: 'trading_dca_strategy_approve',
    tag: 'Trading',
  },
  { method: 'post', path: '/api/nest/trading/dca/pause/:userId', operation: 'trading_dca_pause', tag: 'Trading' },
  { method: 'post', path: '/api/nest/trading/dca/resume/:userId', operation: 'trading_dca_resume', tag: 'Trading' },
  { method: 'get', path: '/api/nest/trading/dca/stats/:userId', operation: 'trading_dca_stats', tag: 'Trading' },
];
