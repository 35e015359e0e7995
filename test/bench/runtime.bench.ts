/**
 * Runtime benchmarks (printed, not asserted). Run: `npm run bench:runtime`
 * (node --expose-gc --import ./test/bench/loader/register.mjs test/bench/runtime.bench.ts).
 *
 * 1. Throughput and p50/p99 of `send`: events/s with the durable LMDB store vs the same
 *    runtime on the in-memory store, for 1 actor and for 1,000 concurrent actors.
 * 2. Latency of an uncontended `send` (one event at a time).
 * 3. Memory: heap per resident actor and per passivated actor, 100,000 agents created.
 * Targets: durable at 1,000 actors >= 25% of in-memory; 100k passivated <= 50 MB heap.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { assign, setup } from 'xstate';
import { SystemClock } from '../../adapters/clock/system-clock.adapter.js';
import { LmdbStore } from '../../adapters/lmdb/lmdb-store.adapter.js';
import { MemoryStore } from '../support/memory-store.adapter.js';
import { agentDefinition } from '../../machines/agent.machine.js';
import type { MachineDefinition } from '../../machines/machine-definition.types.js';
import type { StorePort } from '../../kernel/ports/store.port.js';
import { ActorRuntime } from '../../src/runtime/actor-runtime.js';

const logger = pino({ level: 'silent' });
const clock = new SystemClock();
const gc = (globalThis as { gc?: () => void }).gc;
const dirs: string[] = [];

function lmdb(): LmdbStore {
  const dir = mkdtempSync(join(tmpdir(), 'bench-rt-'));
  dirs.push(dir);
  return new LmdbStore({ path: dir, clock });
}

async function runtimeOn(store: StorePort, maxLiveActors = 200_000): Promise<ActorRuntime> {
  const runtime = new ActorRuntime({ store, clock, logger, maxLiveActors, idleMs: 3_600_000, maxConflictRetries: 5 });
  runtime.register(tickDefinition);
  runtime.register(agentDefinition);
  await runtime.start();
  return runtime;
}

/** A counter that only counts: its snapshot stays the same size however many events it takes. */
const tickMachine = setup({ types: { context: {} as { n: number }, events: {} as { type: 'tick' } } }).createMachine({
  id: 'tick',
  context: { n: 0 },
  on: { tick: { actions: assign({ n: ({ context }) => context.n + 1 }) } },
});
const tickDefinition: MachineDefinition = { type: 'tick', version: 1, machine: tickMachine };

/**
 * Closed loop: `actors` clients, each sending its next event to its own actor as soon as
 * the previous one resolved, until `total` events are done; returns events/s and latencies.
 */
async function throughput(store: StorePort, actors: number, total: number) {
  const runtime = await runtimeOn(store);
  await Promise.all(Array.from({ length: actors }, (_, i) => runtime.create('tick', `t${i}`, undefined)));
  const latencies: number[] = [];
  let remaining = total;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: actors }, async (_, i) => {
      while (remaining-- > 0) {
        const t0 = performance.now();
        await runtime.send({ type: 'tick', id: `t${i}` }, { type: 'tick' });
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await runtime.shutdown();
  await store.close();
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]!;
  return { eventsPerSecond: total / seconds, p50: pct(0.5), p99: pct(0.99) };
}

/** A sequential stream of sends, one at a time: the latency of an uncontended `send`. */
async function sequentialLatency(store: StorePort, count: number) {
  const runtime = await runtimeOn(store);
  await runtime.create('tick', 'solo', undefined);
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    await runtime.send({ type: 'tick', id: 'solo' }, { type: 'tick' });
    latencies.push(performance.now() - t0);
  }
  await runtime.shutdown();
  await store.close();
  latencies.sort((a, b) => a - b);
  return { p50: latencies[Math.floor(count * 0.5)]!, p99: latencies[Math.floor(count * 0.99)]! };
}

function heapMb(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

/** Creates `count` agents, measures the heap with all of them resident, then passivated. */
async function memory(count: number) {
  const store = lmdb();
  const runtime = await runtimeOn(store, count + 1);
  const base = heapMb();
  const batch = 2_000;
  for (let i = 0; i < count; i += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, count - i) }, (_, j) =>
        runtime.create('agent', `a${i + j}`, {
          agentId: `a${i + j}`,
          publicId: `p${i + j}`,
          ownerId: 'u',
          name: `agent ${i + j}`,
          createdAt: 0,
        }),
      ),
    );
  }
  const resident = heapMb();
  await runtime.shutdown();
  // A fresh runtime over the same store: every agent is known (persisted), none is resident.
  const passivatedRuntime = await runtimeOn(store, 1000);
  const known = (await passivatedRuntime.get({ type: 'agent', id: `a${count - 1}` })) !== null;
  const passivated = heapMb();
  await passivatedRuntime.shutdown();
  await store.close();
  return { base, resident, passivated, known };
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function main() {
  if (!gc) console.warn('run with --expose-gc for meaningful memory figures');
  const total = 20_000;
  console.log(`\n## Runtime throughput (${fmt(total)} events; closed loop, one client per actor)`);
  const rows: Array<[string, number, Awaited<ReturnType<typeof throughput>>]> = [];
  for (const actors of [1, 1000]) {
    rows.push([`memory, ${actors} actor(s)`, actors, await throughput(new MemoryStore(clock), actors, total)]);
    rows.push([`lmdb durable, ${actors} actor(s)`, actors, await throughput(lmdb(), actors, total)]);
  }
  console.log('| store | events/s | p50 send ms | p99 send ms |\n|---|---|---|---|');
  for (const [name, , r] of rows) console.log(`| ${name} | ${fmt(r.eventsPerSecond)} | ${fmt(r.p50, 2)} | ${fmt(r.p99, 2)} |`);
  const ratio = (actors: number) =>
    rows.find(([n, a]) => a === actors && n.startsWith('lmdb'))![2].eventsPerSecond /
    rows.find(([n, a]) => a === actors && n.startsWith('memory'))![2].eventsPerSecond;
  console.log(
    `durable / in-memory: 1 actor ${fmt(ratio(1) * 100, 1)}%, 1,000 actors ${fmt(ratio(1000) * 100, 1)}% (target >= 25% at 1,000)`,
  );

  console.log('\n## Uncontended send latency (one actor, one event at a time, 2,000 sends)');
  const seqMem = await sequentialLatency(new MemoryStore(clock), 2000);
  const seqLmdb = await sequentialLatency(lmdb(), 2000);
  console.log(
    `| store | p50 ms | p99 ms |\n|---|---|---|\n| memory | ${fmt(seqMem.p50, 3)} | ${fmt(seqMem.p99, 3)} |\n| lmdb durable | ${fmt(seqLmdb.p50, 3)} | ${fmt(seqLmdb.p99, 3)} |`,
  );

  const count = 100_000;
  console.log(`\n## Memory with ${fmt(count)} agents created (heap after GC)`);
  const m = await memory(count);
  console.log(`| | heap MB | per actor |\n|---|---|---|`);
  console.log(`| baseline | ${fmt(m.base, 1)} | |`);
  console.log(`| all resident | ${fmt(m.resident, 1)} | ${fmt(((m.resident - m.base) * 2 ** 20) / count / 1024, 2)} KB |`);
  console.log(
    `| all passivated (known: ${m.known}) | ${fmt(m.passivated, 1)} | ${fmt(((m.passivated - m.base) * 2 ** 20) / count, 1)} B |`,
  );
  console.log(`passivated heap ${fmt(m.passivated, 1)} MB (target <= 50 MB for 100k known agents)`);
}

main()
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
