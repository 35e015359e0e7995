/**
 * What the embedded event bus holds for many busy streams (printed, not asserted).
 * Run: `node --expose-gc --import ./test/bench/loader/register.mjs test/bench/event-bus-memory.bench.ts`.
 *
 * BUS_BENCH_STREAMS (10,000) streams each get BUS_BENCH_EVENTS (30) events, round-robin as
 * one-minute DCA ticks would publish them (an `order.updated` of a typical size), through
 * the bus with its replay buffer on the heap (no history: the embedded profile before) and
 * through the bus with its LMDB history (the embedded profile now), one after the other in
 * this process. Printed for each: heap after GC held by the bus, CPU per publish (user +
 * system, including the history's write thread), and a resume from the first event of the
 * least recently used stream (read back from disk) to show it still gets everything.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InProcessEventBus } from '../../adapters/event-bus/in-process-event-bus.adapter.js';
import { LmdbEventHistory } from '../../adapters/lmdb/lmdb-event-history.adapter.js';
import { SystemClock } from '../../adapters/clock/system-clock.adapter.js';

const STREAMS = Number(process.env.BUS_BENCH_STREAMS ?? 10_000);
const EVENTS = Number(process.env.BUS_BENCH_EVENTS ?? 30);

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const heapMb = () => {
  gc();
  return process.memoryUsage().heapUsed / 1e6;
};

const order = (i: number) => ({
  type: 'order.updated',
  data: {
    orderId: `ord_${i.toString(36).padStart(12, '0')}`,
    status: 'filled',
    chain: 'solana',
    side: 'buy',
    tokenIn: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    tokenOut: 'So11111111111111111111111111111111111111112',
    amountIn: '1000000',
    amountOut: '6711243',
    txHash: `5${'x'.repeat(86)}`,
  },
});

async function measure(label: string, bus: InProcessEventBus, settle: () => Promise<void>): Promise<number> {
  const before = heapMb();
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let round = 0; round < EVENTS; round += 1) {
    for (let s = 0; s < STREAMS; s += 1) await bus.publish(`agent:${s}`, order(round * STREAMS + s));
  }
  await settle();
  const used = process.cpuUsage(cpu);
  const held = heapMb() - before;
  const published = STREAMS * EVENTS;
  const cpuUs = (used.user + used.system) / published;
  const resumed = await bus.replay('agent:0', 0);
  console.log(
    `| ${label} | ${held.toFixed(0)} | ${((held * 1e6) / published).toFixed(0)} | ${cpuUs.toFixed(1)} | ${(performance.now() - started).toFixed(0)} | ${resumed.length} |`,
  );
  return held;
}

const clock = new SystemClock();
console.log(`## Event bus memory: ${STREAMS.toLocaleString('en-US')} streams × ${EVENTS} events`);
console.log(
  '| bus | heap held MB | bytes per event | CPU µs per publish | wall ms | resume of agent:0 from 0 |\n|---|---|---|---|---|---|',
);
const heapOnly = new InProcessEventBus({ clock });
const baseline = await measure('heap only (before)', heapOnly, async () => undefined);
await heapOnly.close();
const dir = mkdtempSync(join(tmpdir(), 'bus-bench-'));
try {
  const withHistory = new InProcessEventBus({ clock, history: new LmdbEventHistory({ path: dir }) });
  const appends = (withHistory as unknown as { appends: Set<Promise<void>> }).appends;
  const held = await measure('LMDB history, heap window (now)', withHistory, async () => {
    while (appends.size > 0) await Promise.all([...appends]);
  });
  await withHistory.close();
  console.log(`\nheap held, now / before: ${(held / baseline).toFixed(3)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
