/**
 * What one process holds for many agents and DCA strategies (printed, not asserted).
 * Run: `npm run bench:memory` (node --expose-gc --import ./test/bench/loader/register.mjs test/bench/memory.bench.ts).
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
 *   database file the kernel keeps resident and may drop under pressure; RSS counts a page once
 *   per mapping of it, so the file pages are also shown counted once, as PSS), the runtime's live
 *   actors, the store's read-cache entries and the bus's streams and retained events; then
 *   again after MEM_BENCH_IDLE_SECONDS (70: past the runtime's idle passivation) of nothing.
 * Per held entity: the phase's growth of the heap after GC (and of anonymous RSS) divided by
 * the entities it added.
 *
 * Seeding (how the full scale finishes in minutes): every agent and strategy is created by its
 * catalog operation through the invoker (validation, the handler, the audit entry, durability),
 * so the records are the ones the service writes, made by its own code. What is left out for
 * all but a checked sample is the per-owner cap's count: creating an agent pages through its
 * owner's agents (twice: before and under the owner's lock) and creating a strategy reads every
 * agent of its owner and then each one's strategies, so at 100 agents and 50 strategies per
 * operator the counts, not the creates, take most of the run (N creates x what each owner
 * holds). While seeding, the runtime's `find` of agents by `ownerId` (the index only those
 * counts page; `agent_create` without a chosen id and `trading_dca_strategy_create` read it for
 * nothing else) answers no agents, so each count is 0 and the create goes on as it would under
 * the cap; the cap's lock is still taken and released. The last MEM_BENCH_CHECKED_AGENTS
 * (1,000) agents and MEM_BENCH_CHECKED_STRATEGIES (500) strategies go through unchanged,
 * counts included, when each owner already holds nearly all of its share: their rate is printed
 * beside the seeded one. MEM_BENCH_CHECKED_* at or above the totals runs every create checked.
 * Progress (count, rate, RSS) is printed every tenth of a phase.
 *
 * MEM_BENCH_HEAP_SNAPSHOT=<file> writes a V8 heap snapshot there once idle (what holds the heap).
 *
 * MEM_BENCH_BASELINE_REF=<git ref> measures that commit first in a child process with the
 * same settings and prints ratios (see baseline-run.ts).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeHeapSnapshot } from 'node:v8';
import { decodeKey } from '../../adapters/lmdb/lmdb-key.codec.js';
import type { CallContext } from '../../src/operations/operation.types.js';
import { Operator } from '../support/mcp-fixtures.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { isBaselineChild, printRatios, runBaseline, writeResult, type Figures } from './baseline-run.js';

const OPERATORS = Number(process.env.MEM_BENCH_OPERATORS ?? 1_000);
const AGENTS = Number(process.env.MEM_BENCH_AGENTS ?? 100_000);
const STRATEGIES = Number(process.env.MEM_BENCH_STRATEGIES ?? 50_000);
const CONCURRENCY = Number(process.env.MEM_BENCH_CONCURRENCY ?? 32);
const CHECKED_AGENTS = Math.min(AGENTS, Number(process.env.MEM_BENCH_CHECKED_AGENTS ?? 1_000));
const CHECKED_STRATEGIES = Math.min(STRATEGIES, Number(process.env.MEM_BENCH_CHECKED_STRATEGIES ?? 500));
const IDLE_SECONDS = Number(process.env.MEM_BENCH_IDLE_SECONDS ?? 70);
const BASELINE_REF = process.env.MEM_BENCH_BASELINE_REF;
const HEAP_SNAPSHOT = process.env.MEM_BENCH_HEAP_SNAPSHOT;
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

/**
 * `pool` over [from, to) printing progress every tenth of `total`, and the rate of the range:
 * a full-scale phase takes minutes, and a stalled one must show.
 */
async function phase(
  label: string,
  range: { from: number; to: number; total: number },
  work: (i: number) => Promise<void>,
): Promise<number> {
  const started = performance.now();
  const step = Math.max(1, Math.ceil(range.total / 10));
  let done = 0;
  await pool(range.to - range.from, CONCURRENCY, async (i) => {
    await work(range.from + i);
    done++;
    if ((range.from + done) % step === 0) {
      const seconds = (performance.now() - started) / 1000;
      console.log(
        `  ${label}: ${fmt(range.from + done)} / ${fmt(range.total)} (${fmt(done / seconds)}/s, RSS ${fmt(process.memoryUsage().rss / 2 ** 20)} MB, ${new Date().toISOString().slice(11, 19)})`,
      );
    }
  });
  const seconds = (performance.now() - started) / 1000;
  return (range.to - range.from) / Math.max(seconds, 1e-9);
}

type Find = (type: string, query: { index?: string }, page: unknown) => Promise<{ items: unknown[]; nextCursor?: string }>;

/**
 * Runs `work` with the per-owner cap counts answering 0 (see the header): the runtime's `find`
 * of agents by `ownerId` finds none meanwhile. Nothing else runs concurrently in the bench.
 */
async function withoutOwnerCounts<T>(svc: TestService, work: () => Promise<T>): Promise<T> {
  const runtime = svc.service.runtime as unknown as { find: Find };
  const find = runtime.find;
  runtime.find = (type, query, page) =>
    type === 'agent' && query.index === 'ownerId' ? Promise.resolve({ items: [] }) : find.call(runtime, type, query, page);
  try {
    return await work();
  } finally {
    runtime.find = find;
  }
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
  /** File pages counted once each (PSS): RSS counts a page once per mapping of it (see `fileRssByPath`). */
  filePssMb: number;
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

/** The kB figure of a /proc/self/smaps_rollup line (Linux), or NaN elsewhere. */
function rollupKb(field: string): number {
  try {
    const line = readFileSync('/proc/self/smaps_rollup', 'utf8')
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

interface LmdbStats {
  pageSize: number;
  treeBranchPageCount: number;
  treeLeafPageCount: number;
  overflowPages: number;
  entryCount: number;
  lastPageNumber: number;
}
interface LmdbDb {
  getStats(): LmdbStats;
  getRange(options: object): Iterable<{ key: Uint8Array; value: Uint8Array }>;
}

/**
 * What the database file holds (the file RSS is its pages the process touched): the file's
 * used pages, each sub-database's pages and, by collection (a key's first part), its entries
 * and their bytes. Read after the idle figures: iterating touches every page.
 */
function databaseReport(svc: TestService): string {
  const store = (svc.service.adapters.scheduler as unknown as { store: Record<string, LmdbDb> }).store;
  const lines: string[] = [];
  const root = store.root!.getStats();
  lines.push(
    `database file: ${fmt(((root.lastPageNumber + 1) * root.pageSize) / 2 ** 20)} MB used (${fmt(root.lastPageNumber + 1)} pages of ${fmt(root.pageSize)} B)`,
  );
  lines.push('| sub-database | MB in pages | entries | top collections: entries, MB of keys + values |\n|---|---|---|---|');
  for (const name of ['docs', 'indexes', 'journal', 'expiry']) {
    const db = store[name]!;
    const stats = db.getStats();
    const pagesMb = ((stats.treeBranchPageCount + stats.treeLeafPageCount + stats.overflowPages) * stats.pageSize) / 2 ** 20;
    const byCollection = new Map<string, { entries: number; bytes: number }>();
    for (const { key, value } of db.getRange({})) {
      const collection = String(decodeKey(key)[0]);
      const entry = byCollection.get(collection) ?? { entries: 0, bytes: 0 };
      entry.entries += 1;
      entry.bytes += key.length + value.length;
      byCollection.set(collection, entry);
    }
    const top = [...byCollection]
      .sort((a, b) => b[1].bytes - a[1].bytes)
      .slice(0, 6)
      .map(([collection, e]) => `${collection} ${fmt(e.entries)}, ${fmt(e.bytes / 2 ** 20, 1)}`)
      .join('; ');
    lines.push(`| ${name} | ${fmt(pagesMb)} | ${fmt(stats.entryCount)} | ${top} |`);
  }
  return lines.join('\n');
}

function sizeMb(file: string): number {
  try {
    return statSync(file).size / 2 ** 20;
  } catch {
    return Number.NaN;
  }
}

/**
 * Each mapped file's resident kB (/proc/self/smaps, Linux), largest first: which files the file
 * RSS is. RSS counts a page once per mapping that maps it, and lmdb-js maps the database file
 * again as it grows (the earlier maps stay while readers may hold them), so the same page cache
 * pages count several times; PSS counts each page once (divided among its mappings), and the
 * file's size bounds what it can really hold.
 */
function fileRssByPath(): string {
  let text: string;
  try {
    text = readFileSync('/proc/self/smaps', 'utf8');
  } catch {
    return 'file RSS by file: (no /proc/self/smaps)';
  }
  const byPath = new Map<string, { rss: number; pss: number; maps: number }>();
  let path = '';
  for (const line of text.split('\n')) {
    const mapping = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (mapping) {
      path = mapping[1] ?? '';
      if (path.startsWith('/')) {
        const entry = byPath.get(path) ?? { rss: 0, pss: 0, maps: 0 };
        entry.maps += 1;
        byPath.set(path, entry);
      }
      continue;
    }
    const entry = byPath.get(path);
    if (!entry) continue;
    if (line.startsWith('Rss:')) entry.rss += Number(line.split(/\s+/)[1]);
    else if (line.startsWith('Pss:')) entry.pss += Number(line.split(/\s+/)[1]);
  }
  return [...byPath]
    .sort((a, b) => b[1].rss - a[1].rss)
    .slice(0, 4)
    .map(
      ([file, e]) =>
        `${file}: RSS ${fmt(e.rss / 1024)} MB, PSS ${fmt(e.pss / 1024)} MB, ${fmt(e.maps)} mappings, file ${fmt(sizeMb(file))} MB`,
    )
    .join('\n');
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
    filePssMb: rollupKb('Pss_File') / 1024,
    liveActors: svc.service.runtime.stats().live,
    ...internals(svc),
  };
}

function row(label: string, r: Reading): string {
  return `| ${label} | ${fmt(r.heapMb)} | ${fmt(r.heapTotalMb)} | ${fmt(r.externalMb)} | ${fmt(r.rssMb)} | ${fmt(r.anonMb)} | ${fmt(r.fileMb)} | ${fmt(r.filePssMb)} | ${fmt(r.anonMb + r.filePssMb)} | ${fmt(r.liveActors)} | ${fmt(r.readCache)} | ${fmt(r.streams)} | ${fmt(r.retainedEvents)} |`;
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
    await pool(OPERATORS, CONCURRENCY, async (i) => {
      const operator = await Operator.signIn(svc);
      const principal = await svc.service.services.resolver.resolve(`Bearer ${operator.client.bearer}`);
      if (principal.type !== 'session') throw new Error('expected a session principal');
      operators[i] = { principal, scope: 'manage', userId: operator.userId, surface: 'rest' };
    });
    const empty = read(svc);
    console.log(`${fmt(OPERATORS)} operators signed in (${fmt((performance.now() - started) / 1000, 1)} s)`);

    const agentIds = new Array<string>(AGENTS);
    let t = performance.now();
    const createAgent = async (k: number) => {
      const created = (await invokeAs(svc, operators[k % OPERATORS]!, 'agent_create', { name: `mem-${k}` })) as { agentId: string };
      agentIds[k] = created.agentId;
    };
    const seededAgents = AGENTS - CHECKED_AGENTS;
    const agentSeedRate = await withoutOwnerCounts(svc, () =>
      phase('agents (seeded)', { from: 0, to: seededAgents, total: AGENTS }, createAgent),
    );
    const agentCheckedRate = await phase('agents (checked)', { from: seededAgents, to: AGENTS, total: AGENTS }, createAgent);
    const agents = read(svc);
    console.log(
      `${fmt(AGENTS)} agents created (${fmt((performance.now() - t) / 1000, 1)} s; ${fmt(seededAgents)} seeded at ${fmt(agentSeedRate)}/s, ${fmt(CHECKED_AGENTS)} checked at ${fmt(agentCheckedRate)}/s)`,
    );

    t = performance.now();
    // An hour out, as the header says (a minute out had the first strategies tick while the later ones were created).
    const startAt = new Date(Date.now() + 3_600_000).toISOString();
    const createStrategy = async (k: number) => {
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
    };
    const seededStrategies = STRATEGIES - CHECKED_STRATEGIES;
    const strategySeedRate = await withoutOwnerCounts(svc, () =>
      phase('strategies (seeded)', { from: 0, to: seededStrategies, total: STRATEGIES }, createStrategy),
    );
    const strategyCheckedRate = await phase(
      'strategies (checked)',
      { from: seededStrategies, to: STRATEGIES, total: STRATEGIES },
      createStrategy,
    );
    const strategies = read(svc);
    console.log(
      `${fmt(STRATEGIES)} strategies created and scheduled (${fmt((performance.now() - t) / 1000, 1)} s; ${fmt(seededStrategies)} seeded at ${fmt(strategySeedRate)}/s, ${fmt(CHECKED_STRATEGIES)} checked at ${fmt(strategyCheckedRate)}/s)`,
    );

    console.log(`idle for ${IDLE_SECONDS} s (the runtime passivates actors idle for RUNTIME_IDLE_MS)...`);
    await sleep(IDLE_SECONDS * 1000);
    const idle = read(svc);
    if (HEAP_SNAPSHOT) console.log(`heap snapshot (once idle): ${writeHeapSnapshot(HEAP_SNAPSHOT)}`);

    console.log(
      `\n## Memory held: ${fmt(AGENTS)} agents, ${fmt(STRATEGIES)} strategies (embedded profile, one process)\n` +
        '| after | heap after GC MB | heap held MB | external MB | RSS MB | anonymous RSS MB | file RSS MB (LMDB map) | file pages once (PSS) MB | anonymous + file PSS MB | live actors | read-cache docs | bus streams | retained events |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|',
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
    console.log(
      `each resident page once (anonymous + file PSS): ${fmt(strategies.anonMb + strategies.filePssMb)} MB after creating, ${fmt(idle.anonMb + idle.filePssMb)} MB idle (file pages are clean page cache the kernel reclaims under pressure)`,
    );
    const figures: Figures = {
      heapAgentsMb: agents.heapMb,
      heapStrategiesMb: strategies.heapMb,
      heapIdleMb: idle.heapMb,
      rssStrategiesMb: strategies.rssMb,
      rssIdleMb: idle.rssMb,
      anonIdleMb: idle.anonMb,
      fileIdleMb: idle.fileMb,
      filePssIdleMb: idle.filePssMb,
      perAgentKb,
      perStrategyKb,
      heldKb,
    };
    console.log(`\nfile RSS by file once idle (RSS counts a page once per mapping, PSS once):\n${fileRssByPath()}`);
    console.log(databaseReport(svc));
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
      filePssIdleMb: 'file pages once (PSS) idle, MB',
    });
  } finally {
    await svc.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
