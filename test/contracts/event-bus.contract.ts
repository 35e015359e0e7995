import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { BusEvent, EventBusPort, RetentionPolicy, Subscription } from '../../kernel/ports/event-bus.port.js';

export interface EventBusHarness {
  bus: EventBusPort;
  /** A ManualClock turns on the retention cases; a system clock skips them. */
  clock: ManualClock | ClockPort;
  /** Closes every bus the harness made (including `second` ones) and removes their data. */
  cleanup(): Promise<void>;
  /** Another instance over the same backend, standing for another process. */
  second?: () => Promise<EventBusPort>;
}

export interface EventBusHarnessOptions {
  retention?: RetentionPolicy;
}

/** The behaviour every EventBusPort adapter must have; each adapter's test calls this once. */
export function eventBusContract(name: string, factory: (options: EventBusHarnessOptions) => Promise<EventBusHarness>): void {
  describe(`EventBusPort contract: ${name}`, () => {
    const open: EventBusHarness[] = [];
    const harness = async (options: EventBusHarnessOptions = {}): Promise<EventBusHarness> => {
      const made = await factory(options);
      open.push(made);
      return made;
    };
    afterEach(async () => {
      await Promise.all(open.splice(0).map((made) => made.cleanup()));
    });

    it('numbers each stream from 1, one by one, independently of other streams', async () => {
      const { bus, clock } = await harness();
      const a1 = await bus.publish('a', { type: 'order.created', data: { n: 1 } });
      const a2 = await bus.publish('a', { type: 'order.updated', data: { n: 2 } });
      const b1 = await bus.publish('b', { type: 'wallet.updated', data: {} });
      const a3 = await bus.publish('a', { type: 'order.updated', data: { n: 3 } });
      expect([a1.id, a2.id, b1.id, a3.id]).toEqual([1, 2, 1, 3]);
      expect(a1).toEqual({ stream: 'a', id: 1, type: 'order.created', data: { n: 1 }, at: clock.now() });
    });

    it('delivers live events in order, each once', async () => {
      const { bus } = await harness();
      const seen = await record(bus, 's');
      for (let i = 0; i < 20; i += 1) await bus.publish('s', { type: 'dca.executed', data: { i } });
      await seen.until(20);
      expect(seen.ids()).toEqual(range(1, 20));
      expect(seen.events.map((e) => e.data.i)).toEqual(range(0, 19));
    });

    it('without afterId delivers only what is published after subscribing', async () => {
      const { bus } = await harness();
      await publishMany(bus, 's', 2);
      const seen = await record(bus, 's');
      await bus.publish('s', { type: 'order.updated', data: {} });
      await seen.until(1);
      expect(seen.ids()).toEqual([3]);
    });

    it('with afterId replays what was missed, then goes live without gap or duplicate', async () => {
      const { bus } = await harness();
      await publishMany(bus, 's', 5);
      const seen = await record(bus, 's', 2);
      await publishMany(bus, 's', 3);
      await seen.until(6);
      expect(seen.ids()).toEqual(range(3, 8));
    });

    it('has no gap or duplicate when publishes race the subscribe call', async () => {
      const { bus, second } = await harness();
      // Publishing over another connection (when there is one) lands inside the window
      // between subscribing to live delivery and reading the retained buffer.
      const publisher = second ? await second() : bus;
      for (let round = 0; round < 5; round += 1) {
        const stream = `race-${round}`;
        await publishMany(bus, stream, 3);
        let published = 3;
        let stop = false;
        const pump = (async () => {
          for (; !stop && published < 300; published += 1) await publisher.publish(stream, { type: 'order.updated', data: {} });
        })();
        const burst = Promise.all(range(1, 20).map(() => bus.publish(stream, { type: 'order.updated', data: {} })));
        // Stagger the subscribe differently each round to land inside the traffic.
        for (let tick = 0; tick < round * 3; tick += 1) await new Promise((resolve) => setImmediate(resolve));
        const [early, late] = await Promise.all([record(bus, stream, 1), record(bus, stream, 10)]);
        stop = true;
        await Promise.all([pump, burst]);
        const total = published + 20;
        await early.until(total - 1);
        await late.until(total - 10);
        expect(early.ids()).toEqual(range(2, total));
        expect(late.ids()).toEqual(range(11, total));
      }
    });

    it('replays retained events after afterId, oldest first, up to limit', async () => {
      const { bus } = await harness();
      await publishMany(bus, 's', 5);
      expect(ids(await bus.replay('s', 0))).toEqual([1, 2, 3, 4, 5]);
      expect(ids(await bus.replay('s', 2))).toEqual([3, 4, 5]);
      expect(ids(await bus.replay('s', 1, 2))).toEqual([2, 3]);
      expect(await bus.replay('s', 5)).toEqual([]);
      expect(await bus.replay('s', 0, 0)).toEqual([]);
      expect(await bus.replay('nothing-here', 0)).toEqual([]);
    });

    it('hands out data as JSON, detached from the publisher object', async () => {
      const { bus } = await harness();
      const data = { nested: { list: [1, 'two', null], empty: [] as unknown[], obj: {} }, price: 0.1 };
      await bus.publish('s', { type: 'position.updated', data });
      data.nested.list.push(4);
      const [event] = await bus.replay('s', 0);
      expect(event?.data).toEqual({ nested: { list: [1, 'two', null], empty: [], obj: {} }, price: 0.1 });
    });

    it('refuses an event type that is not dot-namespaced lower case', async () => {
      const { bus } = await harness();
      await expect(bus.publish('s', { type: 'Order Updated', data: {} })).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
      });
    });

    it('stops delivering after unsubscribe, while others on the stream keep receiving', async () => {
      const { bus } = await harness();
      const a = await record(bus, 's');
      const b = await record(bus, 's');
      await bus.publish('s', { type: 'order.updated', data: {} });
      await Promise.all([a.until(1), b.until(1)]);
      await a.sub.unsubscribe();
      await a.sub.unsubscribe();
      await bus.publish('s', { type: 'order.updated', data: {} });
      await b.until(2);
      await b.sub.unsubscribe();
      await bus.publish('s', { type: 'order.updated', data: {} });
      // Subscribing again after the last one left works (a fresh channel subscription).
      const c = await record(bus, 's', 0);
      await bus.publish('s', { type: 'order.updated', data: {} });
      await c.until(4);
      await settle();
      expect(a.ids()).toEqual([1]);
      expect(b.ids()).toEqual([1, 2]);
      expect(c.ids()).toEqual([1, 2, 3, 4]);
    });

    it('isolates a throwing handler: others, and its own later events, are unaffected', async () => {
      const { bus } = await harness();
      await bus.publish('s', { type: 'order.updated', data: {} });
      let calls = 0;
      // Throwing during the replay must not fail the subscribe call either.
      await bus.subscribe(
        's',
        () => {
          calls += 1;
          throw new Error('handler bug');
        },
        { afterId: 0 },
      );
      const healthy = await record(bus, 's');
      await publishMany(bus, 's', 3);
      await healthy.until(3);
      await waitFor(() => calls === 4, 'the throwing handler to be called for each event');
      expect(healthy.ids()).toEqual([2, 3, 4]);
    });

    it('keeps order for everyone when a handler publishes from inside delivery', async () => {
      const { bus } = await harness();
      await bus.subscribe('s', (event) => {
        if (event.data.echo !== true) void bus.publish('s', { type: 'order.updated', data: { echo: true } });
      });
      const seen = await record(bus, 's');
      await publishMany(bus, 's', 3);
      await seen.until(6);
      expect(seen.ids()).toEqual(range(1, 6));
    });

    it('gives concurrent publishers unique consecutive ids, delivered in order', async () => {
      const { bus } = await harness();
      const seen = await record(bus, 's');
      const published = await Promise.all(range(1, 100).map((i) => bus.publish('s', { type: 'order.updated', data: { i } })));
      expect(ids(published).sort((x, y) => x - y)).toEqual(range(1, 100));
      await seen.until(100);
      expect(seen.ids()).toEqual(range(1, 100));
    });

    it('answers ping', async () => {
      const { bus } = await harness();
      await expect(bus.ping()).resolves.toBeUndefined();
    });

    describe('retention (needs a ManualClock)', () => {
      const retention = { minCount: 3, maxAgeMs: 1_000 };

      it('keeps the latest minCount even when they are old', async (ctx) => {
        const { bus, clock } = await harness({ retention });
        if (!(clock instanceof ManualClock)) return ctx.skip();
        for (let i = 0; i < 5; i += 1) {
          await bus.publish('s', { type: 'order.updated', data: {} });
          await clock.advance(2_000);
        }
        await bus.publish('s', { type: 'order.updated', data: {} });
        // 4 and 5 are old but among the latest 3; 1..3 are old and beyond it.
        expect(ids(await bus.replay('s', 0))).toEqual([4, 5, 6]);
      });

      it('keeps everything newer than maxAgeMs beyond minCount, and drops only old excess', async (ctx) => {
        const { bus, clock } = await harness({ retention });
        if (!(clock instanceof ManualClock)) return ctx.skip();
        await publishMany(bus, 's', 2);
        await clock.advance(2_000);
        await publishMany(bus, 's', 3);
        await clock.advance(500);
        await publishMany(bus, 's', 2);
        expect(ids(await bus.replay('s', 0))).toEqual([3, 4, 5, 6, 7]);
        const seen = await record(bus, 's', 0);
        await seen.until(5);
        expect(seen.ids()).toEqual([3, 4, 5, 6, 7]);
      });
    });

    describe('across processes (when the harness offers a second instance)', () => {
      it('delivers an event published on one instance to a subscriber on the other', async (ctx) => {
        const { bus, second } = await harness();
        if (!second) return ctx.skip();
        const other = await second();
        const there = await record(other, 's');
        const here = await record(bus, 's');
        await bus.publish('s', { type: 'order.created', data: { from: 'one' } });
        await other.publish('s', { type: 'order.updated', data: { from: 'two' } });
        await Promise.all([there.until(2), here.until(2)]);
        expect(there.events.map((e) => [e.id, e.data.from])).toEqual([
          [1, 'one'],
          [2, 'two'],
        ]);
        expect(here.ids()).toEqual([1, 2]);
        const late = await record(other, 's', 0);
        await late.until(2);
        expect(late.ids()).toEqual([1, 2]);
      });

      it('gives concurrent publishers on both instances unique monotonic ids', async (ctx) => {
        const { bus, second } = await harness();
        if (!second) return ctx.skip();
        const other = await second();
        const [here, there] = await Promise.all([record(bus, 's'), record(other, 's')]);
        const published = await Promise.all(
          range(1, 80).map((i) => (i % 2 ? bus : other).publish('s', { type: 'order.updated', data: { i } })),
        );
        expect(ids(published).sort((x, y) => x - y)).toEqual(range(1, 80));
        await Promise.all([here.until(80), there.until(80)]);
        expect(here.ids()).toEqual(range(1, 80));
        expect(there.ids()).toEqual(range(1, 80));
      });
    });
  });
}

interface Recorder {
  events: BusEvent[];
  sub: Subscription;
  ids(): number[];
  until(count: number): Promise<void>;
}

async function record(bus: EventBusPort, stream: string, afterId?: number): Promise<Recorder> {
  const events: BusEvent[] = [];
  const sub = await bus.subscribe(stream, (event) => events.push(event), afterId === undefined ? {} : { afterId });
  return {
    events,
    sub,
    ids: () => ids(events),
    // Waits for `count`, then a little more, so a duplicate or a stray event would show.
    until: async (count) => {
      await waitFor(() => events.length >= count, `${count} events on ${stream} (have ${ids(events).join(',')})`);
      await settle();
    },
  };
}

async function publishMany(bus: EventBusPort, stream: string, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) await bus.publish(stream, { type: 'order.updated', data: { i } });
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 30));
}

function ids(events: BusEvent[]): number[] {
  return events.map((event) => event.id);
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}
