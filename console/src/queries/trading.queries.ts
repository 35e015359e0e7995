/**
 * Reads of an agent's trading, each a hook with its loading and error state and `reload`.
 * `version`: the caller's change counter; a new value reads again (a live event, a change made on the page).
 */
import type { TradingOrdersListInput } from 'agent-runtime-sdk';
import { client } from '../api.js';
import { useLoad } from '../hooks/use-load.js';

export type OrderStatus = NonNullable<TradingOrdersListInput['status']>;

export const useApprovals = (agentId: string, version = 0) =>
  useLoad(() => client.trading.approvals({ limit: 200 }, { agentId }), [agentId, version]);

/** The newest 200 orders, of one status when `status` is given (the route filters by status). */
export const useOrders = (agentId: string, status: OrderStatus | '', version = 0) =>
  useLoad(() => client.trading.orders({ limit: 200, ...(status ? { status } : {}) }, { agentId }), [agentId, status, version]);

/** Whether orders wait for approval (`autoApprove`), among the agent's order defaults. */
export const useOrderProfile = (agentId: string, version = 0) => useLoad(() => client.config.orderProfile({ agentId }), [agentId, version]);

export const usePnl = (agentId: string, version = 0) => useLoad(() => client.trading.pnl({ agentId }), [agentId, version]);

/** The portfolio's value from `sinceMs` ago until now, in at most `points` points. */
export const useValueHistory = (agentId: string, sinceMs: number, points: number, version: unknown) =>
  useLoad(
    () => client.trading.history({ from: new Date(Date.now() - sinceMs).toISOString(), limit: points }, { agentId }),
    [agentId, sinceMs, points, version],
  );

/** The agent's custodial wallet on each chain family: Solana, then EVM. */
export const useCustodialWallets = (agentId: string, version = 0) =>
  useLoad(
    async () => Promise.all((['solana', 'evm'] as const).map((chain) => client.wallets.custodial({ chain }, { agentId }))),
    [agentId, version],
  );

export const useEvmVenue = () => useLoad(() => client.trading.evmStatus(), []);
