/**
 * What a write costs when it comes alone (printed, not asserted). Run: `npm run bench:wakeup`.
 *
 * An open loop at a low rate reaches a service that sleeps between calls; on a VM every
 * wake-up of a sleeping thread is dear, and lmdb-js's write path wakes several threads per
 * transaction (the libuv worker that runs it, its timed waits for this thread's callbacks,
 * the flush after the commit, the answer back here). This measures, in one run and on one
 * core (the process pins itself to core 0, as the service benches do):
 * 1. baseline: a timer that wakes this process every INTERVAL_MS and does nothing;
 * 2. one durable LmdbStore put (put + journal entry, then `durable()`) per wake-up;
 * 3. the same puts back to back (each waits for the previous one: a commit each, no idle);
 * 4. BATCH puts at once per round, back to back (one transaction and one flush for all).
 * Per case: CPU µs per write (all threads) and context switches per write, each over the
 * baseline's per wake-up. Env: WAKEUP_WRITES (300) per case, WAKEUP_INTERVAL_MS (20).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SystemClock } from '../../adapters/clock/system-clock.adapter.js';
import { LmdbStore } from '../../adapters/lmdb/lmdb-store.adapter.js';

const WRITES = Number(process.env.WAKEUP_WRITES ?? 300);
const INTERVAL_MS = Number(process.env.WAKEUP_INTERVAL_MS ?? 20);
const BATCH = 50;
const COLLECTION = 'agents';

/** Context switches (voluntary and not) of every thread of this process so far. */
function switches(): number {
  let total = 0;
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      for (const match of readFileSync(`/proc/self/task/${tid}/status`, 'utf8').matchAll(/^(?:non)?voluntary_ctxt_switches:\s+(\d+)$/gm))
        total += Number(match[1]);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return total;
}

interface Cost {
  cpuUs: number;
  switches: number;
}

/** CPU (all threads) and context switches per unit of `run`, which does `units` units. */
async function costOf(units: number, run: () => Promise<void>): Promise<Cost> {
  const switchesBefore = switches();
  const cpuBefore = process.cpuUsage();
  await run();
  const cpu = process.cpuUsage(cpuBefore);
  return { cpuUs: (cpu.user + cpu.system) / units, switches: (switches() - switchesBefore) / units };
}

/** A snapshot-sized document, as store.bench.ts writes. */
const doc = (n: number) => ({ status: 'active', context: { pair: 'SOL/USDC', filled: n, orders: [{ id: `o${n}`, qty: 1.5 }] } });
const journal = (n: number) => ({ event: { type: 'order.updated', n }, state: { trading: 'idle' }, at: Date.now() });

async function main(): Promise<void> {
  execFileSync('taskset', ['-a', '-cp', '0', String(process.pid)], { stdio: 'ignore' });
  const dir = await mkdtemp(join(tmpdir(), 'wakeup-bench-'));
  const store = new LmdbStore({ path: dir, clock: new SystemClock() });
  try {
    await store.init([{ name: COLLECTION, indexes: [] }]);
    let version = 0;
    const put = async (id: string, expected: number) => {
      await store.put(COLLECTION, id, { data: doc(expected), expectedVersion: expected }, journal(expected));
    };
    const putDurably = async () => {
      await put('alone', version++);
      await store.durable();
    };
    // Warm-up: JIT, the page cache, the libuv pool's threads.
    for (let i = 0; i < 50; i++) await putDurably();

    const baseline = await costOf(WRITES, async () => {
      for (let i = 0; i < WRITES; i++) await sleep(INTERVAL_MS);
    });
    const alone = await costOf(WRITES, async () => {
      for (let i = 0; i < WRITES; i++) {
        await sleep(INTERVAL_MS);
        await putDurably();
      }
    });
    const backToBack = await costOf(WRITES, async () => {
      for (let i = 0; i < WRITES; i++) await putDurably();
    });
    const rounds = Math.max(1, Math.round(WRITES / BATCH));
    const batched = await costOf(rounds * BATCH, async () => {
      for (let round = 0; round < rounds; round++) {
        await Promise.all(Array.from({ length: BATCH }, (_, i) => put(`batch-${i}`, round)));
        await store.durable();
      }
    });

    console.log(`## One write alone vs together (LmdbStore, durable; one core; Node ${process.version}; load ${loadavg()[0]!.toFixed(1)})`);
    console.log('| case | CPU µs per write | context switches per write | CPU over the baseline |\n|---|---|---|---|');
    const row = (label: string, cost: Cost, over?: Cost) =>
      console.log(
        `| ${label} | ${cost.cpuUs.toFixed(0)} | ${cost.switches.toFixed(1)} | ${over ? `+${(cost.cpuUs - over.cpuUs).toFixed(0)} µs (${(cost.cpuUs / over.cpuUs).toFixed(2)}x)` : '-'} |`,
      );
    row(`baseline: a timer wakes the process every ${INTERVAL_MS} ms, nothing else (per wake-up)`, baseline);
    row(`one durable put per wake-up (every ${INTERVAL_MS} ms)`, alone, baseline);
    row('durable puts back to back, one at a time', backToBack);
    row(`${BATCH} puts at once per round, one durable wait per round`, batched);
    console.log(
      `a write alone costs ${(alone.cpuUs - baseline.cpuUs).toFixed(0)} µs over its wake-up, ${(backToBack.cpuUs / batched.cpuUs).toFixed(1)}x a write in a batch of ${BATCH}`,
    );
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
