import { describe, expect, it } from 'vitest';
import { toWithdrawalView, withdrawalDefinition, type WithdrawalEvent, type WithdrawalInput } from '../../machines/withdrawal.machine.js';
import { startActor } from '../support/machine-harness.js';

const input: WithdrawalInput = {
  withdrawalId: 'wd_1',
  subjectType: 'agent',
  subjectId: 'agt_1',
  chain: 'solana',
  walletId: 'wal_1',
  from: 'From111',
  to: 'To111',
  token: 'So11111111111111111111111111111111111111112',
  symbol: 'SOL',
  decimals: 9,
  amount: '1000',
  valueUsd: 0.1,
  createdAt: 1_000,
};
const machine = withdrawalDefinition.machine;

describe('withdrawal machine', () => {
  it('walks requested → signed → broadcast → confirmed, announcing each step without the signed bytes', () => {
    const { actor, emitted } = startActor(machine, input);
    expect(actor.getSnapshot().value).toBe('requested');
    actor.send({ type: 'withdrawal.sign', at: 2_000, txSignature: 'sig', signedTx: 'AAAA', validUntilHeight: 99 });
    actor.send({ type: 'withdrawal.broadcast', at: 3_000 });
    actor.send({ type: 'withdrawal.confirm', at: 4_000 });
    expect(actor.getSnapshot().value).toBe('confirmed');
    expect(actor.getSnapshot().status).toBe('done');
    expect(emitted.map((e) => `${(e as { type: string }).type}:${(e as { withdrawal: { status: string } }).withdrawal.status}`)).toEqual([
      'withdrawal.created:requested',
      'withdrawal.updated:signed',
      'withdrawal.updated:broadcast',
      'withdrawal.updated:confirmed',
    ]);
    expect(JSON.stringify(emitted)).not.toContain('AAAA');
    expect(actor.getSnapshot().context).toMatchObject({ txSignature: 'sig', signedTx: 'AAAA', validUntilHeight: 99, updatedAt: 4_000 });
  });

  it('takes one signature only: a second sign is not accepted, and nothing leaves a final state', () => {
    const { actor } = startActor(machine, input);
    actor.send({ type: 'withdrawal.sign', at: 2_000, txSignature: 'first', signedTx: 'A' });
    actor.send({ type: 'withdrawal.sign', at: 2_001, txSignature: 'second', signedTx: 'B' });
    expect(actor.getSnapshot().context.txSignature).toBe('first');
    actor.send({ type: 'withdrawal.fail', at: 3_000, reason: 'expired' });
    actor.send({ type: 'withdrawal.confirm', at: 4_000 });
    expect(actor.getSnapshot().value).toBe('failed');
    expect(actor.getSnapshot().context.reason).toBe('expired');
  });

  it('behaves the same after a persist and restore in `signed` (recovery)', () => {
    const { actor } = startActor(machine, input);
    actor.send({ type: 'withdrawal.sign', at: 2_000, txSignature: 'sig', signedTx: 'A' });
    const persisted = JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));
    const { actor: restored, emitted } = startActor(machine, input, persisted);
    expect(restored.getSnapshot().value).toBe('signed');
    restored.send({ type: 'withdrawal.confirm', at: 5_000 });
    expect(restored.getSnapshot().value).toBe('confirmed');
    expect(emitted).toHaveLength(1);
    expect(withdrawalDefinition.indexes!(restored.getSnapshot().context)).toMatchObject({ walletOpen: 'wal_1|closed' });
    expect(withdrawalDefinition.indexes!(persisted.context)).toMatchObject({ walletOpen: 'wal_1|open' });
  });

  it('reads an actor an older build settled in one step (stored `confirmed` straight from `requested`); takes that step no more', () => {
    // What that build persisted: the `requested` snapshot moved to `confirmed` with its signature, nothing in between.
    const { actor: requested } = startActor(machine, input);
    const stored = JSON.parse(JSON.stringify(requested.getPersistedSnapshot()));
    Object.assign(stored, { value: 'confirmed', status: 'done' });
    Object.assign(stored.context, { status: 'confirmed', txSignature: 'paper-sig', signedTx: 'PPPP', updatedAt: 2_000 });
    const { actor: restored } = startActor(machine, input, stored);
    expect(restored.getSnapshot().status).toBe('done');
    expect(withdrawalDefinition.version).toBe(1);
    expect(withdrawalDefinition.indexes!(restored.getSnapshot().context)).toMatchObject({ walletOpen: 'wal_1|closed' });
    expect(toWithdrawalView(restored.getSnapshot().context)).toMatchObject({ status: 'confirmed', txHash: 'paper-sig' });

    // A local ledger's transfer now takes the three steps in one commit; the one-step event is not accepted.
    const { actor } = startActor(machine, input);
    const settle = { type: 'withdrawal.settle', at: 2_000, txSignature: 'paper-sig', signedTx: 'PPPP' } as unknown as WithdrawalEvent;
    expect(actor.getSnapshot().can(settle)).toBe(false);
    actor.send(settle);
    expect(actor.getSnapshot().value).toBe('requested');
  });
});
