/**
 * DCA strategies at scale (printed, not asserted, except correctness).
 * Run: `npm run bench:dca` (node --expose-gc --import ./test/bench/loader/register.mjs test/bench/dca.bench.ts).
 *
 * "10,000 active strategies with one-minute intervals: the spread between due time and
 * order creation (p50/p99) and the CPU used per 1,000 ticks. Target: p99 lag under 1 s at
 * 10,000 strategies on one process."
 *
 * The real service in this process on the embedded profile (LMDB in a temp DATA_DIR with
 * commits flushed to disk in the background, the in-process scheduler, the system clock), logs at info and discarded.
 * - Accounts: DCA_BENCH_ACCOUNTS (100) operators signed in over HTTP, one agent each with
 *   trading enabled, a custodial Solana wallet and USDC from the paper faucet (as a user
 *   would set them up; the rate limiter's budget is raised so it counts without refusing).
 * - Strategies: DCA_BENCH_STRATEGIES (10,000) spread round-robin over the accounts, created
 *   in-process through the catalog operation `trading_dca_strategy_create` with the operator's
 *   own session principal (the invoker, validation, audit and DcaService.create of the REST
 *   route, without HTTP and its per-user rate limit): "buy 1 USDC of SOL every 1 minutes",
 *   `startAt`s spread evenly over one minute, so ticks arrive at a steady
 *   strategies / 60 per second (~167/s) like real users' strategies, not in one burst.
 *   `startAt` lies in the past: the grid is anchored there and the first run is the next
 *   grid point after creation, so a strategy ticks from the minute it is created.
 * - Measured window: the ticks due in [W, W + DCA_BENCH_MINUTES (1) minutes), where W is
 *   DCA_BENCH_WARMUP_SECONDS (20) after the last strategy was created (JIT, caches and the
 *   live-actor set settle). Any one-minute span of due times holds exactly one run of every
 *   strategy, so STRATEGIES x MINUTES ticks are expected. After the window the run waits
 *   until every run due before its end has been delivered (DCA_BENCH_DRAIN_SECONDS (120) at
 *   most), then reads the orders from the store.
 *
 * Figures:
 * - lag = order `createdAt` − the tick's `dueAt` (the order keeps its strategy and `tickDueAt`):
 *   p50/p90/p99/max, also per 10 s of due time (does a backlog build?), and split with a thin
 *   wrapper around the invoker's `dca_tick` calls (every due tick) into
 *   pickup (delivery start − dueAt: the scheduler) and delivery start → order created (the
 *   safety path before the order exists); plus the whole tick (delivery start → end);
 * - ticks handled vs expected, orders per strategy (a tick buys at most once: duplicates
 *   must be 0), deliveries of one (strategy, dueAt) more than once;
 * - CPU per 1,000 ticks (process.cpuUsage over the window / ticks completed in it x 1,000),
 *   CPU as a share of one core, event-loop utilisation and delay, GC pauses, heap, live
 *   actors, and store calls per tick by collection (the bench wraps the store instance: about
 *   a microsecond per call).
 *
 * Other settings: DCA_BENCH_IDLE_SECONDS (10) of the idle service measured before the
 * strategies exist (its background CPU, subtracted in the "net" figure);
 * DCA_BENCH_CREATE_CONCURRENCY (32); DCA_BENCH_BASELINE="cpu=<ms per 1,000 ticks>,p99=<ms>" (another
 * commit's figures: this run's printed as ratios to them); DCA_BENCH_SERVICE_ENV="KEY=VALUE,..." service
 * configuration for the run (e.g. RUNTIME_MAX_LIVE_ACTORS=50000); DCA_BENCH_CPU_PROFILE=<path>:
 * a .cpuprofile of the measured window only (V8 sampling profiler, 250 µs), for DevTools or
 * speedscope; it costs CPU, so compare figures from runs without it.
 *
 * At 50,000 strategies (`DCA_BENCH_STRATEGIES=50000 DCA_BENCH_ACCOUNTS=500`): DCA_BENCH_CLOCK_SPEED=<s>
 * (1) runs the service on a driven clock at s times wall time (ScaledClock): 833 ticks a
 * service second arrive at 833·s a wall second, so a machine that cannot hold them in real
 * time still runs each tick and prints its CPU cost; lags are printed in wall ms, and the p99
 * target only means something at speed 1. DCA_BENCH_BASELINE_REF=<git ref> measures that
 * commit first with the same settings, in a child process on a worktree of it (this bench's
 * files copied over), and prints this run's figures as ratios to it (baseline-run.ts).
 *
 * The machine matters: on a shared VM, other tenants take CPU from the service (see the load
 * average printed at the end), which lengthens every commit and every pause.
 */
import { profiled } from './cpu-profile.js';
import { isBaselineChild, printRatios, runBaseline, writeResult, type Figures } from './baseline-run.js';
import { ScaledClock } from './scaled-clock.js';
import { randomUUID } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { constants, monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { DCA_TYPE } from '../../agents/dca/dca.service.js';
import { dcaOrderId } from '../../kernel/vocabulary/ids.js';
import type { OrderContext } from '../../machines/order.machine.js';
import type { OperationContext } from '../../src/operations/operation.types.js';
import { unmeter } from '../support/unmetered-limiter.js';
import type { StorePort } from '../../kernel/ports/store.port.js';
import { Operator } from '../support/mcp-fixtures.js';
import { startTestService, type TestService } from '../support/test-service.js';

const STRATEGIES = Number(process.env.DCA_BENCH_STRATEGIES ?? 10_000);
const ACCOUNTS = Number(process.env.DCA_BENCH_ACCOUNTS ?? 100);
const MINUTES = Number(process.env.DCA_BENCH_MINUTES ?? 1);
const WARMUP_SECONDS = Number(process.env.DCA_BENCH_WARMUP_SECONDS ?? 20);
const DRAIN_SECONDS = Number(process.env.DCA_BENCH_DRAIN_SECONDS ?? 120);
/** Strategies created at once: enough to overlap the store's group commits. */
const CREATE_CONCURRENCY = Number(process.env.DCA_BENCH_CREATE_CONCURRENCY ?? 32);
const CPU_PROFILE = process.env.DCA_BENCH_CPU_PROFILE;
/**
 * Service time per wall time (1: the system clock). Below 1 the service runs on a driven
 * clock (`ScaledClock`): ticks due once a service minute arrive that much slower in wall
 * time, so a machine that cannot hold 50,000 one-minute strategies in real time still runs
 * every tick and shows its CPU cost; lags are printed in wall milliseconds.
 */
const CLOCK_SPEED = Number(process.env.DCA_BENCH_CLOCK_SPEED ?? 1);
/**
 * A git ref (`main`, a commit) measured first, in a child process with the same settings:
 * this run's figures are then printed as ratios to it (see baseline-run.ts).
 */
const BASELINE_REF = process.env.DCA_BENCH_BASELINE_REF;
/** Made when the service starts (after any baseline run), so service time starts at wall time. */
let clock: ScaledClock | undefined;
/** Service time (the clock the service runs on). */
const now = () => clock?.now() ?? Date.now();
/** Waits `ms` of service time. */
const sleepService = (ms: number) => sleep(Math.max(0, clock ? clock.toWallMs(ms) : ms));
/** Service milliseconds as wall milliseconds (what a lag is printed in). */
const wall = (ms: number) => (clock ? clock.toWallMs(ms) : ms);
/**
 * Service configuration for the run, e.g. `RUNTIME_MAX_LIVE_ACTORS=30000` (comma-separated
 * KEY=VALUE): tries a configuration change without touching the code.
 */
const SERVICE_ENV = Object.fromEntries(
  (process.env.DCA_BENCH_SERVICE_ENV ?? '')
    .split(',')
    .filter((pair) => pair.includes('='))
    .map((pair) => [pair.slice(0, pair.indexOf('=')).trim(), pair.slice(pair.indexOf('=') + 1).trim()]),
);
/**
 * A/B against another commit's run of this bench: `DCA_BENCH_BASELINE="cpu=2961,p99=1814"` (its
 * CPU ms per 1,000 ticks and p99 lag in ms) prints this run's figures as ratios to those.
 */
const BASELINE = Object.fromEntries(
  (process.env.DCA_BENCH_BASELINE ?? '')
    .split(',')
    .filter((pair) => pair.includes('='))
    .map((pair) => [pair.slice(0, pair.indexOf('=')).trim(), Number(pair.slice(pair.indexOf('=') + 1))]),
) as { cpu?: number; p99?: number };
/** The service's own background work (polls, sweeps) with the accounts but no strategy yet. */
const IDLE_SECONDS = Number(process.env.DCA_BENCH_IDLE_SECONDS ?? 10);

const MINUTE_MS = 60_000;
const TARGET_P99_MS = 1_000;
const BUCKET_MS = 10_000;
const BUY_AMOUNT = '1';
/** Whole USDC per account: 1 USDC per tick, 100 ticks a minute, for far longer than any run. */
const FAUCET_USDC = '10000000';
const SCHEDULER_COLLECTION = 'scheduler.jobs';
const WAKE_INDEX = 'wakeAt';
const LONG_PAUSE_MS = 100;
/** `detail.kind` of a gc performance entry. */
const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor (scavenge)',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major (mark-compact)',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental marking',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
};

const gc = (globalThis as { gc?: () => void }).gc;
const fmt = (n: number, digits = 0) =>
  Number.isNaN(n) ? '—' : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const seconds = (ms: number) => `${fmt(ms / 1000, 1)} s`;

// ---------------------------------------------------------------------------------------------
// Set-up: accounts over HTTP, strategies in-process.

interface Account {
  /** The operator's session on its agent, as the REST route would hand it to the invoker. */
  ctx: Omit<OperationContext, 'requestId' | 'correlationId'>;
}

async function expectStatus(
  what: string,
  call: Promise<{ status: number; body: unknown }>,
  statuses: readonly number[] = [200],
): Promise<void> {
  const answer = await call;
  if (!statuses.includes(answer.status)) throw new Error(`${what}: HTTP ${answer.status} ${JSON.stringify(answer.body)}`);
}

/** One user's trading account, set up as in dca.e2e.test.ts. */
async function openAccount(svc: TestService, index: number): Promise<Account> {
  const operator = await Operator.signIn(svc);
  const { agentId } = await operator.agent(`dca-bench-${index}`);
  const http = operator.client;
  await expectStatus('enable trading', http.put(`/api/nest/agents/${agentId}/trading`, { enabled: true }));
  // 201 when the ensure created the wallet (earlier versions answered 200 whether they found or made one).
  await expectStatus(
    'custodial wallet',
    http.post(`/api/nest/trading/wallets/custodial/${operator.userId}?agentId=${agentId}`, {}, { 'x-idempotency-key': randomUUID() }),
    [200, 201],
  );
  await expectStatus(
    'faucet',
    http.post(`/api/nest/trading/paper/faucet/${operator.userId}?agentId=${agentId}`, {
      chain: 'solana',
      token: 'USDC',
      amount: FAUCET_USDC,
    }),
  );
  const principal = await svc.service.services.resolver.resolve(`Bearer ${http.bearer}`);
  if (principal.type !== 'session') throw new Error('expected a session principal');
  return { ctx: { principal, scope: 'manage', subject: { type: 'agent', id: agentId }, userId: operator.userId, surface: 'rest' } };
}

/** Runs `work(i)` for i < count with at most `concurrency` in flight. */
async function pool(count: number, concurrency: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

/** Invokes a catalog operation as the account's operator (what the REST route does after auth). */
function invokeAs(svc: TestService, account: Account, name: string, input: unknown): Promise<unknown> {
  const requestId = randomUUID();
  return svc.service.operations.invoker.invoke({
    name,
    input,
    ctx: { ...account.ctx, requestId, correlationId: requestId },
    viewer: { kind: 'operator', scope: 'manage' },
  });
}

/**
 * One tick end to end before the run: a strategy (hourly, so the scheduler leaves it alone)
 * whose tick is handed to the service's handler directly must produce a filled order. A
 * broken order path would otherwise show up only as 10,000 failed ticks and no lag figure.
 */
async function preflight(svc: TestService, account: Account): Promise<void> {
  const created = (await invokeAs(svc, account, 'trading_dca_strategy_create', {
    name: 'preflight',
    inputToken: 'USDC',
    outputToken: 'SOL',
    amount: BUY_AMOUNT,
    interval: 'every 1 hours',
  })) as { strategyId: string };
  const dueAt = now();
  await svc.service.dueJobs.deliver({
    id: `dca:${created.strategyId}`,
    kind: 'repeat',
    address: { type: DCA_TYPE, id: created.strategyId },
    event: { type: 'dca.tick' },
    dueAt,
  });
  const order = await svc.service.runtime.get({ type: 'order', id: dcaOrderId(created.strategyId, dueAt) });
  const strategy = await svc.service.runtime.get({ type: DCA_TYPE, id: created.strategyId });
  await invokeAs(svc, account, 'trading_dca_strategy_delete', { strategyName: 'preflight' });
  const status = (order?.context as OrderContext | undefined)?.status;
  if (status !== 'filled') {
    const lastError = (strategy?.context as { lastError?: string } | undefined)?.lastError;
    throw new Error(
      `preflight: a DCA tick did not fill an order (order ${status ?? 'not created'}, strategy lastError: ${lastError ?? 'none'})`,
    );
  }
}

/**
 * Strategy k belongs to account k % ACCOUNTS and is anchored k / STRATEGIES of a minute
 * after `anchor`: consecutive due times (~6 ms apart) belong to different accounts, and each
 * account ticks every 600 ms, as independent users' strategies would.
 */
async function createStrategies(svc: TestService, accounts: Account[], anchor: number): Promise<string[]> {
  const ids = new Array<string>(STRATEGIES);
  await pool(STRATEGIES, CREATE_CONCURRENCY, async (k) => {
    const account = accounts[k % accounts.length]!;
    const input = {
      name: `dca-${k}`,
      inputToken: 'USDC',
      outputToken: 'SOL',
      amount: BUY_AMOUNT,
      interval: 'every 1 minutes',
      startAt: new Date(anchor + Math.floor((k * MINUTE_MS) / STRATEGIES)).toISOString(),
    };
    const view = (await invokeAs(svc, account, 'trading_dca_strategy_create', input)) as { strategyId: string; status: string };
    if (view.status !== 'active') throw new Error(`strategy ${k}: ${JSON.stringify(view)}`);
    ids[k] = view.strategyId;
  });
  return ids;
}

// ---------------------------------------------------------------------------------------------
// Instruments: the DCA due-job handler and the store, wrapped in place.

interface Delivery {
  strategyId: string;
  dueAt: number;
  started: number;
  ended: number;
  failed: boolean;
}

/**
 * Wraps the invoker every due tick goes through (the scheduler → DueJobs → `dca_tick`): the
 * one instance the service holds, so replacing its `invoke` sees every tick from the
 * scheduler unchanged, up to the flush wait the job waits for before it is done.
 */
function recordDeliveries(svc: TestService): { done: Delivery[]; inFlight: Map<number, Delivery> } {
  const invoker = svc.service.operations.invoker;
  const original = invoker.invoke.bind(invoker);
  const done: Delivery[] = [];
  const inFlight = new Map<number, Delivery>();
  let nextId = 0;
  invoker.invoke = async (invocation) => {
    if (invocation.name !== 'dca_tick') return original(invocation);
    const input = invocation.input as { strategyId: string; dueAt: number };
    const id = nextId++;
    const delivery: Delivery = { strategyId: input.strategyId, dueAt: input.dueAt, started: now(), ended: 0, failed: false };
    inFlight.set(id, delivery);
    try {
      return await original(invocation);
    } catch (error) {
      delivery.failed = true;
      throw error;
    } finally {
      delivery.ended = now();
      inFlight.delete(id);
      done.push(delivery);
    }
  };
  return { done, inFlight };
}

type StoreOp = 'get' | 'put' | 'commit' | 'find' | 'delete' | 'durable';
type StoreTally = Map<string, { count: number; ms: number }>;

/**
 * Counts the store calls of every caller by `<collection> <op>`, with their time (a put's
 * time runs to its durable group commit). The instrumented store the service exposes
 * delegates to this same instance, and the scheduler holds it directly, so wrapping the
 * instance's methods sees the scheduler's calls too (the /metrics histogram does not).
 */
function tallyStore(svc: TestService): StoreTally {
  const raw = (svc.service.adapters.scheduler as unknown as { store: StorePort }).store;
  const tally: StoreTally = new Map();
  for (const op of ['get', 'put', 'commit', 'find', 'delete', 'durable'] as const satisfies readonly StoreOp[]) {
    const method = (raw[op] as (...args: unknown[]) => Promise<unknown>).bind(raw);
    (raw as unknown as Record<StoreOp, (...args: unknown[]) => Promise<unknown>>)[op] = async (...args: unknown[]) => {
      const started = performance.now();
      try {
        return await method(...args);
      } finally {
        // A commit is named by the collections it writes (a unit of work); a durable wait by nothing.
        const what =
          op === 'commit'
            ? [...new Set((args[0] as Array<{ collection: string }>).map((w) => w.collection))].join(' + ')
            : op === 'durable'
              ? '(flush)'
              : String(args[0]);
        const key = `${what} ${op}`;
        const entry = tally.get(key) ?? { count: 0, ms: 0 };
        entry.count++;
        entry.ms += performance.now() - started;
        tally.set(key, entry);
      }
    };
  }
  return tally;
}

const snapshot = (tally: StoreTally): StoreTally => new Map([...tally].map(([key, value]) => [key, { ...value }]));

function tallyDelta(after: StoreTally, before: StoreTally): StoreTally {
  const delta: StoreTally = new Map();
  for (const [key, value] of after) {
    const base = before.get(key) ?? { count: 0, ms: 0 };
    if (value.count > base.count) delta.set(key, { count: value.count - base.count, ms: value.ms - base.ms });
  }
  return delta;
}

// ---------------------------------------------------------------------------------------------
// The measured window.

interface MeasuredWindow {
  start: number;
  end: number;
  cpuMs: number;
  /** Kernel time (syscalls: LMDB's msync/fdatasync, I/O), part of cpuMs. */
  systemMs: number;
  wallMs: number;
  /** Ticks whose delivery ended inside the window (the work the CPU figure paid for). */
  ticksCompleted: number;
  elu: number;
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  gcMs: number;
  /** GC pauses of at least LONG_PAUSE_MS, by kind (major = mark-compact). */
  longGc: Map<string, { count: number; ms: number; maxMs: number }>;
  /**
   * Event-loop stalls of at least LONG_PAUSE_MS: what holds every tick up at once (GC, a long
   * synchronous call, or the VM taking the CPU away: compare with longGc and the load average).
   */
  stalls: number[];
  heapStartMb: number;
  heapEndMb: number;
  rssEndMb: number;
  store: StoreTally;
  liveActors: number;
  passivations: number;
}

async function measureWindow(
  svc: TestService,
  deliveries: Delivery[],
  tally: StoreTally,
  start: number,
  end: number,
): Promise<MeasuredWindow> {
  await sleepService(start - now());
  const loop = monitorEventLoopDelay({ resolution: 10 });
  let gcMs = 0;
  const longGc: MeasuredWindow['longGc'] = new Map();
  const gcObserver = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gcMs += entry.duration;
      if (entry.duration < LONG_PAUSE_MS) continue;
      const kind = GC_KINDS[(entry as { detail?: { kind?: number } }).detail?.kind ?? 0] ?? 'other';
      const tally = longGc.get(kind) ?? { count: 0, ms: 0, maxMs: 0 };
      longGc.set(kind, { count: tally.count + 1, ms: tally.ms + entry.duration, maxMs: Math.max(tally.maxMs, entry.duration) });
    }
  });
  gcObserver.observe({ entryTypes: ['gc'] });
  // A 20 ms heartbeat: a beat late by LONG_PAUSE_MS or more is a stall of the whole loop.
  const stalls: number[] = [];
  let lastBeat = performance.now();
  const heartbeat = setInterval(() => {
    const now = performance.now();
    if (now - lastBeat - 20 >= LONG_PAUSE_MS) stalls.push(now - lastBeat - 20);
    lastBeat = now;
  }, 20);
  const heapStart = process.memoryUsage().heapUsed;
  const passivationsBefore = svc.service.runtime.stats().passivations;
  const storeBefore = snapshot(tally);
  const doneBefore = deliveries.length;
  const eluBefore = performance.eventLoopUtilization();
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  loop.enable();
  await profiled(CPU_PROFILE, () => sleepService(end - now()), 'the measured window');
  loop.disable();
  const cpu = process.cpuUsage(cpuBefore);
  const wallMs = performance.now() - wallBefore;
  const elu = performance.eventLoopUtilization(eluBefore).utilization;
  const store = tallyDelta(tally, storeBefore);
  const ticksCompleted = deliveries.length - doneBefore;
  gcObserver.disconnect();
  clearInterval(heartbeat);
  const memory = process.memoryUsage();
  const stats = svc.service.runtime.stats();
  return {
    start,
    end,
    cpuMs: (cpu.user + cpu.system) / 1000,
    systemMs: cpu.system / 1000,
    wallMs,
    ticksCompleted,
    elu,
    loopDelayP99Ms: loop.percentile(99) / 1e6,
    loopDelayMaxMs: loop.max / 1e6,
    gcMs,
    longGc,
    stalls,
    heapStartMb: heapStart / 2 ** 20,
    heapEndMb: memory.heapUsed / 2 ** 20,
    rssEndMb: memory.rss / 2 ** 20,
    store,
    liveActors: stats.live,
    passivations: stats.passivations - passivationsBefore,
  };
}

/** CPU of this process as a share of one core over `secondsToWait` of doing nothing. */
async function idleCpu(secondsToWait: number): Promise<number> {
  if (secondsToWait <= 0) return 0;
  const before = process.cpuUsage();
  const started = performance.now();
  await sleep(secondsToWait * 1000);
  const cpu = process.cpuUsage(before);
  return (cpu.user + cpu.system) / 1000 / (performance.now() - started);
}

/** Waits until no run due before `end` is pending nor being delivered (or `limitMs` passed). */
async function drain(svc: TestService, inFlight: Map<number, Delivery>, end: number, limitMs: number): Promise<boolean> {
  const deadline = now() + limitMs;
  while (now() < deadline) {
    // Records still due before `end` (a claimed record's wake time is its lease expiry, a minute on).
    const pending = await svc.service.adapters.store.find(SCHEDULER_COLLECTION, { index: WAKE_INDEX, lte: end - 1 }, { limit: 1 });
    const delivering = [...inFlight.values()].some((d) => d.dueAt < end);
    if (pending.items.length === 0 && !delivering) return true;
    await sleep(250);
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Results.

interface Summary {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

function summarize(values: number[]): Summary {
  // Durations in service ms, summarised in wall ms (the same unless the clock is driven).
  const sorted = Float64Array.from(values, wall).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
  const mean = sorted.reduce((sum, value) => sum + value, 0) / (sorted.length || 1);
  return { n: sorted.length, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted[sorted.length - 1] ?? NaN, mean };
}

const row = (label: string, s: Summary) =>
  `| ${label} | ${fmt(s.n)} | ${fmt(s.p50)} | ${fmt(s.p90)} | ${fmt(s.p99)} | ${fmt(s.max)} | ${fmt(s.mean, 1)} |`;

interface DcaOrder {
  strategyId: string;
  dueAt: number;
  createdAt: number;
  status: string;
}

/** Every DCA order in the store, with the strategy and the due time of its tick (kept on the order). */
async function readDcaOrders(svc: TestService): Promise<DcaOrder[]> {
  const out: DcaOrder[] = [];
  let cursor: string | undefined;
  do {
    const page = await svc.service.runtime.find('order', { index: 'state' }, { limit: 1000, ...(cursor ? { cursor } : {}) });
    for (const item of page.items) {
      const order = item.context as OrderContext;
      if (order.channel !== 'dca' || order.strategyId === undefined || order.tickDueAt === undefined) continue;
      out.push({ strategyId: order.strategyId, dueAt: order.tickDueAt, createdAt: order.createdAt, status: order.status });
    }
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

/** The strategies' own counters: buys, failures, skips, and how many are no longer active. */
async function strategyCounters(
  svc: TestService,
): Promise<{ buys: number; failures: number; skipped: number; notActive: number; lastError?: string }> {
  const totals = { buys: 0, failures: 0, skipped: 0, notActive: 0 } as {
    buys: number;
    failures: number;
    skipped: number;
    notActive: number;
    lastError?: string;
  };
  let cursor: string | undefined;
  do {
    const page = await svc.service.runtime.find(DCA_TYPE, { index: 'state' }, { limit: 1000, ...(cursor ? { cursor } : {}) });
    for (const item of page.items) {
      const context = item.context as { buys: number; failures: number; skipped: number; lastError?: string };
      totals.buys += context.buys;
      totals.failures += context.failures;
      totals.skipped += context.skipped;
      if (item.state !== 'active' && item.state !== 'deleted') totals.notActive++; // deleted: the preflight's
      if (context.lastError) totals.lastError = context.lastError;
    }
    cursor = page.nextCursor;
  } while (cursor);
  return totals;
}

/** The embedded bus's replay buffers (a bench may look inside; nothing else does); undefined on another bus. */
function retainedEvents(svc: TestService): { streams: number; events: number } | undefined {
  const streams = (svc.service.adapters.bus as unknown as { streams?: Map<string, { retained: unknown[] }> }).streams;
  if (!streams) return undefined;
  let events = 0;
  for (const state of streams.values()) events += state.retained.length;
  return { streams: streams.size, events };
}

function heapAfterGcMb(): number | undefined {
  if (!gc) return undefined;
  gc();
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

function report(
  window: MeasuredWindow,
  idleShare: number,
  deliveries: Delivery[],
  orders: DcaOrder[],
  strategyIds: string[],
  counters: Awaited<ReturnType<typeof strategyCounters>>,
  drained: boolean,
): { correct: boolean; figures: Figures } {
  const inWindow = (dueAt: number) => dueAt >= window.start && dueAt < window.end;
  const expected = strategyIds.length * MINUTES;
  const windowOrders = orders.filter((o) => inWindow(o.dueAt));
  const windowDeliveries = deliveries.filter((d) => inWindow(d.dueAt));

  // Ticks: distinct (strategy, dueAt) delivered; a run delivered again is counted once here.
  const deliveriesPerTick = new Map<string, number>();
  for (const d of windowDeliveries)
    deliveriesPerTick.set(`${d.strategyId}@${d.dueAt}`, (deliveriesPerTick.get(`${d.strategyId}@${d.dueAt}`) ?? 0) + 1);
  const redelivered = [...deliveriesPerTick.values()].filter((n) => n > 1).length;
  const handlerErrors = windowDeliveries.filter((d) => d.failed).length;

  // Orders per strategy: one per started minute of the window at most (one run a minute each).
  const allowed = Math.ceil(MINUTES);
  const perStrategy = new Map<string, number>();
  for (const o of windowOrders) perStrategy.set(o.strategyId, (perStrategy.get(o.strategyId) ?? 0) + 1);
  const counts = [...perStrategy.values()];
  const duplicates = counts.reduce((sum, n) => sum + Math.max(0, n - allowed), 0);
  const strategiesWithout = strategyIds.length - perStrategy.size;
  const filled = windowOrders.filter((o) => o.status === 'filled').length;

  const lag = summarize(windowOrders.map((o) => o.createdAt - o.dueAt));
  const firstStart = new Map<string, Delivery>();
  for (const d of windowDeliveries) {
    const key = `${d.strategyId}@${d.dueAt}`;
    const seen = firstStart.get(key);
    if (!seen || d.started < seen.started) firstStart.set(key, d);
  }
  const pickup = summarize([...firstStart.values()].map((d) => d.started - d.dueAt));
  const toOrder = summarize(
    windowOrders.flatMap((o) => {
      const d = firstStart.get(`${o.strategyId}@${o.dueAt}`);
      return d ? [o.createdAt - d.started] : [];
    }),
  );
  const tick = summarize([...firstStart.values()].map((d) => d.ended - d.started));
  const endToEnd = summarize([...firstStart.values()].map((d) => d.ended - d.dueAt));

  console.log(
    `\n## DCA ticks: ${fmt(strategyIds.length)} strategies "every 1 minutes", ${MINUTES} measured minute(s), embedded profile (LMDB, in-process scheduler), one process`,
  );
  console.log(
    `arrival: ${fmt((strategyIds.length / 60) * CLOCK_SPEED, 0)} ticks/s spread evenly; window of due times ${new Date(window.start).toISOString()} + ${MINUTES} min${clock ? ` of service time on a driven clock at ${CLOCK_SPEED}x wall time (a service minute lasts ${fmt(60 / CLOCK_SPEED)} s; lags in wall ms)` : ''}`,
  );
  console.log('| lag, ms | ticks | p50 | p90 | p99 | max | mean |\n|---|---|---|---|---|---|---|');
  console.log(row('**due → order created** (order.createdAt − dueAt)', lag));
  console.log(row('due → delivery start (scheduler pickup)', pickup));
  console.log(row('delivery start → order created (tick handler, safety path)', toOrder));
  console.log(row('delivery start → end (whole tick: order filled, strategy updated)', tick));
  console.log(row('due → delivery end', endToEnd));

  console.log('\n### Lag over the window, by 10 s of due time (a growing lag is a backlog: arrivals outpace ticks handled)');
  console.log('| due time from window start | orders | p50 ms | p99 ms | max ms |\n|---|---|---|---|---|');
  for (let from = window.start; from < window.end; from += BUCKET_MS) {
    const bucket = summarize(windowOrders.filter((o) => o.dueAt >= from && o.dueAt < from + BUCKET_MS).map((o) => o.createdAt - o.dueAt));
    console.log(`| +${(from - window.start) / 1000} s | ${fmt(bucket.n)} | ${fmt(bucket.p50)} | ${fmt(bucket.p99)} | ${fmt(bucket.max)} |`);
  }

  console.log('\n### Ticks and orders (correctness)');
  console.log(
    `ticks expected ${fmt(expected)}, delivered ${fmt(deliveriesPerTick.size)} (${fmt((deliveriesPerTick.size / expected) * 100, 1)}%), orders ${fmt(windowOrders.length)} (filled ${fmt(filled)}), runs delivered more than once ${fmt(redelivered)}, handler errors ${fmt(handlerErrors)}${drained ? '' : ` — NOT DRAINED within ${DRAIN_SECONDS} s`}`,
  );
  const withoutOrder = deliveriesPerTick.size - windowOrders.length;
  if (withoutOrder > 0)
    console.log(`ticks delivered that placed no order: ${fmt(withoutOrder)} (refused or failed before the order existed)`);
  const fewest = strategiesWithout > 0 ? 0 : counts.reduce((min, n) => Math.min(min, n), Infinity);
  const most = counts.reduce((max, n) => Math.max(max, n), 0);
  console.log(
    `orders per strategy in the window: min ${fmt(fewest)}, max ${fmt(most)} (at most ${allowed}); strategies without an order ${fmt(strategiesWithout)}; duplicates ${fmt(duplicates)}`,
  );
  console.log(
    `strategy counters (whole run): buys ${fmt(counters.buys)}, failures ${fmt(counters.failures)}, skipped ${fmt(counters.skipped)}, not active ${fmt(counters.notActive)}${counters.lastError ? ` (e.g. "${counters.lastError}")` : ''}`,
  );

  const ticks = Math.max(1, window.ticksCompleted);
  const wallS = window.wallMs / 1000;
  console.log('\n### Cost (service process, over the window)');
  const completedPerSecond = window.ticksCompleted / wallS;
  const arrivalsPerSecond = (strategyIds.length / 60) * CLOCK_SPEED;
  // Below the arrival rate the scheduler falls further behind every second: the lag then measures the run's length, not the path.
  const overloaded = completedPerSecond < arrivalsPerSecond * 0.97;
  console.log(
    `ticks completed ${fmt(window.ticksCompleted)} in ${fmt(wallS, 1)} s = ${fmt(completedPerSecond, 1)}/s (arrivals ${fmt(arrivalsPerSecond, 1)}/s)${overloaded ? ' — OVERLOADED: a backlog grows by the difference every second' : ''}`,
  );
  console.log(
    `CPU ${fmt(window.cpuMs / 1000, 1)} s = ${fmt((window.cpuMs / window.wallMs) * 100)}% of one core; **CPU per 1,000 ticks ${fmt((window.cpuMs / ticks) * 1000)} ms** (${fmt(window.cpuMs / ticks, 2)} ms a tick, of which kernel ${fmt(window.systemMs / ticks, 2)} ms)`,
  );
  const netMs = window.cpuMs - idleShare * window.wallMs;
  console.log(`  net of the idle service's ${fmt(idleShare * 100, 1)}% of a core: ${fmt((netMs / ticks) * 1000)} ms per 1,000 ticks`);
  console.log(
    `event loop: utilisation ${fmt(window.elu * 100)}%, delay p99 ${fmt(window.loopDelayP99Ms, 1)} ms, max ${fmt(window.loopDelayMaxMs, 1)} ms; GC pauses ${fmt((window.gcMs / window.wallMs) * 100, 1)}% of wall time`,
  );
  const stallMs = window.stalls.reduce((sum, ms) => sum + ms, 0);
  const gcLines = [...window.longGc].map(([kind, g]) => `${g.count} ${kind} (max ${fmt(g.maxMs)} ms, ${fmt(g.ms)} ms in all)`);
  console.log(
    `stalls of the loop >= ${LONG_PAUSE_MS} ms: ${window.stalls.length} (longest ${fmt(Math.max(0, ...window.stalls))} ms, ${fmt(stallMs)} ms in all); GC pauses >= ${LONG_PAUSE_MS} ms: ${gcLines.join(', ') || 'none'}`,
  );
  console.log(
    `heap ${fmt(window.heapStartMb)} → ${fmt(window.heapEndMb)} MB (rss ${fmt(window.rssEndMb)} MB); live actors ${fmt(window.liveActors)}, passivations in the window ${fmt(window.passivations)}`,
  );

  const storeRows = [...window.store].sort(([, a], [, b]) => b.count - a.count);
  const totals = { count: 0, puts: 0, ms: 0 };
  console.log('\n### Store calls per tick, by collection (all callers; a put waits for its durable group commit)');
  console.log('| collection op | per tick | mean ms | share of store time |\n|---|---|---|---|');
  const storeMs = storeRows.reduce((sum, [, v]) => sum + v.ms, 0);
  for (const [key, value] of storeRows) {
    totals.count += value.count;
    totals.ms += value.ms;
    if (key.endsWith(' put') || key.endsWith(' delete') || key.endsWith(' commit')) totals.puts += value.count;
    if (value.count / ticks < 0.01) continue;
    console.log(
      `| ${key} | ${fmt(value.count / ticks, 2)} | ${fmt(value.ms / value.count, 2)} | ${fmt((value.ms / (storeMs || 1)) * 100, 1)}% |`,
    );
  }
  console.log(
    `all: ${fmt(totals.count / ticks, 1)} store calls a tick, of which ${fmt(totals.puts / ticks, 1)} writes (a commit counts once)`,
  );

  const cpuPer1000 = (window.cpuMs / ticks) * 1000;
  if (BASELINE.cpu)
    console.log(
      `\nagainst the baseline: CPU per 1,000 ticks ${fmt(cpuPer1000)} / ${fmt(BASELINE.cpu)} ms = ${fmt(cpuPer1000 / BASELINE.cpu, 2)}x (target: at most 0.50x)`,
    );
  if (BASELINE.p99)
    console.log(`against the baseline: p99 lag ${fmt(lag.p99)} / ${fmt(BASELINE.p99)} ms = ${fmt(lag.p99 / BASELINE.p99, 2)}x`);

  const met = lag.p99 < TARGET_P99_MS && windowOrders.length > 0;
  console.log(
    `\np99 lag (due → order created) < ${fmt(TARGET_P99_MS)} ms at ${fmt(strategyIds.length)} strategies (target): ${met ? 'MET' : 'MISSED'} (p99 ${fmt(lag.p99)} ms, p50 ${fmt(lag.p50)} ms)`,
  );
  const correct = duplicates === 0 && windowOrders.length <= expected && withoutOrder <= 0;
  if (duplicates > 0 || windowOrders.length > expected) console.log('CORRECTNESS: a strategy bought more than once for one tick');
  const figures: Figures = {
    cpuPer1000,
    netCpuPer1000: (netMs / ticks) * 1000,
    systemPer1000: (window.systemMs / ticks) * 1000,
    p50: lag.p50,
    p99: lag.p99,
    pickupP99: pickup.p99,
    tickP99: tick.p99,
    ticksPerSecond: completedPerSecond,
    storeCallsPerTick: totals.count / ticks,
    writesPerTick: totals.puts / ticks,
    gcShare: (window.gcMs / window.wallMs) * 100,
    heapEndMb: window.heapEndMb,
    rssEndMb: window.rssEndMb,
    orders: windowOrders.length,
    duplicates,
  };
  return { correct, figures };
}

// ---------------------------------------------------------------------------------------------

let baseline: Figures | undefined;

async function main(): Promise<void> {
  if (BASELINE_REF && !isBaselineChild) {
    baseline = await runBaseline({
      ref: BASELINE_REF,
      benchFile: 'test/bench/dca.bench.ts',
      files: ['test/bench/baseline-run.ts', 'test/bench/scaled-clock.ts', 'test/bench/cpu-profile.ts', 'test/support/unmetered-limiter.ts'],
      env: CPU_PROFILE ? { DCA_BENCH_CPU_PROFILE: CPU_PROFILE.replace(/(\.cpuprofile)?$/, '.baseline.cpuprofile') } : {},
      nodeArgs: ['--expose-gc'],
    });
    if (!baseline) console.log('the baseline run wrote no figures: no ratios below');
  }
  if (CLOCK_SPEED !== 1) clock = new ScaledClock(CLOCK_SPEED);
  const svc = await startTestService({ discardLogs: true, env: SERVICE_ENV, ...(clock ? { clock } : {}) });
  if (Object.keys(SERVICE_ENV).length > 0) console.log(`service configuration: ${JSON.stringify(SERVICE_ENV)}`);
  unmeter(svc.service.adapters.limiter);
  try {
    const loadBefore = loadavg()[0]!;
    const setupStarted = performance.now();
    const accounts: Account[] = new Array(ACCOUNTS);
    await pool(ACCOUNTS, 10, async (i) => {
      accounts[i] = await openAccount(svc, i);
    });
    console.log(
      `setup: ${ACCOUNTS} accounts (operator, agent, custodial wallet, ${FAUCET_USDC} USDC) in ${seconds(performance.now() - setupStarted)}`,
    );

    await preflight(svc, accounts[0]!);
    const idle = await idleCpu(IDLE_SECONDS);
    console.log(`idle service (accounts set up, no strategy): ${fmt(idle * 100, 1)}% of one core over ${IDLE_SECONDS} s`);
    const deliveries = recordDeliveries(svc);
    const tally = tallyStore(svc);
    // Anchored on the previous whole minute: the grid is in the past, so each strategy's first
    // run is its next grid point after creation (see firstDueAt in schedule-timing.helpers.ts).
    const anchor = Math.floor(now() / MINUTE_MS) * MINUTE_MS - MINUTE_MS;
    const createStarted = performance.now();
    const cpuBefore = process.cpuUsage();
    const strategyIds = await createStrategies(svc, accounts, anchor);
    const createMs = performance.now() - createStarted;
    const createCpu = process.cpuUsage(cpuBefore);
    const ticksDuringCreation = deliveries.done.length;
    console.log(
      `created ${fmt(STRATEGIES)} strategies over ${ACCOUNTS} accounts in ${seconds(createMs)} (${fmt(STRATEGIES / (createMs / 1000))}/s, ${CREATE_CONCURRENCY} at a time, ` +
        `${fmt((createCpu.user + createCpu.system) / 1000 / STRATEGIES, 2)} ms CPU each; ${fmt(ticksDuringCreation)} ticks of the first strategies ran meanwhile)`,
    );

    const start = now() + WARMUP_SECONDS * 1000;
    const end = start + MINUTES * MINUTE_MS;
    console.log(`warm-up ${WARMUP_SECONDS} s, then measuring ${MINUTES} minute(s) of due times...`);
    const window = await measureWindow(svc, deliveries.done, tally, start, end);
    const drainStarted = now();
    const drained = await drain(svc, deliveries.inFlight, end, DRAIN_SECONDS * 1000);
    console.log(
      `every run due before the window's end delivered ${seconds(wall(now() - drainStarted))} after it${drained ? '' : ' (gave up)'}`,
    );
    const heapMb = heapAfterGcMb();
    if (heapMb !== undefined) console.log(`heap after GC: ${fmt(heapMb)} MB with ${fmt(STRATEGIES)} strategies scheduled`);
    const retained = retainedEvents(svc);
    if (retained)
      console.log(
        `event bus: ${fmt(retained.events)} events retained in ${fmt(retained.streams)} streams after ${fmt(deliveries.done.length)} ticks (${fmt(retained.events / Math.max(1, deliveries.done.length), 1)} a tick; the embedded bus keeps each stream's last 24 hours on the heap)`,
      );

    const orders = await readDcaOrders(svc);
    const counters = await strategyCounters(svc);
    const { correct, figures } = report(window, idle, deliveries.done, orders, strategyIds, counters, drained);
    if (heapMb !== undefined) figures.heapAfterGcMb = heapMb;
    writeResult(figures);
    printRatios(`DCA ticks at ${fmt(STRATEGIES)} strategies`, figures, baseline, {
      cpuPer1000: 'CPU ms per 1,000 ticks',
      netCpuPer1000: 'CPU ms per 1,000 ticks, net of the idle service',
      systemPer1000: 'of which kernel, ms per 1,000 ticks',
      p50: 'lag p50 ms (due → order created)',
      p99: 'lag p99 ms (due → order created)',
      tickP99: 'whole tick p99 ms',
      storeCallsPerTick: 'store calls a tick',
      writesPerTick: 'store writes a tick',
      gcShare: 'GC pauses, % of wall time',
      heapAfterGcMb: 'heap after GC, MB',
      rssEndMb: 'RSS at the window end, MB',
    });
    console.log(
      `machine: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), load average ${fmt(loadBefore, 1)} at the start, ${fmt(loadavg()[0]!, 1)} at the end`,
    );
    if (!correct) process.exitCode = 1;
  } finally {
    await svc.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
