import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { MemoryStore } from '../support/memory-store.adapter.js';
import { agentDefinition } from '../../machines/agent.machine.js';
import { counterDefinition } from '../support/counter.machine.js';
import { orderDefinition, type OrderInput } from '../../machines/order.machine.js';
import { AppError } from '../../kernel/errors/app-error.js';
import type { BusEvent, BusEventInput, EventBusPort } from '../../kernel/ports/event-bus.port.js';
import type { SendResult } from '../../kernel/ports/actor-collection.port.js';
import { ActorRuntime, type RuntimeOptions } from '../../src/runtime/actor-runtime.js';
import { collectionOf } from '../../src/runtime/actor-storage.js';
import { DurablePublisher } from '../../src/runtime/durable-publisher.js';

const logger = pino({ level: 'silent' });

/** An auto-approved order (created in `submitting`) of account agent:a1. */
const ORDER_INPUT: OrderInput = {
  orderId: 'o1',
  subjectType: 'agent',
  subjectId: 'a1',
  chain: 'solana',
  side: 'buy',
  inputMint: 'in',
  outputMint: 'out',
  inputSymbol: 'USDC',
  outputSymbol: 'SOL',
  inputDecimals: 6,
  outputDecimals: 9,
  amountIn: '1000000',
  expectedOut: '42',
  minOut: '40',
  slippageBps: 50,
  priceImpactBps: 1,
  valueUsd: 1,
  feeAmount: '0',
  venue: 'paper',
  walletId: 'w1',
  walletAddress: 'addr',
  channel: 'rest',
  checks: [],
  createdAt: 1,
  requiresApproval: false,
};

const agentInput = { agentId: 'a1', publicId: 'p1', ownerId: 'u1', name: 'Alpha', createdAt: 1 };

function makeRuntime(overrides: Partial<RuntimeOptions> = {}) {
  const clock = new ManualClock();
  const store = new MemoryStore(clock);
  const published: BusEvent[] = [];
  const bus = {
    publish: async (stream: string, event: BusEventInput) => {
      const full = { ...event, stream, id: published.length + 1, at: clock.now() };
      published.push(full);
      return full;
    },
  } as unknown as EventBusPort;
  const options: RuntimeOptions = { store, clock, logger, maxLiveActors: 1000, idleMs: 60_000, maxConflictRetries: 5, ...overrides };
  options.publisher ??= new DurablePublisher({ store: options.store, bus, logger: options.logger });
  const runtime = new ActorRuntime(options);
  runtime.register(agentDefinition);
  runtime.register(counterDefinition);
  return { runtime, store: options.store as MemoryStore, clock, published, options };
}

describe('actor runtime', () => {
  it('creates an actor and persists snapshot and journal before resolving', async () => {
    const { runtime, store } = makeRuntime();
    await runtime.start();
    const view = await runtime.create('agent', 'a1', agentInput);
    expect(view).toMatchObject({ type: 'agent', id: 'a1', state: 'created', version: 1, machineVersion: agentDefinition.version });
    const doc = await store.get(collectionOf('agent'), 'a1');
    expect(doc?.version).toBe(1);
    expect(doc?.indexes).toEqual({ state: 'created', ownerId: 'u1', publicId: 'p1' });
    const journal = await store.readJournal(collectionOf('agent'), 'a1', { limit: 10 });
    expect(journal).toEqual([{ seq: 1, event: { type: 'xstate.init', input: agentInput }, state: 'created', at: expect.any(Number) }]);
  });

  it('refuses to create an id twice with 409', async () => {
    const { runtime } = makeRuntime();
    await runtime.start();
    await runtime.create('agent', 'a1', agentInput);
    await expect(runtime.create('agent', 'a1', agentInput)).rejects.toMatchObject({ code: 'RESOURCE_CONFLICT', kind: 'conflict' });
  });

  it('sends events: version + 1 and a journal entry per accepted event', async () => {
    const { runtime, store } = makeRuntime();
    await runtime.start();
    await runtime.create('agent', 'a1', agentInput);
    const result = await runtime.send({ type: 'agent', id: 'a1' }, { type: 'agent.activate' });
    expect(result).toMatchObject({ accepted: true, view: { state: 'active', version: 2 } });
    const journal = await store.readJournal(collectionOf('agent'), 'a1', { limit: 10, afterSeq: 1 });
    expect(journal).toEqual([{ seq: 2, event: { type: 'agent.activate' }, state: 'active', at: expect.any(Number) }]);
    expect((await store.get(collectionOf('agent'), 'a1'))?.indexes.state).toBe('active');
  });

  it('writes nothing for an event the state does not take', async () => {
    const { runtime, store } = makeRuntime();
    await runtime.start();
    await runtime.create('agent', 'a1', agentInput);
    const result = await runtime.send({ type: 'agent', id: 'a1' }, { type: 'agent.resume' });
    expect(result).toMatchObject({ accepted: false, view: { state: 'created', version: 1 } });
    expect(await store.readJournal(collectionOf('agent'), 'a1', { limit: 10 })).toHaveLength(1);
  });

  it('answers 404 for unknown actors and unknown types', async () => {
    const { runtime } = makeRuntime();
    await runtime.start();
    await expect(runtime.send({ type: 'agent', id: 'nope' }, { type: 'agent.activate' })).rejects.toMatchObject({ kind: 'not_found' });
    await expect(runtime.send({ type: 'ghost', id: 'x' }, { type: 'x' })).rejects.toMatchObject({ kind: 'not_found' });
    expect(await runtime.get({ type: 'agent', id: 'nope' })).toBeNull();
  });

  it('processes events for one actor one at a time, in order', async () => {
    const { runtime, store } = makeRuntime();
    await runtime.start();
    await runtime.create('counter', 'c', undefined);
    const tags = Array.from({ length: 200 }, (_, i) => `t${i}`);
    const results = await Promise.all(tags.map((tag) => runtime.send({ type: 'counter', id: 'c' }, { type: 'inc', tag })));
    expect(results.map((r) => r.view.version)).toEqual(tags.map((_, i) => i + 2));
    const view = await runtime.get({ type: 'counter', id: 'c' });
    expect(view?.context).toEqual({ n: 200, seen: tags });
    const journal = await store.readJournal(collectionOf('counter'), 'c', { limit: 1000 });
    expect(journal.map((e) => e.seq)).toEqual(Array.from({ length: 201 }, (_, i) => i + 1));
  });

  it('passivates beyond the live bound and rehydrates with the same behaviour', async () => {
    const { runtime } = makeRuntime({ maxLiveActors: 10 });
    await runtime.start();
    for (let i = 0; i < 50; i++) await runtime.create('counter', `c${i}`, undefined);
    expect(runtime.stats().live).toBeLessThanOrEqual(10);
    expect(runtime.stats().passivations).toBeGreaterThanOrEqual(40);
    const result = await runtime.send({ type: 'counter', id: 'c0' }, { type: 'inc', tag: 'after' });
    expect(result.view).toMatchObject({ version: 2, context: { n: 1, seen: ['after'] } });
  });

  it('passivates idle actors on the clock', async () => {
    const { runtime, clock } = makeRuntime({ idleMs: 1000 });
    await runtime.start();
    await runtime.create('counter', 'c', undefined);
    expect(runtime.stats().live).toBe(1);
    await clock.advance(2000);
    expect(runtime.stats().live).toBe(0);
    await runtime.send({ type: 'counter', id: 'c' }, { type: 'inc', tag: 'x' });
    expect((await runtime.get({ type: 'counter', id: 'c' }))?.context).toEqual({ n: 1, seen: ['x'] });
  });

  it('frees an actor that reached its final state at once, and still answers for it from the store', async () => {
    const { runtime } = makeRuntime({ idleMs: 60_000 });
    await runtime.start();
    await runtime.create('counter', 'f', undefined);
    expect(runtime.stats().live).toBe(1);
    await runtime.send({ type: 'counter', id: 'f' }, { type: 'stop' });
    expect(runtime.stats().live).toBe(0);
    expect((await runtime.get({ type: 'counter', id: 'f' }))?.status).toBe('done');
    expect((await runtime.send({ type: 'counter', id: 'f' }, { type: 'inc', tag: 'late' })).accepted).toBe(false);
    expect(runtime.stats().live).toBe(0);
  });

  it('retries on a version conflict with another runtime on the same store: no update lost', async () => {
    const first = makeRuntime();
    const second = new ActorRuntime({ ...first.options });
    second.register(counterDefinition);
    await first.runtime.start();
    await second.start();
    await first.runtime.create('counter', 'c', undefined);
    // Warm both so each holds a live actor that the other makes stale.
    await first.runtime.send({ type: 'counter', id: 'c' }, { type: 'inc', tag: 'a0' });
    await second.send({ type: 'counter', id: 'c' }, { type: 'inc', tag: 'b0' });
    const sends = [];
    for (let i = 1; i <= 20; i++) {
      sends.push(first.runtime.send({ type: 'counter', id: 'c' }, { type: 'inc', tag: `a${i}` }));
      sends.push(second.send({ type: 'counter', id: 'c' }, { type: 'inc', tag: `b${i}` }));
    }
    await Promise.all(sends);
    const doc = await first.store.get<{ snapshot: { context: { n: number } } }>(collectionOf('counter'), 'c');
    expect(doc?.version).toBe(43);
    expect(doc?.data.snapshot.context.n).toBe(42);
  });

  it('gives up with a clear error after the bounded retries', async () => {
    const { runtime, store } = makeRuntime({ maxConflictRetries: 2 });
    await runtime.start();
    await runtime.create('counter', 'c', undefined);
    let puts = 0;
    store.put = async () => {
      puts++;
      throw new AppError('VERSION_CONFLICT', 'conflict');
    };
    await expect(runtime.send({ type: 'counter', id: 'c' }, { type: 'inc', tag: 'x' })).rejects.toMatchObject({
      code: 'RESOURCE_CONFLICT',
      message: 'Concurrent updates to counter/c: gave up after 3 attempts',
    });
    expect(puts).toBe(3);
  });

  it('a failed write leaves no trace in memory: readers and the next event see the stored state', async () => {
    const { runtime, store } = makeRuntime();
    await runtime.start();
    await runtime.create('counter', 'c', undefined);
    const realPut = store.put.bind(store);
    store.put = async () => {
      throw new AppError('DEPENDENCY_UNAVAILABLE', 'disk gone');
    };
    await expect(runtime.send({ type: 'counter', id: 'c' }, { type: 'inc', tag: 'lost' })).rejects.toMatchObject({
      code: 'DEPENDENCY_UNAVAILABLE',
    });
    expect((await runtime.get({ type: 'counter', id: 'c' }))?.context).toEqual({ n: 0, seen: [] });
    store.put = realPut;
    const result = await runtime.send({ type: 'counter', id: 'c' }, { type: 'inc', tag: 'kept' });
    expect(result.view.context).toEqual({ n: 1, seen: ['kept'] });
  });

  it('publishes emitted events after the write, with the resulting state', async () => {
    const { runtime, published } = makeRuntime();
    await runtime.start();
    await runtime.create('agent', 'a1', agentInput);
    await runtime.send({ type: 'agent', id: 'a1' }, { type: 'agent.activate' });
    await runtime.settled();
    expect(published).toEqual([
      expect.objectContaining({
        stream: 'agent:a1',
        type: 'agent.updated',
        data: { state: 'active', agentId: 'a1', name: 'Alpha', tradingEnabled: false },
      }),
    ]);
  });

  it('publishes only once the write is durable, in order, without holding the mailbox; settled() waits for both', async () => {
    const clock = new ManualClock();
    const memory = new MemoryStore(clock);
    // A store whose flushes complete when the test says so.
    const flushes: Array<() => void> = [];
    const store = Object.assign(Object.create(memory) as MemoryStore, {
      durable: () => new Promise<void>((resolve) => flushes.push(resolve)),
    });
    const { runtime, published } = makeRuntime({ store });
    await runtime.start();
    await runtime.create('agent', 'a1', agentInput);
    // Both transitions commit while the first flush is still under way: the mailbox does not wait for it.
    await runtime.send({ type: 'agent', id: 'a1' }, { type: 'agent.activate' });
    await runtime.send({ type: 'agent', id: 'a1' }, { type: 'agent.pause' });
    let settled = false;
    const waiting = runtime.settled().then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(published).toEqual([]);
    expect(settled).toBe(false);
    for (const flush of flushes.splice(0)) flush();
    await waiting;
    expect(published.map((event) => event.data.state)).toEqual(['active', 'paused']);
  });

  it('a store that cannot flush publishes nothing of what it could not make durable, and says so', async () => {
    const clock = new ManualClock();
    const memory = new MemoryStore(clock);
    const store = Object.assign(Object.create(memory) as MemoryStore, { durable: () => Promise.reject(new Error('EIO')) });
    const errors: unknown[] = [];
    const logged = pino({ level: 'error' }, { write: (line: string) => void errors.push(JSON.parse(line)) });
    const { runtime, published } = makeRuntime({ store, logger: logged });
    await runtime.start();
    await runtime.create('agent', 'a1', agentInput);
    await runtime.send({ type: 'agent', id: 'a1' }, { type: 'agent.activate' });
    await expect(runtime.settled()).rejects.toThrow('EIO');
    await new Promise((resolve) => setImmediate(resolve));
    expect(published).toEqual([]);
    expect(errors).toEqual([expect.objectContaining({ msg: 'events not published: the store did not flush' })]);
  });

  it('migrates snapshots of older machine versions and refuses unreadable ones', async () => {
    const { runtime, store, options } = makeRuntime();
    await runtime.start();
    await runtime.create('counter', 'old', undefined);
    await runtime.send({ type: 'counter', id: 'old' }, { type: 'inc', tag: 'x' });
    await runtime.shutdown();

    const v2 = {
      ...counterDefinition,
      version: 2,
      migrations: { 1: (s: any) => ({ ...s, context: { ...s.context, n: s.context.n * 10 } }) },
    };
    const migrating = new ActorRuntime(options);
    migrating.register(v2);
    await migrating.start();
    const view = await migrating.get({ type: 'counter', id: 'old' });
    expect(view?.context).toMatchObject({ n: 10 });
    const sent = await migrating.send({ type: 'counter', id: 'old' }, { type: 'inc', tag: 'y' });
    expect(sent.view.context).toMatchObject({ n: 11 });
    const stored = await store.get(collectionOf('counter'), 'old');
    expect((stored!.data as { machineVersion: number }).machineVersion).toBe(2);

    const v3 = new ActorRuntime(options);
    v3.register({ ...counterDefinition, version: 3 });
    await expect(v3.send({ type: 'counter', id: 'old' }, { type: 'inc', tag: 'z' })).rejects.toMatchObject({
      code: 'SNAPSHOT_VERSION_UNSUPPORTED',
      message: 'Snapshot of counter/old has machine version 2; this build reads version 3 and has no migration from 2',
    });
    const v1 = new ActorRuntime(options);
    v1.register(counterDefinition);
    await expect(v1.get({ type: 'counter', id: 'old' })).rejects.toMatchObject({
      message: 'Snapshot of counter/old was written by machine version 2; this build reads up to 1',
    });
  });

  it('refuses a malformed stored snapshot instead of mis-reading it', async () => {
    const { runtime, store } = makeRuntime();
    await runtime.start();
    await store.put(collectionOf('counter'), 'junk', { data: { machineVersion: 1, snapshot: { value: 'on' } }, expectedVersion: 0 });
    await expect(runtime.get({ type: 'counter', id: 'junk' })).rejects.toMatchObject({
      code: 'SNAPSHOT_VERSION_UNSUPPORTED',
      message: 'Stored snapshot of counter/junk is malformed',
    });
    await expect(runtime.send({ type: 'counter', id: 'junk' }, { type: 'inc', tag: 'x' })).rejects.toMatchObject({
      code: 'SNAPSHOT_VERSION_UNSUPPORTED',
    });
  });

  it('runs recovery hooks at start', async () => {
    const { runtime } = makeRuntime();
    const seen: string[] = [];
    runtime.onRecover('counter', async (rt) => {
      seen.push(rt.types().join(','));
    });
    await runtime.start();
    expect(seen).toEqual(['agent,counter']);
  });

  it('drains mailboxes on shutdown and then refuses new events', async () => {
    const { runtime } = makeRuntime();
    await runtime.start();
    await runtime.create('counter', 'c', undefined);
    const inFlight = Array.from({ length: 20 }, (_, i) => runtime.send({ type: 'counter', id: 'c' }, { type: 'inc', tag: `${i}` }));
    await runtime.shutdown();
    const results = await Promise.all(inFlight);
    expect(results.at(-1)?.view.version).toBe(21);
    await expect(runtime.send({ type: 'counter', id: 'c' }, { type: 'inc', tag: 'late' })).rejects.toMatchObject({
      code: 'SHUTTING_DOWN',
      kind: 'unavailable',
    });
  });

  describe('record writes joined to a transition (one commit)', () => {
    const TALLY = { collection: 'tallies', id: 't1' };
    /** Adds 1 to the tally record, read now; `seen` counts the calls (one per attempt). */
    const tallyJoin = (store: MemoryStore, seen: { calls: number }) => async (context: unknown) => {
      seen.calls++;
      const doc = await store.get<{ n: number }>(TALLY.collection, TALLY.id);
      return {
        writes: [
          {
            op: 'put' as const,
            ...TALLY,
            input: { data: { n: (doc?.data.n ?? 0) + 1, counted: (context as { n: number }).n }, expectedVersion: doc?.version ?? 0 },
          },
        ],
        events: [{ stream: 'tallies', type: 'tally.updated', data: { n: (doc?.data.n ?? 0) + 1 } }],
      };
    };

    async function joined() {
      const made = makeRuntime();
      await made.runtime.start();
      await made.store.init([{ name: TALLY.collection, indexes: [] }]);
      return made;
    }

    it('commits the actor and the joined records together, and publishes their events once durable', async () => {
      const { runtime, store, published } = await joined();
      const seen = { calls: 0 };
      await runtime.create('counter', 'c1', {}, { join: tallyJoin(store, seen) });
      const result = await runtime.send({ type: 'counter', id: 'c1' }, { type: 'inc', tag: 'a' }, { join: tallyJoin(store, seen) });
      expect(result).toMatchObject({ accepted: true, view: { version: 2 } });
      // The join sees the context after the event.
      expect((await store.get(TALLY.collection, TALLY.id))?.data).toEqual({ n: 2, counted: 1 });
      expect((await store.readJournal(collectionOf('counter'), 'c1', { limit: 10 })).map((e) => e.seq)).toEqual([1, 2]);
      await runtime.settled();
      expect(published.filter((e) => e.stream === 'tallies').map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }]);
    });

    it('writes nothing, neither the transition nor the records, when the join refuses', async () => {
      const { runtime, store } = await joined();
      await runtime.create('counter', 'c1', {});
      const refuse = async () => {
        throw new AppError('RISK_LIMIT_EXCEEDED', 'over the limit');
      };
      await expect(runtime.send({ type: 'counter', id: 'c1' }, { type: 'inc', tag: 'a' }, { join: refuse })).rejects.toMatchObject({
        code: 'RISK_LIMIT_EXCEEDED',
      });
      await expect(runtime.create('counter', 'c2', {}, { join: refuse })).rejects.toMatchObject({ code: 'RISK_LIMIT_EXCEEDED' });
      expect((await store.get(collectionOf('counter'), 'c1'))?.version).toBe(1);
      expect(await store.get(collectionOf('counter'), 'c2')).toBeNull();
      // The actor in memory was not left ahead of the store: the next event starts from n = 0.
      expect((await runtime.send({ type: 'counter', id: 'c1' }, { type: 'inc', tag: 'b' })).view.context).toMatchObject({
        n: 1,
        seen: ['b'],
      });
    });

    it('continues with the events the join names in the same commit: one version, one journal entry, each event with its state', async () => {
      const { runtime, store, published } = await joined();
      runtime.register(orderDefinition);
      await store.init(runtime.collections());
      const fill = { type: 'order.fill' as const, at: 5, filledOut: '42', txSignature: 'sig' };
      const seen = { calls: 0 };
      const tally = tallyJoin(store, seen);
      const view = await runtime.create('order', 'o1', ORDER_INPUT, {
        join: async (context) => ({ ...(await tally(context)), continueWith: [fill] }),
      });
      expect(view).toMatchObject({ version: 1, state: 'filled', status: 'done', context: { status: 'filled', filledOut: '42' } });
      expect((await store.get(TALLY.collection, TALLY.id))?.data).toMatchObject({ n: 1 });
      const journal = await store.readJournal(collectionOf('order'), 'o1', { limit: 10 });
      expect(journal).toEqual([
        { seq: 1, event: { type: 'xstate.init', input: ORDER_INPUT, continuedWith: [fill] }, state: 'filled', at: expect.any(Number) },
      ]);
      await runtime.settled();
      const orderEvents = published.filter((e) => e.stream === 'agent:a1').map((e) => [e.type, e.data.state]);
      expect(orderEvents).toEqual([
        ['order.created', 'submitting'],
        ['order.updated', 'filled'],
      ]);
      // A finished actor read back is the stored one; it takes no more events.
      expect((await runtime.send({ type: 'order', id: 'o1' }, { type: 'order.fail', at: 6, reason: 'late' })).accepted).toBe(false);
    });

    it('writes nothing when the machine does not take an event the join continues with', async () => {
      const { runtime, store } = await joined();
      runtime.register(orderDefinition);
      await store.init(runtime.collections());
      const approve = { type: 'order.approve' as const, at: 5 };
      await expect(
        runtime.create('order', 'o1', ORDER_INPUT, { join: async () => ({ writes: [], continueWith: [approve] }) }),
      ).rejects.toMatchObject({ kind: 'internal' });
      expect(await store.get(collectionOf('order'), 'o1')).toBeNull();
      // The id is still free: a create without the bad continuation takes it.
      expect((await runtime.create('order', 'o1', ORDER_INPUT)).state).toBe('submitting');
    });

    describe("another actor's event alongside", () => {
      const C2 = { type: 'counter', id: 'c2' };
      /** A join that sends `inc` to c2 in the same commit; `results` collects what it was told, one per commit made. */
      const alongside =
        (results: SendResult[], calls = { n: 0 }) =>
        async () => {
          calls.n++;
          return { writes: [], alongside: [{ ...C2, event: { type: 'inc', tag: 'joined' }, taken: (r: SendResult) => results.push(r) }] };
        };

      it('commits both transitions in one commit: each actor its version and journal entry, the other one in memory moves on', async () => {
        const { runtime, store } = await joined();
        await runtime.create('counter', 'c1', {});
        await runtime.create('counter', 'c2', {});
        const results: SendResult[] = [];
        const commits = countCommits(store);
        await runtime.send({ type: 'counter', id: 'c1' }, { type: 'inc', tag: 'a' }, { join: alongside(results) });
        expect(commits()).toEqual({ commit: 1, put: 0 });
        expect(results).toEqual([{ accepted: true, view: expect.objectContaining({ version: 2, context: { n: 1, seen: ['joined'] } }) }]);
        expect((await store.get(collectionOf('counter'), 'c2'))?.version).toBe(2);
        const journal = await store.readJournal(collectionOf('counter'), 'c2', { limit: 10 });
        expect(journal.map((e) => [e.seq, e.event])).toEqual([
          [1, { type: 'xstate.init', input: {} }],
          [2, { type: 'inc', tag: 'joined' }],
        ]);
        // c2's own next event starts from the joined one, with no read of the store.
        expect((await runtime.send(C2, { type: 'inc', tag: 'b' })).view).toMatchObject({
          version: 3,
          context: { n: 2, seen: ['joined', 'b'] },
        });
      });

      it('writes nothing of an actor whose state does not take the event; the joining commit goes ahead', async () => {
        const { runtime, store } = await joined();
        await runtime.create('counter', 'c1', {});
        await runtime.create('counter', 'c2', {});
        await runtime.send(C2, { type: 'stop' });
        const results: SendResult[] = [];
        const view = (await runtime.send({ type: 'counter', id: 'c1' }, { type: 'inc', tag: 'a' }, { join: alongside(results) })).view;
        expect(view.version).toBe(2);
        expect(results).toEqual([{ accepted: false, view: expect.objectContaining({ version: 2, state: 'off' }) }]);
        expect((await store.get(collectionOf('counter'), 'c2'))?.version).toBe(2);
      });

      it('decides again on a fresh read when another process moved the other actor meanwhile; told once', async () => {
        const { runtime, store, options } = await joined();
        const other = new ActorRuntime(options); // another process on the same store
        other.register(counterDefinition);
        await runtime.create('counter', 'c1', {});
        await runtime.create('counter', 'c2', {});
        await runtime.send(C2, { type: 'inc', tag: 'here' }); // c2 live here at version 2
        await other.send(C2, { type: 'inc', tag: 'there' }); // version 3, unknown to this process
        const results: SendResult[] = [];
        const calls = { n: 0 };
        await runtime.send({ type: 'counter', id: 'c1' }, { type: 'inc', tag: 'a' }, { join: alongside(results, calls) });
        expect(calls.n).toBe(2);
        expect(results).toEqual([
          { accepted: true, view: expect.objectContaining({ version: 4, context: { n: 3, seen: ['here', 'there', 'joined'] } }) },
        ]);
        expect((await store.get(collectionOf('counter'), 'c1'))?.version).toBe(2);
        expect((await runtime.send(C2, { type: 'inc', tag: 'b' })).view.version).toBe(5);
      });
    });

    it('decides again on fresh reads when a joined record moved meanwhile; the id taken is still a 409', async () => {
      const { runtime, store } = await joined();
      await runtime.create('counter', 'c1', {});
      const seen = { calls: 0 };
      const join = tallyJoin(store, seen);
      let raced = false;
      const racing = async (context: unknown) => {
        const planned = await join(context);
        if (!raced) {
          raced = true; // another writer moves the tally between this read and the commit
          await store.put(TALLY.collection, TALLY.id, { data: { n: 10 }, expectedVersion: 0 });
        }
        return planned;
      };
      await runtime.send({ type: 'counter', id: 'c1' }, { type: 'inc', tag: 'a' }, { join: racing });
      expect(seen.calls).toBe(2);
      expect((await store.get(TALLY.collection, TALLY.id))?.data).toEqual({ n: 11, counted: 1 });
      expect((await store.get(collectionOf('counter'), 'c1'))?.version).toBe(2);
      await expect(runtime.create('counter', 'c1', {}, { join })).rejects.toMatchObject({
        kind: 'conflict',
        message: 'counter c1 already exists',
      });
    });
  });
});

/** Counts the store's commits and single puts from now on. */
function countCommits(store: MemoryStore): () => { commit: number; put: number } {
  const counts = { commit: 0, put: 0 };
  const { commit, put } = store;
  store.commit = (...args) => {
    counts.commit++;
    return commit.apply(store, args);
  };
  store.put = (...args) => {
    counts.put++;
    return put.apply(store, args) as never;
  };
  return () => ({ ...counts });
}
