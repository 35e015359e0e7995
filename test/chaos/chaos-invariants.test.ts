/**
 * The chaos run's checker fails each invariant when the records break it: one consistent run,
 * then one break per invariant, each seen by that invariant and no other.
 */
import { describe, expect, it } from 'vitest';
import { checkInvariants, type ChaosRecords } from './chaos-invariants.js';

const USDC = 'usdc-mint';
const SOL = 'sol-mint';
const WALLET = 'wallet-1';
const SECOND = 1_000;

/** A small run where everything holds: two swaps, a DCA strategy of three ticks, a withdrawal, a resuming SSE client. */
function consistentRun(): ChaosRecords {
  const order = (orderId: string, extra: Partial<ChaosRecords['orders'][number]> = {}) => ({
    orderId,
    agentId: 'agent-1',
    channel: 'rest',
    status: 'filled',
    walletAddress: WALLET,
    inputMint: USDC,
    outputMint: SOL,
    amountIn: '1000000',
    filledOut: '5000',
    createdAt: 0,
    ...extra,
  });
  const fill = (orderId: string) => ({
    orderId,
    address: WALLET,
    inputMint: USDC,
    outputMint: SOL,
    amountIn: '1000000',
    status: 'filled',
    filledOut: '5000',
  });
  const tick = (n: number) =>
    order(`dca-${n}`, { channel: 'dca', strategyId: 'strategy-1', tickDueAt: n * SECOND, createdAt: n * SECOND + 50 });
  return {
    answers: [
      { sentAt: 0, at: 10, via: 'rest', what: 'swap', status: 200 },
      { sentAt: 0, at: 10, via: 'mcp', what: 'swap', status: 429 },
      { sentAt: 5_000, at: 5_500, via: 'rest', what: 'swap', status: 503 },
      { sentAt: 8_000, at: 8_100, via: 'mcp', what: 'swap', status: 'none' },
    ],
    swaps: [
      { agentId: 'agent-1', key: 'k1', derivedId: 'order-1', ackedId: 'order-1', ackedStatus: 'filled' },
      { agentId: 'agent-1', key: 'k2', derivedId: 'order-2', ackedId: 'order-2', ackedStatus: 'filled' },
      { agentId: 'agent-1', key: 'k3', derivedId: 'order-3' },
    ],
    withdrawals: [{ agentId: 'agent-1', key: 'w1', ackedId: 'wd-1', ackedStatus: 'confirmed' }],
    orders: [order('order-1'), order('order-2'), tick(1), tick(2), tick(3)],
    storedWithdrawals: [
      { withdrawalId: 'wd-1', agentId: 'agent-1', status: 'confirmed', from: WALLET, token: USDC, amount: '1000000', txSignature: 'tx-1' },
    ],
    fills: ['order-1', 'order-2', 'dca-1', 'dca-2', 'dca-3'].map(fill),
    transfers: [{ txSignature: 'tx-1', from: WALLET, to: 'elsewhere', token: USDC, amount: '1000000' }],
    // 100 USDC in; 5 fills of 1 USDC → 5000 SOL units each; 1 USDC withdrawn.
    wallets: [{ address: WALLET, funded: { [USDC]: '100000000' }, balances: { [USDC]: '94000000', [SOL]: '25000' } }],
    strategies: [{ strategyId: 'strategy-1', intervalMs: SECOND, buys: 3, failures: 0, skipped: 0, inFlight: 0 }],
    sse: [{ agentId: 'agent-1', received: [1, 2, 3, 4, 5], connections: 3, reference: [1, 2, 3, 4, 5] }],
    faults: [
      { kind: 'redis-pause', from: 4_000, to: 6_000 },
      { kind: 'kill', from: 8_000, to: 9_000 },
    ],
  };
}

const violated = (records: ChaosRecords) =>
  checkInvariants(records)
    .filter((r) => r.violations.length > 0)
    .map((r) => r.name);

describe('chaos invariant checker', () => {
  it('passes a consistent run and counts what it checked', () => {
    const results = checkInvariants(consistentRun());
    expect(results.flatMap((r) => r.violations)).toEqual([]);
    expect(Object.fromEntries(results.map((r) => [r.name, r.checked]))).toEqual({
      'acknowledged orders present exactly once': 2,
      'acknowledged withdrawals present exactly once': 1,
      'ledger = fills': 1,
      'each DCA due tick bought once or counted skipped': 3,
      'no SSE event missing or doubled for a resuming client': 5,
      'only 2xx, documented 4xx, or 503 during the Redis pause': 4,
    });
  });

  it('fails when an acknowledged order is missing, or an order matches no key', () => {
    const lost = consistentRun();
    lost.orders = lost.orders.filter((o) => o.orderId !== 'order-2');
    lost.fills = lost.fills.filter((f) => f.orderId !== 'order-2');
    lost.wallets[0]!.balances = { [USDC]: '95000000', [SOL]: '20000' };
    expect(violated(lost)).toEqual(['acknowledged orders present exactly once']);
    const stray = consistentRun();
    stray.swaps = stray.swaps.filter((s) => s.key !== 'k3');
    stray.orders.push({ ...stray.orders[0]!, orderId: 'order-3', status: 'failed', filledOut: undefined });
    expect(violated(stray)).toEqual(['acknowledged orders present exactly once']);
  });

  it('fails when an acknowledged withdrawal is missing or moved twice', () => {
    const lost = consistentRun();
    lost.storedWithdrawals = [];
    lost.transfers = [];
    lost.wallets[0]!.balances[USDC] = '95000000';
    expect(violated(lost)).toEqual(['acknowledged withdrawals present exactly once']);
    const twice = consistentRun();
    twice.storedWithdrawals.push({ ...twice.storedWithdrawals[0]!, withdrawalId: 'wd-2', txSignature: 'tx-2' });
    twice.transfers.push({ ...twice.transfers[0]!, txSignature: 'tx-2' });
    twice.wallets[0]!.balances[USDC] = '93000000';
    expect(violated(twice)).toEqual(['acknowledged withdrawals present exactly once']);
  });

  it('fails when the balances and the fills disagree', () => {
    const applied = consistentRun();
    applied.wallets[0]!.balances[SOL] = '30000'; // one fill applied twice
    expect(violated(applied)).toEqual(['ledger = fills']);
    const unfilled = consistentRun();
    unfilled.fills[0]!.status = 'rejected'; // the order says filled, the venue did not move the money
    unfilled.wallets[0]!.balances = { [USDC]: '95000000', [SOL]: '20000' };
    expect(violated(unfilled)).toEqual(['ledger = fills']);
  });

  it('fails when a DCA tick is bought twice, counted twice, or lost outside every fault', () => {
    const twice = consistentRun();
    const again = { ...twice.orders.find((o) => o.orderId === 'dca-2')!, orderId: 'dca-2b' };
    twice.orders.push(again);
    twice.fills.push({ ...twice.fills[0]!, orderId: 'dca-2b' });
    twice.wallets[0]!.balances = { [USDC]: '93000000', [SOL]: '30000' };
    twice.strategies[0]!.buys = 4;
    expect(violated(twice)).toEqual(['each DCA due tick bought once or counted skipped']);
    const counted = consistentRun();
    counted.strategies[0]!.buys = 4;
    expect(violated(counted)).toEqual(['each DCA due tick bought once or counted skipped']);
    const lost = consistentRun();
    lost.orders = lost.orders.filter((o) => o.orderId !== 'dca-2');
    lost.fills = lost.fills.filter((f) => f.orderId !== 'dca-2');
    lost.wallets[0]!.balances = { [USDC]: '95000000', [SOL]: '20000' };
    lost.strategies[0]!.buys = 2;
    expect(violated(lost)).toEqual(['each DCA due tick bought once or counted skipped']);
    // The same gap counted as skipped holds.
    lost.strategies[0]!.skipped = 1;
    expect(violated(lost)).toEqual([]);
  });

  it('fails when a resuming SSE client misses, doubles or invents an event', () => {
    for (const received of [
      [1, 2, 4, 5],
      [1, 2, 3, 3, 4, 5],
      [1, 2, 3, 4, 5, 6],
    ]) {
      const run = consistentRun();
      run.sse[0]!.received = received;
      expect(violated(run)).toEqual(['no SSE event missing or doubled for a resuming client']);
    }
  });

  it('fails on a 500, an undocumented 4xx, a 503 outside the Redis pause, or a cut outside a kill', () => {
    for (const answer of [
      { sentAt: 0, at: 10, via: 'rest' as const, what: 'swap', status: 500 },
      { sentAt: 0, at: 10, via: 'rest' as const, what: 'swap', status: 418 },
      { sentAt: 20_000, at: 20_010, via: 'mcp' as const, what: 'swap', status: 503 },
      { sentAt: 20_000, at: 20_010, via: 'sse' as const, what: 'stream', status: 'none' as const },
    ]) {
      const run = consistentRun();
      run.answers.push(answer);
      expect(violated(run)).toEqual(['only 2xx, documented 4xx, or 503 during the Redis pause']);
    }
  });
});
