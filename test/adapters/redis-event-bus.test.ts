import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { RedisEventBus, type RedisEventBusOptions } from '../../adapters/redis/redis-event-bus.adapter.js';
import { eventBusKeys } from '../../adapters/redis/redis-event-bus.script.js';
import type { BusEvent, EventBusPort } from '../../kernel/ports/event-bus.port.js';
import { eventBusContract } from '../contracts/event-bus.contract.js';

// Redis is on every dev and CI machine of this project; REDIS_URL points elsewhere.
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

let admin: Redis;
beforeAll(() => {
  admin = new Redis(REDIS_URL);
});
afterAll(async () => {
  await admin.quit();
});

/** SCAN+DEL, never KEYS or FLUSHDB: other suites share this Redis. */
async function deleteByPrefix(prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await admin.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 200);
    if (keys.length > 0) await admin.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}

/** Buses on one fresh key prefix, torn down (connections and keys) by `cleanup`. */
function world(extra: Partial<RedisEventBusOptions> = {}) {
  const keyPrefix = `test:${randomUUID()}:`;
  const clock = new ManualClock();
  const buses: RedisEventBus[] = [];
  const make = (): RedisEventBus => {
    const bus = new RedisEventBus({ redisUrl: REDIS_URL, keyPrefix, clock, connectionName: keyPrefix, ...extra });
    buses.push(bus);
    return bus;
  };
  const cleanup = async (): Promise<void> => {
    await Promise.all(buses.map((bus) => bus.close()));
    await deleteByPrefix(keyPrefix);
  };
  return { keyPrefix, clock, make, cleanup };
}

eventBusContract('redis', async ({ retention }) => {
  const w = world(retention ? { retention } : {});
  return { bus: w.make(), clock: w.clock, cleanup: w.cleanup, second: async () => w.make() };
});

describe('RedisEventBus', () => {
  let current: ReturnType<typeof world> | undefined;
  const setup = (extra: Partial<RedisEventBusOptions> = {}) => (current = world(extra));
  afterEach(async () => {
    await current?.cleanup();
    current = undefined;
  });

  it('stores events as <seq>-0 entries and removes nothing outside its prefix', async () => {
    const w = setup();
    const bus = w.make();
    await bus.publish('agent-1', { type: 'order.created', data: { a: 1 } });
    await bus.publish('agent-1', { type: 'order.updated', data: { a: 2 } });
    const keys = eventBusKeys(w.keyPrefix, 'agent-1');
    const entries = await admin.xrange(keys.log, '-', '+');
    expect(entries.map(([id]) => id)).toEqual(['1-0', '2-0']);
    expect(await admin.get(keys.seq)).toBe('2');
    expect((await admin.scan('0', 'MATCH', `${w.keyPrefix}*`, 'COUNT', 1000))[1].sort()).toEqual([keys.log, keys.seq].sort());
  });

  it('skips and logs malformed log entries and live messages without losing good ones', async () => {
    const logged: string[] = [];
    const w = setup({ logger: (message) => logged.push(message) });
    const bus = w.make();
    const keys = eventBusKeys(w.keyPrefix, 's');
    await bus.publish('s', { type: 'order.updated', data: { ok: 1 } });
    // Another writer put garbage in the log and on the channel, and used up id 2.
    await admin.xadd(keys.log, '2-0', 'at', '1', 'body', '{not json');
    await admin.incr(keys.seq);
    const seen = await recorder(bus, 's', 0);
    await admin.publish(keys.channel, '{"id":"x"}');
    await admin.publish(keys.channel, 'garbage');
    await bus.publish('s', { type: 'order.updated', data: { ok: 3 } });
    await waitFor(() => seen.length >= 2);
    expect(seen.map((e) => e.id)).toEqual([1, 3]);
    expect((await bus.replay('s', 0)).map((e) => e.id)).toEqual([1, 3]);
    expect(logged).toContain('event bus skipped a malformed log entry');
    expect(logged.filter((m) => m === 'event bus skipped a malformed live message')).toHaveLength(2);
  });

  it('fills a hole in live ids from the log (a missed pub/sub message)', async () => {
    const w = setup();
    const bus = w.make();
    const keys = eventBusKeys(w.keyPrefix, 's');
    const seen = await recorder(bus, 's');
    await bus.publish('s', { type: 'order.updated', data: { n: 1 } });
    // Event 2 reaches the log but its announcement is lost.
    const body = JSON.stringify({ type: 'order.updated', data: { n: 2 }, at: w.clock.now() });
    await admin.xadd(keys.log, '2-0', 'at', String(w.clock.now()), 'body', body);
    await admin.incr(keys.seq);
    await bus.publish('s', { type: 'order.updated', data: { n: 3 } });
    await waitFor(() => seen.length >= 3);
    await sleep(30);
    expect(seen.map((e) => [e.id, e.data.n])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
  });

  it('catches up what was published while its subscriber connection was down', async () => {
    const w = setup();
    const bus = w.make();
    const publisher = w.make();
    const seen = await recorder(bus, 's', 0);
    await publisher.publish('s', { type: 'order.updated', data: {} });
    await waitFor(() => seen.length === 1);
    const clients = await admin.client('LIST');
    const id = /id=(\d+) [^\n]*name=(\S+)/g;
    const victim = [...String(clients).matchAll(id)].find((m) => m[2] === `${w.keyPrefix}:sub`);
    expect(victim).toBeDefined();
    await admin.client('KILL', 'ID', victim![1]!);
    for (let i = 0; i < 5; i += 1) await publisher.publish('s', { type: 'order.updated', data: {} });
    await waitFor(() => seen.length >= 6, 10_000);
    await publisher.publish('s', { type: 'order.updated', data: {} });
    await waitFor(() => seen.length >= 7);
    await sleep(30);
    expect(seen.map((e) => e.id)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('uses one subscriber connection for all streams and unsubscribes a channel when its last listener leaves', async () => {
    const w = setup();
    const bus = w.make();
    const subs = await Promise.all(['a', 'b', 'c', 'a'].map((s) => bus.subscribe(s, () => undefined)));
    const named = String(await admin.client('LIST'))
      .split('\n')
      .filter((line) => line.includes(`name=${w.keyPrefix}:sub`));
    expect(named).toHaveLength(1);
    const channel = eventBusKeys(w.keyPrefix, 'a').channel;
    expect(await admin.pubsub('NUMSUB', channel)).toEqual([channel, 1]);
    await subs[0]!.unsubscribe();
    expect(await admin.pubsub('NUMSUB', channel)).toEqual([channel, 1]);
    await subs[3]!.unsubscribe();
    expect(await admin.pubsub('NUMSUB', channel)).toEqual([channel, 0]);
  });

  it('continues numbering after the counter key is lost but the log survives', async () => {
    const w = setup();
    const bus = w.make();
    for (let i = 0; i < 3; i += 1) await bus.publish('s', { type: 'order.updated', data: {} });
    await admin.del(eventBusKeys(w.keyPrefix, 's').seq);
    expect((await bus.publish('s', { type: 'order.updated', data: {} })).id).toBe(4);
  });

  it('turns an unreachable Redis into a retryable DEPENDENCY_UNAVAILABLE', async () => {
    const bus = new RedisEventBus({ redisUrl: 'redis://127.0.0.1:1', keyPrefix: 'unused:', clock: new ManualClock() });
    await expect(bus.ping()).rejects.toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE', retryable: true });
    await bus.close();
    await expect(bus.publish('s', { type: 'order.updated', data: {} })).rejects.toMatchObject({ code: 'SHUTTING_DOWN' });
  });
});

async function recorder(bus: EventBusPort, stream: string, afterId?: number): Promise<BusEvent[]> {
  const seen: BusEvent[] = [];
  await bus.subscribe(stream, (event) => seen.push(event), afterId === undefined ? {} : { afterId });
  return seen;
}

async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(5);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
