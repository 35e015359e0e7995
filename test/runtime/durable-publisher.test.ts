import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { BusEvent, BusEventInput, EventBusPort } from '../../kernel/ports/event-bus.port.js';
import { DurablePublisher } from '../../src/runtime/durable-publisher.js';

/** A store whose flushes the test completes, in any order. */
function heldStore() {
  const flushes: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
  return {
    flushes,
    store: { durable: () => new Promise<void>((resolve, reject) => flushes.push({ resolve, reject })) },
  };
}

/** A bus recording what it was given; `hold` makes a stream's publishes wait for the test. */
function recordingBus() {
  const published: Array<{ stream: string; type: string }> = [];
  const held = new Map<string, Array<() => void>>();
  const bus = {
    publish: async (stream: string, event: BusEventInput) => {
      const gate = held.get(stream);
      if (gate) await new Promise<void>((resolve) => gate.push(resolve));
      published.push({ stream, type: event.type });
      return { ...event, stream, id: published.length, at: 0 } as BusEvent;
    },
  } as unknown as EventBusPort;
  return { bus, published, held };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
const event = (type: string) => ({ type, data: {} });

describe('DurablePublisher', () => {
  it('publishes a stream in the order its events were queued, even when later flushes complete first', async () => {
    const { store, flushes } = heldStore();
    const { bus, published } = recordingBus();
    const publisher = new DurablePublisher({ store, bus, logger: pino({ level: 'silent' }) });
    publisher.publish('agent:a1', [event('order.created')]);
    await tick(); // the next turn of the event loop: a flush of its own
    publisher.publish('agent:a1', [event('position.updated'), event('order.updated')]);
    await tick();
    flushes[1]!.resolve();
    await tick();
    expect(published).toEqual([]); // the second waits for the first, which is not durable yet
    flushes[0]!.resolve();
    await publisher.drained();
    expect(published.map((p) => p.type)).toEqual(['order.created', 'position.updated', 'order.updated']);
  });

  it('a slow stream holds only itself; drained() covers what was queued before it, bounded', async () => {
    const { bus, published, held } = recordingBus();
    const publisher = new DurablePublisher({
      store: { durable: async () => undefined },
      bus,
      logger: pino({ level: 'silent' }),
      drainWaitMs: 50,
    });
    held.set('agent:slow', []);
    publisher.publish('agent:slow', [event('order.created')]);
    publisher.publish('agent:fast', [event('order.created')]);
    const started = Date.now();
    await publisher.drained(); // gives up on the slow stream after the bound
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(published).toEqual([{ stream: 'agent:fast', type: 'order.created' }]);
    for (const release of held.get('agent:slow')!) release();
    held.delete('agent:slow');
    await publisher.drained();
    expect(published).toHaveLength(2);
  });

  it('publishes nothing the store could not make durable, says so, and goes on with what follows', async () => {
    const { store, flushes } = heldStore();
    const { bus, published } = recordingBus();
    const errors: Array<{ msg: string }> = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => void errors.push(JSON.parse(line)) });
    const publisher = new DurablePublisher({ store, bus, logger });
    publisher.publish('agent:a1', [event('wallet.updated')]);
    await tick();
    publisher.publish('agent:a1', [event('order.created')]);
    await tick();
    // Rejected before anything awaits it: no unhandled rejection (vitest fails the run on one).
    flushes[0]!.reject(new Error('EIO'));
    await tick();
    flushes[1]!.resolve();
    await publisher.drained();
    expect(published.map((p) => p.type)).toEqual(['order.created']);
    expect(errors).toEqual([expect.objectContaining({ msg: 'events not published: the store did not flush' })]);
  });

  it('tells its observer of each event once durable, never of one that was not; a throwing observer costs no subscriber its event', async () => {
    const { store, flushes } = heldStore();
    const { bus, published } = recordingBus();
    const observed: string[] = [];
    const publisher = new DurablePublisher({
      store,
      bus,
      logger: pino({ level: 'silent' }),
      onDurable: (e) => {
        observed.push(e.type);
        if (e.type === 'risk.blocked') throw new Error('observer broke');
      },
    });
    publisher.publish('agent:a1', [event('order.created'), event('order.updated')]);
    await tick();
    publisher.publish('agent:a1', [event('wallet.updated')]);
    await tick();
    // The observer breaks on the first event of this publication: the next one is still observed.
    publisher.publish('agent:a1', [event('risk.blocked'), event('order.updated')]);
    await tick();
    expect(observed).toEqual([]); // nothing is durable yet
    flushes[0]!.resolve();
    flushes[1]!.reject(new Error('EIO'));
    flushes[2]!.resolve();
    await publisher.drained();
    expect(observed).toEqual(['order.created', 'order.updated', 'risk.blocked', 'order.updated']);
    expect(published.map((p) => p.type)).toEqual(['order.created', 'order.updated', 'risk.blocked', 'order.updated']);
  });

  it('an observer added later is told each durable event with its stream until it is removed', async () => {
    const { store, flushes } = heldStore();
    const { bus } = recordingBus();
    const publisher = new DurablePublisher({ store, bus, logger: pino({ level: 'silent' }) });
    const seen: string[] = [];
    const remove = publisher.observe((e, stream) => seen.push(`${stream} ${e.type}`));
    publisher.publish('agent:a1', [event('position.updated')]);
    publisher.publish('bot:b1', [event('order.created')]);
    await tick();
    flushes[0]!.resolve();
    await publisher.drained();
    expect(seen).toEqual(['agent:a1 position.updated', 'bot:b1 order.created']);
    remove();
    publisher.publish('agent:a1', [event('position.updated')]);
    await tick();
    flushes[1]!.resolve();
    await publisher.drained();
    expect(seen).toHaveLength(2);
  });

  it('the publications and waits of one turn of the event loop share one flush, asked after the last of them', async () => {
    const { store, flushes } = heldStore();
    const { bus, published } = recordingBus();
    const publisher = new DurablePublisher({ store, bus, logger: pino({ level: 'silent' }) });
    publisher.publish('agent:a1', [event('order.created')]);
    publisher.publish('agent:a2', [event('order.created')]);
    const answered = publisher.durable();
    expect(flushes).toHaveLength(0); // not asked yet: a commit later in this turn is covered too
    await tick();
    expect(flushes).toHaveLength(1);
    flushes[0]!.resolve();
    await answered;
    await publisher.drained();
    expect(published.map((p) => p.stream)).toEqual(['agent:a1', 'agent:a2']);
    publisher.publish('agent:a1', [event('order.updated')]); // a later turn: its own flush
    await tick();
    expect(flushes).toHaveLength(2);
  });
});
