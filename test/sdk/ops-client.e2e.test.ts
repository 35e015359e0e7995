/**
 * The ops client against the real service: the kill switch per chain, catalog families off
 * and on, actor inspection (types, list, one actor, its journal) and a wrong token refused.
 */
import nacl from 'tweetnacl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSdkError, naclSigner, OperatorClient, OpsClient } from '../../sdk/src/index.js';
import { PUBLIC_URL, startTestService, type TestService } from '../support/test-service.js';

let svc: TestService;
let ops: OpsClient;
beforeAll(async () => {
  svc = await startTestService();
  ops = new OpsClient({ baseUrl: svc.url, opsToken: svc.opsToken });
});
afterAll(() => svc.stop());

describe('OpsClient (e2e)', () => {
  it('switches the kill switch of one chain on and off', async () => {
    expect((await ops.killSwitch.get()).active).toEqual([]);
    const on = await ops.killSwitch.set({ chain: 'base', active: true });
    expect(on.active).toEqual(['base']);
    expect(on.chains.find((c) => c.chain === 'base')).toMatchObject({ active: true, source: 'operator' });
    expect((await ops.killSwitch.set({ chain: 'base', active: false })).active).toEqual([]);
  });

  it('switches a catalog family off and on', async () => {
    const before = await ops.catalog.get();
    expect(before.operations.length).toBeGreaterThan(10);
    const off = await ops.catalog.set({ disabledFamilies: ['research'], disabledOperations: [] });
    expect(off.settings.disabledFamilies).toEqual(['research']);
    expect(off.version).toBeGreaterThan(before.version);
    expect((await ops.catalog.set({ disabledFamilies: [], disabledOperations: [] })).settings.disabledFamilies).toEqual([]);
  });

  it("inspects an agent's actor: its state, context and journal", async () => {
    const operator = new OperatorClient({ baseUrl: svc.url, publicUrl: PUBLIC_URL });
    await operator.signInWithSolana(naclSigner(nacl.sign.keyPair()));
    const agent = await operator.agents.create({ name: 'inspected' });
    await operator.agents.pause(agent.agentId);
    const { types } = await ops.actors.types();
    expect(types).toContain('agent');
    const listed = await ops.actors.list('agent', { limit: 200 });
    expect(listed.items.map((item) => item.id)).toContain(agent.agentId);
    const view = await ops.actors.get('agent', agent.agentId);
    expect(view).toMatchObject({ type: 'agent', id: agent.agentId, status: 'active' });
    expect(JSON.stringify(view.state)).toContain('paused');
    const journal = await ops.actors.journal('agent', agent.agentId);
    expect(journal.items.length).toBeGreaterThan(0);
    expect(journal.items.map((entry) => entry.seq)).toEqual([...journal.items.map((entry) => entry.seq)].sort((a, b) => a - b));
  });

  it("draws a machine type's statechart from its definition: the agent's states, transitions and guards", async () => {
    const chart = await ops.actors.machine('agent');
    expect(chart).toMatchObject({ type: 'agent', version: 2, root: { id: 'agent', kind: 'compound', initial: 'created', path: [] } });
    expect(chart.root.states.map((node) => [node.key, node.kind, node.path])).toEqual([
      ['created', 'atomic', ['created']],
      ['active', 'atomic', ['active']],
      ['paused', 'atomic', ['paused']],
      ['archived', 'final', ['archived']],
    ]);
    const paused = chart.root.states.find((node) => node.key === 'paused');
    expect(paused?.transitions).toEqual([
      { trigger: 'event', event: 'agent.resume', targets: ['agent.active'] },
      { trigger: 'event', event: 'agent.archive', targets: ['agent.archived'] },
    ]);
    // Root transitions that only run actions stay where they are; their guards are named.
    expect(chart.root.transitions).toContainEqual({ trigger: 'event', event: 'agent.rename', targets: [], guard: 'nameChanges' });
    // Eventless transitions of the order machine, guarded and not.
    const order = await ops.actors.machine('order');
    expect(order.root.states.find((node) => node.key === 'created')?.transitions).toEqual([
      { trigger: 'always', event: '', targets: ['order.submitting'], guard: 'autoApproved' },
      { trigger: 'always', event: '', targets: ['order.pending_approval'] },
    ]);
    const error = await ops.actors.machine('spaceship').catch((caught: unknown) => caught);
    expect(isSdkError(error) && [error.status, error.message]).toEqual([404, 'Unknown actor type: spaceship']);
  });

  it('refuses a wrong token with the service status and message', async () => {
    const stranger = new OpsClient({ baseUrl: svc.url, opsToken: 'not-the-token', retry: { maxAttempts: 1 } });
    const error = await stranger.killSwitch.get().catch((caught: unknown) => caught);
    expect(isSdkError(error) && error.status).toBe(401);
  });
});
