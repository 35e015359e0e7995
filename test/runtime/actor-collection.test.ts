/**
 * The runtime's typed handle of one machine type (`runtime.collection(definition)`):
 * get / find / count / create / send typed by the definition, over the same committed views
 * as the address API (no read or copy of its own), and the same answers for what is not there.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { MemoryStore } from '../support/memory-store.adapter.js';
import { agentDefinition, type AgentContext } from '../../machines/agent.machine.js';
import { botDefinition } from '../../machines/bot.machine.js';
import type { ActorCollection, ActorView } from '../../kernel/ports/actor-collection.port.js';
import { ActorRuntime } from '../../src/runtime/actor-runtime.js';

const SIDE = { name: 'test.side', indexes: [] };

async function setup() {
  const clock = new ManualClock(1_000);
  const store = new MemoryStore(clock);
  const runtime = new ActorRuntime({
    store,
    clock,
    logger: pino({ level: 'silent' }),
    maxLiveActors: 100,
    idleMs: 60_000,
    maxConflictRetries: 3,
  });
  runtime.register(agentDefinition);
  await runtime.start();
  await store.init([SIDE]);
  const agents = runtime.collection(agentDefinition);
  const create = (id: string, ownerId = 'u1') =>
    agents.create(id, { agentId: id, publicId: `pub_${id}`, ownerId, name: `Agent ${id}`, createdAt: clock.now() });
  return { runtime, store, agents, create };
}

describe('ActorRuntime.collection (typed handle)', () => {
  it('creates, reads and sends with the definition’s context and events', async () => {
    const { runtime, agents, create } = await setup();
    const created = await create('a1');
    expect(created).toMatchObject({ type: 'agent', id: 'a1', state: 'created', version: 1 });
    // Typed: no cast to reach the context.
    const name: string = created.context.name;
    expect(name).toBe('Agent a1');

    const { accepted, view } = await agents.send('a1', { type: 'agent.activate' });
    expect(accepted).toBe(true);
    expect(view.state).toBe('active');
    expect((await agents.send('a1', { type: 'agent.activate' })).accepted).toBe(false);
    const enabled = await agents.send('a1', { type: 'agent.trading.enable' });
    expect(enabled.view.context.tradingEnabled).toBe(true);

    const read = await agents.get('a1');
    expect(read?.context.tradingEnabled).toBe(true);
    // The very view the address API answers: the handle adds no read and no copy.
    expect(read).toBe(await runtime.get({ type: 'agent', id: 'a1' }));
    expect(Object.isFrozen(read)).toBe(true);
  });

  it('answers null for an unknown id, 404 for sending to one, 409 for creating one twice', async () => {
    const { agents, create } = await setup();
    expect(await agents.get('nope')).toBeNull();
    await expect(agents.send('nope', { type: 'agent.activate' })).rejects.toMatchObject({
      kind: 'not_found',
      message: 'agent nope not found',
    });
    await create('a1');
    await expect(create('a1')).rejects.toMatchObject({ kind: 'conflict', message: 'agent a1 already exists' });
  });

  it('finds by index, pages by cursor, and counts up to a bound', async () => {
    const { agents, create } = await setup();
    for (const id of ['a1', 'a2', 'a3', 'a4']) await create(id);
    await create('b1', 'u2');
    await agents.send('a2', { type: 'agent.activate' });

    const first = await agents.find({ index: 'ownerId', eq: 'u1' }, { limit: 3 });
    expect(first.items.map((view) => view.context.agentId)).toEqual(['a1', 'a2', 'a3']);
    expect(first.nextCursor).toBeDefined();
    const rest = await agents.find({ index: 'ownerId', eq: 'u1' }, { limit: 3, cursor: first.nextCursor! });
    expect(rest.items.map((view) => view.id)).toEqual(['a4']);
    expect((await agents.find({ index: 'state', eq: 'active' }, { limit: 10 })).items.map((view) => view.id)).toEqual(['a2']);
    expect((await agents.find({ index: 'ownerId', eq: 'nobody' }, { limit: 10 })).items).toEqual([]);

    expect(await agents.count({ index: 'ownerId', eq: 'u1' }, 100)).toBe(4);
    expect(await agents.count({ index: 'ownerId', eq: 'u1' }, 3)).toBe(3);
    expect(await agents.count({ index: 'ownerId', eq: 'u1' }, 0)).toBe(0);
    expect(await agents.count({ index: 'state', eq: 'created' }, 100)).toBe(4);
  });

  it('counts without the actors in states it is told to skip, still stopping at the bound', async () => {
    const { agents, create } = await setup();
    for (const id of ['a1', 'a2', 'a3', 'a4', 'a5']) await create(id);
    for (const id of ['a1', 'a3']) await agents.send(id, { type: 'agent.activate' });
    const owned = { index: 'ownerId', eq: 'u1' };
    expect(await agents.count(owned, 100, { exceptStates: ['active'] })).toBe(3);
    expect(await agents.count(owned, 2, { exceptStates: ['active'] })).toBe(2);
    expect(await agents.count(owned, 100, { exceptStates: ['active', 'created'] })).toBe(0);
    expect(await agents.count(owned, 100, { exceptStates: [] })).toBe(5);
  });

  it('counts past one page of the index', async () => {
    const { agents, create } = await setup();
    for (let i = 0; i < 450; i++) await create(`a${String(i).padStart(3, '0')}`);
    expect(await agents.count({ index: 'ownerId', eq: 'u1' }, 10_000)).toBe(450);
    expect(await agents.count({ index: 'ownerId', eq: 'u1' }, 201)).toBe(201);
  });

  it('joins writes to a transition with the typed context after the event', async () => {
    const { agents, store, create } = await setup();
    await create('a1');
    const seen: AgentContext[] = [];
    await agents.send(
      'a1',
      { type: 'agent.rename', name: 'Renamed' },
      {
        join: async (context) => {
          seen.push(context);
          return {
            writes: [
              { op: 'put', collection: SIDE.name, id: context.agentId, input: { data: { name: context.name }, expectedVersion: 0 } },
            ],
          };
        },
      },
    );
    expect(seen.map((context) => context.name)).toEqual(['Renamed']);
    expect((await store.get(SIDE.name, 'a1'))?.data).toEqual({ name: 'Renamed' });
  });

  it('hands out one handle per type, and refuses use of a type the runtime does not host as the address API does', async () => {
    const { runtime } = await setup();
    expect(runtime.collection(agentDefinition)).toBe(runtime.collection(agentDefinition));
    const bots = runtime.collection(botDefinition); // made before registration: checked at use
    await expect(bots.find({ index: 'ownerId', eq: 'u1' }, { limit: 1 })).rejects.toMatchObject({
      kind: 'not_found',
      message: 'Unknown actor type: bot',
    });
    expect(await bots.get('b1')).toBeNull();
  });

  it('is typed by the definition (checked by the typecheck)', async () => {
    const { agents } = await setup();
    const typed: ActorCollection<AgentContext, { type: string }, unknown> = agents;
    expect(typed.type).toBe('agent');
    const assertTypes = (view: ActorView<AgentContext>) => {
      // @ts-expect-error an agent's context has no such field
      void view.context.botId;
      // @ts-expect-error an event the agent machine does not take
      void agents.send('a1', { type: 'bot.delete', at: 1 });
      // @ts-expect-error input lacks required fields
      void agents.create('a2', { agentId: 'a2' });
    };
    expect(typeof assertTypes).toBe('function');
  });
});
