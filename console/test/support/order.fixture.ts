/** Orders as the service lists them (`trading_orders_list` items): a filled swap of 10 USDC to SOL unless told otherwise. */
import type { Order } from '../../src/components/order-table.js';

let next = 1;

export function order(fields: Partial<Order> = {}): Order {
  const id = next++;
  return {
    order_id: `ord_${id}`,
    chain: 'solana',
    side: 'swap',
    inputMint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    outputMint: 'So11111111111111111111111111111111111111112',
    inputSymbol: 'USDC',
    outputSymbol: 'SOL',
    inputDecimals: 6,
    outputDecimals: 9,
    amountIn: '10000000',
    expectedOut: '65100000',
    minOut: '64800000',
    slippageBps: 50,
    priceImpactBps: 1,
    valueUsd: '10',
    status: 'filled',
    venue: 'paper',
    walletId: 'wal_1',
    channel: 'console',
    checks: ['credential_scope', 'trading_enabled', 'kill_switch', 'balance', 'risk_policy'],
    createdAt: '2025-01-02T03:04:05.000Z',
    updatedAt: '2025-01-02T03:04:06.000Z',
    filledOut: '65000000',
    ...fields,
  };
}
