import { listInput, type RestBinding } from './operation.routes.js';

const TAG = 'Trading';

/**
 * The trading routes wallet and EVM approval routes, bound to the wallet operations. Each acts on
 * the signed-in user's default agent (or the owned agent named by `agentId`). Guarded
 * operations (those with an `idempotencyKey` input) need `X-Idempotency-Key` here.
 *
 * The custodial ensure route answers 201 when the call created the wallet and 200 when the
 * wallet was there already (a replay of the creating call included: its wallet existed
 * before the replay), as the EVM custodial route answers 201 for the wallet it creates.
 * `GET /api/nest/trading/approvals/:userId` lists pending order approvals: not a wallet route.
 */
export const WALLET_BINDINGS: RestBinding[] = [
  { method: 'get', path: '/api/nest/trading/wallets/custodial/:userId', operation: 'trading_wallet_custodial_get', tag: TAG },
  {
    method: 'post',
    path: '/api/nest/trading/wallets/custodial/:userId',
    operation: 'trading_wallet_custodial_ensure',
    createdStatus: 201,
    tag: TAG,
  },
  { method: 'get', path: '/api/nest/trading/evm/wallets/:userId', operation: 'trading_evm_wallets_list', tag: TAG, input: listInput },
  { method: 'post', path: '/api/nest/trading/evm/wallets/:userId', operation: 'trading_evm_wallet_add', status: 201, tag: TAG },
  {
    method: 'post',
    path: '/api/nest/trading/evm/wallets/:userId/custodial',
    operation: 'trading_evm_wallet_create_custodial',
    status: 201,
    tag: TAG,
  },
  {
    method: 'post',
    path: '/api/nest/trading/evm/wallets/:userId/delegate',
    operation: 'trading_evm_wallet_create_delegate',
    status: 201,
    tag: TAG,
  },
  { method: 'post', path: '/api/nest/trading/evm/wallets/:userId/default', operation: 'trading_evm_wallet_set_default', tag: TAG },
  { method: 'delete', path: '/api/nest/trading/evm/wallets/:userId/:walletId', operation: 'trading_evm_wallet_revoke', tag: TAG },
  { method: 'post', path: '/api/nest/trading/approvals/:userId', operation: 'trading_evm_approval_record', tag: TAG },
  { method: 'post', path: '/api/nest/trading/revoke/:userId', operation: 'trading_evm_approval_revoke', tag: TAG },
];
