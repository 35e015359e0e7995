import { describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { InProcessEventBus } from '../../adapters/event-bus/in-process-event-bus.adapter.js';
import { eventBusContract } from '../contracts/event-bus.contract.js';

eventBusContract('in-process', async ({ retention }) => {
  const clock = new ManualClock();
  const bus = new InProcessEventBus({ clock, retention });
  return { bus, clock, cleanup: () => bus.close() };
});

describe('InProcessEventBus', () => {
  it('reports a throwing handler to the logger instead of the publisher', async () => {
    const logged: string[] = [];
    const bus = new InProcessEventBus({ clock: new ManualClock(), logger: (message) => logged.push(message) });
    await bus.subscribe('s', () => {
      throw new Error('boom');
    });
    await expect(bus.publish('s', { type: 'order.updated', data: {} })).resolves.toMatchObject({ id: 1 });
    expect(logged).toEqual(['event bus handler threw']);
  });

  it('hands out frozen events, so one subscriber cannot change what another sees', async () => {
    const bus = new InProcessEventBus({ clock: new ManualClock() });
    const event = await bus.publish('s', { type: 'order.updated', data: { nested: { n: 1 } } });
    expect(Object.isFrozen(event)).toBe(true);
    expect(Object.isFrozen(event.data.nested)).toBe(true);
  });

  it('keeps at most maxRetained events per stream, however recent, and never fewer than minCount', async () => {
    const bus = new InProcessEventBus({ clock: new ManualClock(), retention: { minCount: 10, maxAgeMs: 60_000 }, maxRetained: 25 });
    for (let i = 0; i < 40; i++) await bus.publish('s', { type: 'order.updated', data: { i } });
    const kept = await bus.replay('s', 0, 100);
    expect(kept.map((event) => event.id)).toEqual(Array.from({ length: 25 }, (_, i) => 16 + i));
    const floor = new InProcessEventBus({ clock: new ManualClock(), retention: { minCount: 30, maxAgeMs: 0 }, maxRetained: 5 });
    for (let i = 0; i < 40; i++) await floor.publish('s', { type: 'order.updated', data: { i } });
    expect(await floor.replay('s', 0, 100)).toHaveLength(30);
  });

  it('starts ids after firstIdAfter, and a subscriber whose id is beyond the head gets what follows', async () => {
    const clock = new ManualClock();
    const before = new InProcessEventBus({ clock });
    for (let i = 0; i < 5; i++) await before.publish('s', { type: 'order.updated', data: { i } });
    // The next run of the service: a client comes back with an id of the previous one.
    const after = new InProcessEventBus({ clock, firstIdAfter: 3 });
    const seen: number[] = [];
    await after.subscribe('s', (event) => void seen.push(event.id), { afterId: 5 });
    const published = await after.publish('s', { type: 'order.updated', data: {} });
    expect(published.id).toBe(4);
    expect(seen).toEqual([4]);
  });

  it('refuses to work once closed', async () => {
    const bus = new InProcessEventBus({ clock: new ManualClock() });
    await bus.close();
    await expect(bus.publish('s', { type: 'order.updated', data: {} })).rejects.toMatchObject({ code: 'SHUTTING_DOWN' });
  });
});
