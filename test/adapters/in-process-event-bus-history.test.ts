import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InProcessEventBus, type InProcessEventBusOptions } from '../../adapters/event-bus/in-process-event-bus.adapter.js';
import { LmdbEventHistory } from '../../adapters/lmdb/lmdb-event-history.adapter.js';
import type { BusEvent } from '../../kernel/ports/event-bus.port.js';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { eventBusContract } from '../contracts/event-bus.contract.js';

/** Bounds small enough that the contract's streams leave the heap and come back from disk. */
const TIGHT = { window: 2, maxStreams: 2, maxWindowEvents: 4, trimEvery: 1 } as const;

eventBusContract('in-process with an LMDB history', async ({ retention }) => {
  const dir = await mkdtemp(join(tmpdir(), 'bus-history-'));
  const clock = new ManualClock();
  const bus = new InProcessEventBus({ clock, ...(retention ? { retention } : {}), history: new LmdbEventHistory({ path: dir }), ...TIGHT });
  return {
    bus,
    clock,
    cleanup: async () => {
      await bus.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

const dirs: string[] = [];
const buses: InProcessEventBus[] = [];

async function historyDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'bus-history-'));
  dirs.push(dir);
  return dir;
}

function busOn(dir: string, options: Partial<InProcessEventBusOptions> & { clock: ManualClock }): InProcessEventBus {
  const bus = new InProcessEventBus({ history: new LmdbEventHistory({ path: dir }), ...options });
  buses.push(bus);
  return bus;
}

/** What the heap holds: the bus's streams (a white-box look, to be sure the window really went). */
function heldStreams(bus: InProcessEventBus): Map<string, { retained: BusEvent[] }> {
  return (bus as unknown as { streams: Map<string, { retained: BusEvent[] }> }).streams;
}

/** Until every append is committed: the heap lets go of an event only after that. */
async function committed(bus: InProcessEventBus): Promise<void> {
  const appends = (bus as unknown as { appends: Set<Promise<void>> }).appends;
  while (appends.size > 0) await Promise.all([...appends]);
}

const publish = (bus: InProcessEventBus, stream: string, i: number) => bus.publish(stream, { type: 'order.updated', data: { i } });

afterEach(async () => {
  await Promise.all(buses.splice(0).map((bus) => bus.close()));
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('InProcessEventBus with a history', () => {
  it('resumes a client after its stream left the heap: every missed event from disk, in order, once, then live', async () => {
    const clock = new ManualClock();
    const bus = busOn(await historyDir(), { clock, window: 4, maxStreams: 10, maxWindowEvents: 20 });
    for (let i = 1; i <= 50; i += 1) await publish(bus, 'agent-a', i);
    // Hours pass and other agents trade: agent-a's stream and its window leave the heap.
    for (let round = 0; round < 3; round += 1) {
      for (let other = 0; other < 30; other += 1) await publish(bus, `agent-${other}`, round);
      await committed(bus);
    }
    await clock.advance(5 * 60 * 60 * 1000);
    expect(heldStreams(bus).has('agent-a')).toBe(false);
    const seen: BusEvent[] = [];
    await bus.subscribe('agent-a', (event) => void seen.push(event), { afterId: 7 });
    expect(seen.map((event) => event.id)).toEqual(Array.from({ length: 43 }, (_, i) => 8 + i));
    await publish(bus, 'agent-a', 51);
    expect(seen.map((event) => event.id).slice(-2)).toEqual([50, 51]);
    expect(seen.at(-1)?.data).toEqual({ i: 51 });
    expect((await bus.replay('agent-a', 45)).map((event) => event.id)).toEqual([46, 47, 48, 49, 50, 51]);
  });

  it('keeps the heap within its bounds while streams are many', async () => {
    const clock = new ManualClock();
    const bus = busOn(await historyDir(), { clock, window: 3, maxStreams: 50, maxWindowEvents: 100 });
    for (let i = 0; i < 500; i += 1) await publish(bus, `agent-${i}`, i);
    await committed(bus);
    await publish(bus, 'one-more', 0);
    const held = heldStreams(bus);
    // Within a tenth over the bounds: a pass lets go of streams down to nine tenths, and the next waits a little.
    expect(held.size).toBeLessThanOrEqual(55);
    expect([...held.values()].reduce((sum, state) => sum + state.retained.length, 0)).toBeLessThanOrEqual(110);
    expect((await bus.replay('agent-7', 0)).map((event) => event.data)).toEqual([{ i: 7 }]);
  });

  it('continues a stream after the last id on disk when the service starts again, and replays what came before', async () => {
    const clock = new ManualClock();
    const dir = await historyDir();
    const first = busOn(dir, { clock, firstIdAfter: 100 });
    for (let i = 1; i <= 5; i += 1) await publish(first, 's', i);
    await first.close();
    // A clock behind the earlier run's ids must not make the next run reuse them.
    const second = busOn(dir, { clock, firstIdAfter: 50 });
    expect((await publish(second, 's', 6)).id).toBe(106);
    const seen: number[] = [];
    await second.subscribe('s', (event) => void seen.push(event.id), { afterId: 102 });
    expect(seen).toEqual([103, 104, 105, 106]);
  });

  it('removes from disk what retention lets go, keeping the latest minCount however old', async () => {
    const clock = new ManualClock();
    const dir = await historyDir();
    const retention = { minCount: 5, maxAgeMs: 60_000 };
    const bus = busOn(dir, { clock, retention, window: 2, trimEvery: 1 });
    for (let i = 1; i <= 20; i += 1) {
      await publish(bus, 's', i);
      await clock.advance(10_000);
    }
    await committed(bus);
    await clock.advance(10 * 60_000);
    await publish(bus, 's', 21);
    await committed(bus);
    await bus.close();
    buses.splice(0);
    const reopened = new LmdbEventHistory({ path: dir });
    try {
      expect(reopened.read('s', 0, Number.POSITIVE_INFINITY, 100).map((event) => event.id)).toEqual([17, 18, 19, 20, 21]);
    } finally {
      await reopened.close();
    }
  });
});
