import { describe, expect, it } from 'vitest';
import { startActor } from '../support/machine-harness.js';
import { agentDefinition, agentMachine, type AgentEvent } from '../../machines/agent.machine.js';

const input = { agentId: 'agent-1', publicId: 'pub-1', ownerId: 'user-1', name: 'Alpha', createdAt: 1_700_000_000_000 };

const start = (snapshot?: unknown) => startActor(agentMachine, input, snapshot);

function walk(events: AgentEvent[]) {
  const { actor, emitted } = start();
  for (const event of events) actor.send(event);
  return { snapshot: actor.getSnapshot(), emitted, actor };
}

describe('agent machine', () => {
  it('starts created with trading disabled', () => {
    const { snapshot } = walk([]);
    expect(snapshot.value).toBe('created');
    expect(snapshot.context).toMatchObject({ ...input, tradingEnabled: false });
  });

  it.each<[string, AgentEvent[], string]>([
    ['created → active', [{ type: 'agent.activate' }], 'active'],
    ['created → archived', [{ type: 'agent.archive' }], 'archived'],
    ['active → paused', [{ type: 'agent.activate' }, { type: 'agent.pause' }], 'paused'],
    ['paused → active', [{ type: 'agent.activate' }, { type: 'agent.pause' }, { type: 'agent.resume' }], 'active'],
    ['active → archived', [{ type: 'agent.activate' }, { type: 'agent.archive' }], 'archived'],
    ['paused → archived', [{ type: 'agent.activate' }, { type: 'agent.pause' }, { type: 'agent.archive' }], 'archived'],
  ])('%s', (_name, events, state) => {
    expect(walk(events).snapshot.value).toBe(state);
  });

  it('refuses transitions its state does not have', () => {
    const created = walk([]).snapshot;
    expect(created.can({ type: 'agent.pause' })).toBe(false);
    expect(created.can({ type: 'agent.resume' })).toBe(false);
    const active = walk([{ type: 'agent.activate' }]).snapshot;
    expect(active.can({ type: 'agent.activate' })).toBe(false);
    expect(active.can({ type: 'agent.resume' })).toBe(false);
  });

  it('archived is final: nothing changes it any more', () => {
    const { actor, snapshot } = walk([{ type: 'agent.activate' }, { type: 'agent.archive' }]);
    expect(snapshot.status).toBe('done');
    actor.send({ type: 'agent.rename', name: 'Other' });
    actor.send({ type: 'agent.trading.enable' });
    expect(actor.getSnapshot().context).toMatchObject({ name: 'Alpha', tradingEnabled: false });
  });

  it('enables and disables trading in any live state, refusing no-op toggles', () => {
    for (const prefix of [[], [{ type: 'agent.activate' }], [{ type: 'agent.activate' }, { type: 'agent.pause' }]] as AgentEvent[][]) {
      const enabled = walk([...prefix, { type: 'agent.trading.enable' }]).snapshot;
      expect(enabled.context.tradingEnabled).toBe(true);
      expect(enabled.can({ type: 'agent.trading.enable' })).toBe(false);
      const disabled = walk([...prefix, { type: 'agent.trading.enable' }, { type: 'agent.trading.disable' }]).snapshot;
      expect(disabled.context.tradingEnabled).toBe(false);
      expect(disabled.can({ type: 'agent.trading.disable' })).toBe(false);
    }
  });

  it('renames, refusing a rename to the same name', () => {
    const { snapshot } = walk([{ type: 'agent.rename', name: 'Beta' }]);
    expect(snapshot.context.name).toBe('Beta');
    expect(snapshot.can({ type: 'agent.rename', name: 'Beta' })).toBe(false);
  });

  it('emits agent.updated on every change', () => {
    const { emitted } = walk([{ type: 'agent.activate' }, { type: 'agent.trading.enable' }, { type: 'agent.pause' }]);
    expect(emitted).toEqual([
      { type: 'agent.updated', agentId: 'agent-1', name: 'Alpha', tradingEnabled: false },
      { type: 'agent.updated', agentId: 'agent-1', name: 'Alpha', tradingEnabled: true },
      { type: 'agent.updated', agentId: 'agent-1', name: 'Alpha', tradingEnabled: true },
    ]);
  });

  it('rehydrates from a persisted snapshot and behaves the same', () => {
    const { actor } = walk([{ type: 'agent.activate' }, { type: 'agent.trading.enable' }]);
    const persisted = JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));
    actor.stop();
    const restored = start(persisted).actor;
    expect(restored.getSnapshot().value).toBe('active');
    expect(restored.getSnapshot().context.tradingEnabled).toBe(true);
    restored.send({ type: 'agent.pause' });
    expect(restored.getSnapshot().value).toBe('paused');
    restored.send({ type: 'agent.resume' });
    expect(restored.getSnapshot().value).toBe('active');
  });

  it('claim: the first makes the claimant the owner; only the claimant verifies; the state value stays the lifecycle', () => {
    const { actor, emitted } = walk([{ type: 'agent.activate' }]);
    actor.send({ type: 'agent.claim', userId: 'user-2', wallet: '0xabc', at: 10 });
    expect(actor.getSnapshot().value).toBe('active');
    expect(actor.getSnapshot().context).toMatchObject({
      ownerId: 'user-2',
      claim: { claimedBy: 'user-2', wallet: '0xabc', claimedAt: 10, verifiedAt: 10 },
    });
    expect(emitted.at(-1)).toMatchObject({ type: 'agent.updated' });
    expect(actor.getSnapshot().can({ type: 'agent.claim', userId: 'user-3', wallet: '0xabc', at: 11 })).toBe(false);
    expect(actor.getSnapshot().can({ type: 'agent.claim.verify', userId: 'user-3', at: 11 })).toBe(false);
    actor.send({ type: 'agent.claim.verify', userId: 'user-2', at: 12 });
    expect(actor.getSnapshot().context.claim).toEqual({ claimedBy: 'user-2', wallet: '0xabc', claimedAt: 10, verifiedAt: 12 });
    actor.send({ type: 'agent.scopes.set', maxScope: 'read' });
    expect(actor.getSnapshot().context.maxScope).toBe('read');
  });

  it.each<[string, AgentEvent[], 'read' | 'trade', 'read' | 'trade']>([
    ['no cap (manage) lowered to trade', [], 'trade', 'trade'],
    ['manage lowered to read', [{ type: 'agent.scopes.set', maxScope: 'manage' }], 'read', 'read'],
    ['read kept when trade is asked', [{ type: 'agent.scopes.set', maxScope: 'read' }], 'trade', 'read'],
  ])('a lowering keeps the lower cap: %s', (_name, events, requested, expected) => {
    const { actor } = walk(events);
    actor.send({ type: 'agent.scopes.lower', maxScope: requested });
    expect(actor.getSnapshot().context.maxScope).toBe(expected);
  });

  it('reads a version 1 snapshot as unclaimed and uncapped', () => {
    const v1 = { value: 'active', status: 'active', context: { ...input, tradingEnabled: true }, children: {}, historyValue: {} };
    const migrated = agentDefinition.migrations![1]!(v1);
    const { actor } = start(migrated);
    expect(actor.getSnapshot().context.claim).toBeUndefined();
    expect(actor.getSnapshot().can({ type: 'agent.claim', userId: 'u', wallet: 'w', at: 1 })).toBe(true);
  });
});
