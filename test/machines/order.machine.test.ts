import { describe, expect, it } from 'vitest';
import { orderDefinition, orderMachine, orderTimeKey, type OrderEvent, type OrderInput } from '../../machines/order.machine.js';
import { startActor } from '../support/machine-harness.js';

const T0 = 1_700_000_000_000;
const base: Omit<OrderInput, 'requiresApproval'> = {
  orderId: 'ord_1',
  subjectType: 'agent',
  subjectId: 'agt_1',
  userId: 'usr_1',
  chain: 'solana',
  side: 'buy',
  inputMint: 'So11111111111111111111111111111111111111112',
  outputMint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
  inputSymbol: 'SOL',
  outputSymbol: 'USDC',
  inputDecimals: 9,
  outputDecimals: 6,
  amountIn: '1000000000',
  expectedOut: '150000000',
  minOut: '148500000',
  slippageBps: 100,
  priceImpactBps: 3,
  valueUsd: 150,
  venue: 'paper',
  walletId: 'wal_1',
  walletAddress: 'addr',
  channel: 'rest',
  checks: ['trading_enabled'],
  createdAt: T0,
  approvalExpiresAt: T0 + 15 * 60_000,
};

function walk(requiresApproval: boolean, events: OrderEvent[]) {
  const { actor, emitted } = startActor(orderMachine, { ...base, requiresApproval });
  for (const event of events) actor.send(event);
  return { snapshot: actor.getSnapshot(), emitted: emitted as Array<{ type: string; order: { status: string } }>, actor };
}

describe('order machine', () => {
  it('an auto-approved order starts in submitting (persisted before anything is sent) and announces its creation', () => {
    const { snapshot, emitted } = walk(false, []);
    expect(snapshot.value).toBe('submitting');
    expect(snapshot.context).toMatchObject({ status: 'submitting', approvedAt: T0, submittedAt: T0 });
    expect(emitted.map((e) => e.type)).toEqual(['order.created']);
    expect(emitted[0]!.order.status).toBe('submitting');
  });

  it('an order that needs approval starts pending_approval (the states and transitions)', () => {
    const { snapshot, emitted } = walk(true, []);
    expect(snapshot.value).toBe('pending_approval');
    expect(emitted[0]!.order.status).toBe('pending_approval');
  });

  it.each<[string, boolean, OrderEvent[], string]>([
    ['pending_approval → approved', true, [{ type: 'order.approve', at: T0 + 1 }], 'approved'],
    ['pending_approval → rejected', true, [{ type: 'order.reject', at: T0 + 1 }], 'rejected'],
    ['pending_approval → expired', true, [{ type: 'order.expire', at: T0 + 15 * 60_000 }], 'expired'],
    [
      'pending_approval → expired (approved after its window, the expiry job late)',
      true,
      [{ type: 'order.approve', at: T0 + 15 * 60_000 }],
      'expired',
    ],
    ['pending_approval → cancelled', true, [{ type: 'order.cancel', at: T0 + 1 }], 'cancelled'],
    [
      'approved → submitting',
      true,
      [
        { type: 'order.approve', at: T0 + 1 },
        { type: 'order.submit', at: T0 + 2 },
      ],
      'submitting',
    ],
    [
      'approved → cancelled',
      true,
      [
        { type: 'order.approve', at: T0 + 1 },
        { type: 'order.cancel', at: T0 + 2 },
      ],
      'cancelled',
    ],
    [
      'approved → failed (re-check refused)',
      true,
      [
        { type: 'order.approve', at: T0 + 1 },
        { type: 'order.fail', at: T0 + 2, reason: 'insufficient_balance' },
      ],
      'failed',
    ],
    [
      'submitting → submitted → filled',
      false,
      [
        { type: 'order.submitted', at: T0 + 1, txSignature: 'sig' },
        { type: 'order.fill', at: T0 + 2, filledOut: '149000000', txSignature: 'sig' },
      ],
      'filled',
    ],
    ['submitting → filled', false, [{ type: 'order.fill', at: T0 + 1, filledOut: '149000000', txSignature: 'sig' }], 'filled'],
    ['submitting → failed', false, [{ type: 'order.fail', at: T0 + 1, reason: 'slippage' }], 'failed'],
    [
      'submitted → failed',
      false,
      [
        { type: 'order.submitted', at: T0 + 1, txSignature: 'sig' },
        { type: 'order.fail', at: T0 + 2, reason: 'expired' },
      ],
      'failed',
    ],
  ])('%s', (_name, approval, events, state) => {
    const { snapshot, emitted } = walk(approval, events);
    expect(snapshot.value).toBe(state);
    expect(snapshot.context.status).toBe(state);
    expect(emitted.at(-1)!.order.status).toBe(state);
    expect(snapshot.context.updatedAt).toBe(events.at(-1)!.at);
  });

  it('an approval after the window expires the order instead of approving it', () => {
    const { snapshot } = walk(true, [{ type: 'order.approve', at: T0 + 15 * 60_000 + 1 }]);
    expect(snapshot.context).toMatchObject({ status: 'expired', reason: 'approval window expired' });
    expect(snapshot.context.approvedAt).toBeUndefined();
    expect(walk(true, [{ type: 'order.approve', at: T0 + 15 * 60_000 - 1 }]).snapshot.value).toBe('approved');
  });

  it('an early expiry wake-up is ignored', () => {
    const { snapshot } = walk(true, [{ type: 'order.expire', at: T0 + 60_000 }]);
    expect(snapshot.value).toBe('pending_approval');
  });

  it('refuses what its state does not take: no second approval, nothing after a final state, no fill before submission', () => {
    const approved = walk(true, [{ type: 'order.approve', at: T0 + 1 }]).snapshot;
    expect(approved.can({ type: 'order.approve', at: T0 + 2 })).toBe(false);
    expect(approved.can({ type: 'order.fill', at: T0 + 2, filledOut: '1', txSignature: 's' })).toBe(false);
    const filled = walk(false, [{ type: 'order.fill', at: T0 + 1, filledOut: '1', txSignature: 's' }]).snapshot;
    for (const event of [
      { type: 'order.fail', at: T0 + 2, reason: 'x' },
      { type: 'order.cancel', at: T0 + 2 },
    ] as OrderEvent[]) {
      expect(filled.can(event)).toBe(false);
    }
    const submitting = walk(false, []).snapshot;
    expect(submitting.can({ type: 'order.cancel', at: T0 + 1 })).toBe(false);
  });

  it('rehydrates from its persisted snapshot and behaves the same', () => {
    const first = walk(true, [{ type: 'order.approve', at: T0 + 1 }]);
    const persisted = first.actor.getPersistedSnapshot();
    const { actor, emitted } = startActor(orderMachine, { ...base, requiresApproval: true }, JSON.parse(JSON.stringify(persisted)));
    expect(actor.getSnapshot().value).toBe('approved');
    expect(emitted).toEqual([]); // restoring does not announce creation again
    actor.send({ type: 'order.submit', at: T0 + 2 });
    expect(actor.getSnapshot().value).toBe('submitting');
  });

  it('indexes orders by account, newest first, and by account + status', () => {
    const context = walk(true, []).snapshot.context;
    const indexes = orderDefinition.indexes!(context);
    expect(indexes).toMatchObject({
      subject: 'agent:agt_1',
      subjectStatus: orderTimeKey('agent:agt_1|pending_approval', T0),
      subjectOpen: 'agent:agt_1|open',
    });
    expect(orderTimeKey('agent:a', T0 + 1) < orderTimeKey('agent:a', T0)).toBe(true);
  });
});
