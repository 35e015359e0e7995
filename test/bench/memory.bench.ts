/**
 * What one process holds for many agents and DCA strategies (printed, not asserted).
 * Run: `npm run bench:memory` (node --expose-gc --import tsx test/bench/memory.bench.ts).
 *
 * Target: 100,000 agents and 50,000 strategies held by one process with RSS under 1 GiB.
 * "Held" means stored, scheduled and whatever the process keeps of them in memory: the
 * runtime rehydrates idle actors on demand, so what stays is its live actors (until idle or
 * over the cap), the store's read cache, the event bus's replay buffers and the schedules.
 *
 * The real service in this process on the embedded profile (LMDB in a temp DATA_DIR, the
 * in-process scheduler and bus), logs at info and discarded.
 * - MEM_BENCH_OPERATORS (1,000) operators signed in over HTTP;
 * - MEM_BENCH_AGENTS (100,000) agents spread over them, created in-process through the
 *   catalog operation `agent_create` with the operator's session (the REST route's path
 *   without HTTP), MEM_BENCH_CONCURRENCY (32) at a time;
 * - MEM_BENCH_STRATEGIES (50,000) strategies "buy 1 USDC of SOL every 1 hours" spread over
 *   the first agents, through `trading_dca_strategy_create` (scheduled: one repeating
 *   schedule each; first run an hour out, so no tick runs while the bench measures);
 * - after each phase: heap after GC, RSS split into anonymous memory (the heap and native
 *   allocations: what the process holds) and file pages (LMDB's memory map: pages of the
 *   database file the kernel keeps resident and may drop under pressure), the runtime's live
 *   actors, the store's read-cache entries and the bus's streams and retained events; then
 *   again after MEM_BENCH_IDLE_SECONDS (70: past the runtime's idle passivation) of nothing.
 * Per held entity: the phase's growth of the heap after GC (and of anonymous RSS) divided by
 * the entities it added.
 *
 * MEM_BENCH_BASELINE_REF=<git ref> measures that commit first in a child process with the
 * same settings and prints ratios (see baseline-run.ts).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CallContext } from '../../src/operations/operation.types.js';
import { Operator } from '../support/mcp-fixtures.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { isBaselineChild, printRatios, runBaseline, writeResult, type Figures } from './baseline-run.js';

const OPERATORS = Number(process.env.MEM_BENCH_OPERATORS ?? 1_000);
const AGENTS = Number(process.env.MEM_BENCH_AGENTS ?? 100_000);
const STRATEGIES = Number(process.env.MEM_BENCH_STRATEGIES ?? 50_000);
const CONCURRENCY = Number(process.env.MEM_BENCH_CONCURRENCY ?? 32);
const IDLE_SECONDS = Number(process.env.MEM_BENCH_IDLE_SECONDS ?? 70);
const BASELINE_REF = process.env.MEM_BENCH_BASELINE_REF;
const TARGET_RSS_MB = 1024;

const gc = (globalThis as { gc?: () => void }).gc;
const fmt = (n: number, digits = 0) =>
  Number.isNaN(n) ? '—' : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

type Ctx = Omit<CallContext, 'requestId' | 'correlationId'>;

/** Runs `work(i)` for i < count with at most `concurrency` in flight. */
async function pool(count: number, concurrency: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

function invokeAs(svc: TestService, ctx: Ctx, name: string, input: unknown): Promise<unknown> {
  const requestId = randomUUID();
  return svc.service.operations.invoker.invoke({
    name,
    input,
    ctx: { ...ctx, requestId, correlationId: requestId },
    viewer: { kind: 'operator', scope: 'manage' },
  });
}

interface Reading {
  heapMb: number;
  /** The heap V8 holds from the system (used or not): what a peak leaves behind. */
  heapTotalMb: number;
  /** Memory of buffers outside the heap (LMDB's and serialisation's). */
  externalMb: number;
  rssMb: number;
  /** Anonymous resident memory (heap, native allocations). */
  anonMb: number;
  /** File-backed resident pages (the LMDB memory map, code). */
  fileMb: number;
  liveActors: number;
  readCache: number;
  streams: number;
  retainedEvents: number;
}

/** The kB figure of a /proc/self/status line (Linux), or NaN elsewhere. */
function statusKb(field: string): number {
  try {
    const line = readFileSync('/proc/self/status', 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${field}:`));
    return line ? Number(line.split(/\s+/)[1]) : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Reaches into the service's parts for sizes no port exposes (a bench may; nothing else does). */
function internals(svc: TestService): Pick<Reading, 'readCache' | 'streams' | 'retainedEvents'> {
  const store = (svc.service.adapters.scheduler as unknown as { store: { cache?: { entries?: Map<string, unknown> } } }).store;
  const bus = svc.service.adapters.bus as unknown as { streams?: Map<string, { retained: unknown[] }> };
  let retainedEvents = 0;
  for (const state of bus.streams?.values() ?? []) retainedEvents += state.retained.length;
  return { readCache: store.cache?.entries?.size ?? Number.NaN, streams: bus.streams?.size ?? Number.NaN, retainedEvents };
}

function read(svc: TestService): Reading {
  gc?.();
  gc?.();
  const memory = process.memoryUsage();
  return {
    heapMb: memory.heapUsed / 2 ** 20,
    heapTotalMb: memory.heapTotal / 2 ** 20,
    externalMb: memory.external / 2 ** 20,
    rssMb: memory.rss / 2 ** 20,
    anonMb: statusKb('RssAnon') / 1024,
    fileMb: statusKb('RssFile') / 1024,
    liveActors: svc.service.runtime.stats().live,
    ...internals(svc),
  };
}

function row(label: string, r: Reading): string {
  return `| ${label} | ${fmt(r.heapMb)} | ${fmt(r.heapTotalMb)} | ${fmt(r.externalMb)} | ${fmt(r.rssMb)} | ${fmt(r.anonMb)} | ${fmt(r.fileMb)} | ${fmt(r.liveActors)} | ${fmt(r.readCache)} | ${fmt(r.streams)} | ${fmt(r.retainedEvents)} |`;
}

async function main(): Promise<void> {
  let baseline: Figures | undefined;
  if (BASELINE_REF && !isBaselineChild) {
    baseline = await runBaseline({
      ref: BASELINE_REF,
      benchFile: 'test/bench/memory.bench.ts',
      files: ['test/bench/baseline-run.ts'],
      env: {},
      nodeArgs: ['--expose-gc'],
    });
  }
  const svc = await startTestService({
    discardLogs: true,
    env: {
      MAX_AGENTS_PER_USER: String(Math.ceil(AGENTS / OPERATORS) + 1),
      MAX_STRATEGIES_PER_USER: String(Math.ceil(STRATEGIES / OPERATORS) + 1),
    },
  });
  try {
    const started = performance.now();
    const operators: Ctx[] = new Array(OPERATORS);
    await pool(OPERATORS, 10, async (i) => {
      const operator = await Operator.signIn(svc);
      const principal = await svc.service.services.resolver.resolve(`Bearer ${operator.client.bearer}`);
      if (principal.type !== 'session') throw new Error('expected a session principal');
      operators[i] = { principal, scope: 'manage', userId: operator.userId, surface: 'rest' };
    });
    const empty = read(svc);
    console.log(`${fmt(OPERATORS)} operators signed in (${fmt((performance.now() - started) / 1000, 1)} s)`);

    const agentIds = new Array<string>(AGENTS);
    let t = performance.now();
    await pool(AGENTS, CONCURRENCY, async (k) => {
      const created = (await invokeAs(svc, operators[k % OPERATORS]!, 'agent_create', { name: `mem-${k}` })) as { agentId: string };
      agentIds[k] = created.agentId;
    });
    const agents = read(svc);
    console.log(`${fmt(AGENTS)} agents created (${fmt((performance.now() - t) / 1000, 1)} s)`);

    t = performance.now();
    const startAt = new Date(Date.now() + 60_000).toISOString();
    await pool(STRATEGIES, CONCURRENCY, async (k) => {
      const operator = operators[k % OPERATORS]!;
      const ctx: Ctx = { ...operator, subject: { type: 'agent', id: agentIds[k % AGENTS]! } };
      await invokeAs(svc, ctx, 'trading_dca_strategy_create', {
        name: `mem-${k}`,
        inputToken: 'USDC',
        outputToken: 'SOL',
        amount: '1',
        interval: 'every 1 hours',
        startAt,
      });
    });
    const strategies = read(svc);
    console.log(`${fmt(STRATEGIES)} strategies created and scheduled (${fmt((performance.now() - t) / 1000, 1)} s)`);

    console.log(`idle for ${IDLE_SECONDS} s (the runtime passivates actors idle for RUNTIME_IDLE_MS)...`);
    await sleep(IDLE_SECONDS * 1000);
    const idle = read(svc);

    console.log(
      `\n## Memory held: ${fmt(AGENTS)} agents, ${fmt(STRATEGIES)} strategies (embedded profile, one process)\n` +
        '| after | heap after GC MB | heap held MB | external MB | RSS MB | anonymous RSS MB | file RSS MB (LMDB map) | live actors | read-cache docs | bus streams | retained events |\n|---|---|---|---|---|---|---|---|---|---|---|',
    );
    console.log(row('operators signed in', empty));
    console.log(row(`+ ${fmt(AGENTS)} agents`, agents));
    console.log(row(`+ ${fmt(STRATEGIES)} strategies`, strategies));
    console.log(row(`+ ${IDLE_SECONDS} s idle`, idle));
    const perAgentKb = ((agents.heapMb - empty.heapMb) * 1024) / Math.max(1, AGENTS);
    const perStrategyKb = ((strategies.heapMb - agents.heapMb) * 1024) / Math.max(1, STRATEGIES);
    const heldKb = ((idle.heapMb - empty.heapMb) * 1024) / Math.max(1, AGENTS + STRATEGIES);
    console.log(
      `\nheap per agent just created ${fmt(perAgentKb, 2)} KB, per strategy ${fmt(perStrategyKb, 2)} KB; per held entity once idle ${fmt(heldKb, 2)} KB (heap after GC / (agents + strategies))`,
    );
    const met = idle.rssMb < TARGET_RSS_MB && strategies.rssMb < TARGET_RSS_MB;
    console.log(
      `RSS < ${fmt(TARGET_RSS_MB)} MB holding them (target): ${met ? 'MET' : 'MISSED'} (${fmt(strategies.rssMb)} MB after creating, ${fmt(idle.rssMb)} MB idle; anonymous ${fmt(idle.anonMb)} MB)`,
    );
    const figures: Figures = {
      heapAgentsMb: agents.heapMb,
      heapStrategiesMb: strategies.heapMb,
      heapIdleMb: idle.heapMb,
      rssStrategiesMb: strategies.rssMb,
      rssIdleMb: idle.rssMb,
      anonIdleMb: idle.anonMb,
      fileIdleMb: idle.fileMb,
      perAgentKb,
      perStrategyKb,
      heldKb,
    };
    writeResult(figures);
    printRatios('Memory held', figures, baseline, {
      perAgentKb: 'heap per agent just created, KB',
      perStrategyKb: 'heap per strategy just created, KB',
      heldKb: 'heap per held entity once idle, KB',
      heapStrategiesMb: 'heap after GC after creating, MB',
      heapIdleMb: 'heap after GC idle, MB',
      rssStrategiesMb: 'RSS after creating, MB',
      rssIdleMb: 'RSS idle, MB',
      anonIdleMb: 'anonymous RSS idle, MB',
      fileIdleMb: 'file RSS idle (LMDB map), MB',
    });
  } finally {
    await svc.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
