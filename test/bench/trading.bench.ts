/**
 * Guarded swaps through the whole safety path vs portfolio reads (printed, not
 * asserted, except correctness). Run: `npm run bench:trading`.
 *
 * The real service in this process on the embedded profile (LMDB in a temp DATA_DIR, durable
 * commits), HTTP over loopback. The load comes from a child process (this same file, forked)
 * so that the clients do not share the service's event loop: CLIENTS (50) clients, each one
 * keep-alive connection and its own trading account (operator, agent with trading enabled,
 * trade key, custodial wallet funded from the paper faucet), each sending its next call as
 * soon as the previous one answered (closed loop, as autocannon -c 50).
 *
 * Phases, each after a warm-up (JIT, caches, LMDB pages):
 * 1. baseline: MCP `tools/call trading_portfolio_summary` reads/s;
 * 2. MCP `tools/call trading_solana_aggregator_swap` USDC -> SOL, a fresh idempotencyKey
 *    (UUID v4) per call: a guarded call (idempotency record), every safety check, a durable
 *    order, the paper venue's fill, positions booked, audit;
 * 3. the same swaps in an open loop at BENCH_SWAP_RATE swaps/s (default half the rate phase 2
 *    reached; 0 skips it): calls sent on a fixed schedule whatever the answers, latency from
 *    when each was due (no coordinated omission, as wrk2 measures);
 * 4. the same read again, now that every account holds the swap phases' orders;
 * 5. the read in an open loop at BENCH_SUMMARY_RATE reads/s (default half of phase 4's rate);
 * 6. (BENCH_REST=0 skips it) REST `POST /api/nest/trading/command` "swap 1 USDC to SOL" with
 *    `X-Idempotency-Key`, signed in as each account's operator;
 * 7. (BENCH_CEILING=0 skips it) the machine's own cost of a request: a bare node:http server
 *    (bare-ceiling.ts, its own process on the service's core) under the same load, closed loop and open loop at the
 *    swap and summary rates. On a VM a process that sleeps between requests pays for every
 *    wake-up (measured: a bare server's CPU per request several times its closed-loop figure
 *    at 200/s, and more at 50/s), so an open-loop figure means something only beside the
 *    ceiling's at the same rate.
 * Every answer is checked (HTTP 200, `result.isError === false`, order `filled`); any other is
 * an error, counted and sampled. After each swap phase the orders in the store are counted:
 * orders created, swaps acknowledged and distinct order ids must be equal.
 *
 * Target: swap p99 < 30 ms at 50 concurrent clients. With a closed loop, mean
 * latency = clients / throughput (Little's law), so the target also asks for well over
 * 50 / 0.030 = 1,667 swaps/s.
 *
 * Rate limits: trade keys have 60 requests/min and sessions 300/min (the limits), which the
 * load passes in a second. As the MCP bench does (`unmeteredMcpHandler`), the budget is raised
 * so the counter still runs on every request without denying any; here on the service's own
 * limiter, in this process only, so that both MCP and REST go through the production wiring
 * (request log at info, metrics) unchanged.
 *
 * Per phase: CPU of the service per call (all its threads), LMDB write transactions per call
 * (each one a commit and, when alone, a disk flush of its own), context switches per call,
 * flush waits, GC. The service runs on core 0 and the load generator on core 1 (BENCH_PIN=0
 * leaves them to the kernel). `npm run bench:trading-ab` runs this on a base commit and on
 * this tree in one run and prints the ratios.
 *
 * Env: BENCH_SECONDS (10) per measured phase, BENCH_WARMUP_SECONDS (3), BENCH_CLIENTS (50),
 * BENCH_SWAP_RATE (half), BENCH_SUMMARY_RATE (half), BENCH_PIN (1), BENCH_RESULT_PATH (the
 * figures as JSON), BENCH_REST (1), BENCH_CPU_PROFILE (a path: a .cpuprofile of
 * the service process during the closed-loop MCP swap phase only, for DevTools or speedscope),
 * BENCH_OPEN_CPU_PROFILE (the same for the open-loop swap phase), BENCH_SUMMARY_OPEN_CPU_PROFILE (the
 * same for the open-loop summary phase), BENCH_HEAP_PROFILE (a path: a sampling allocation profile of
 * the closed-loop swap phase, `.heapprofile`).
 */
import { bareCeiling, listen } from './bare-ceiling.js';
import { heapSampled, profiled } from './cpu-profile.js';
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import { cpus, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { open } from 'lmdb';
import { bearer, Operator, rawRpc } from '../support/mcp-fixtures.js';
import { scrapeMetrics, startTestService, type TestService } from '../support/test-service.js';
import { unmeter } from '../support/unmetered-limiter.js';
import { collectionOf } from '../../src/runtime/actor-storage.js';
import { compiledImport } from './loader/compiled-import.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 50);
const WITH_REST = process.env.BENCH_REST !== '0';
const WITH_CEILING = process.env.BENCH_CEILING !== '0';
const CPU_PROFILE = process.env.BENCH_CPU_PROFILE;
const OPEN_CPU_PROFILE = process.env.BENCH_OPEN_CPU_PROFILE;
const SUMMARY_OPEN_CPU_PROFILE = process.env.BENCH_SUMMARY_OPEN_CPU_PROFILE;
const HEAP_PROFILE = process.env.BENCH_HEAP_PROFILE;
/** Swaps/s of the open-loop phase: a number, or `half` (default) of the closed loop's swaps/s in this run; 0 skips it. */
const SWAP_RATE = process.env.BENCH_SWAP_RATE ?? 'half';
/** Summary reads/s of the open-loop read phase, likewise (default `half` of the closed loop's reads/s). */
const SUMMARY_RATE = process.env.BENCH_SUMMARY_RATE ?? 'half';
/** Pin the service to core 0 and the load generator to core 1 (BENCH_PIN=0: let the kernel place them). */
const PIN = process.env.BENCH_PIN !== '0';
/** Where the figures go as JSON (what `trading-ab.bench.ts` compares). */
const RESULT_PATH = process.env.BENCH_RESULT_PATH;
const TARGET_P99_MS = 30;
const OPEN_TARGET_P99_MS = 10;
/** Seconds of no load over which the service's own background CPU is measured. */
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 3);

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const SOL = 'So11111111111111111111111111111111111111112';
/** 1 USDC in base units (6 decimals): small enough that a wallet funded below never runs dry. */
const SWAP_AMOUNT = '1000000';
const REST_COMMAND = 'swap 1 USDC to SOL';
/** Whole tokens per wallet: 5 M swaps of 1 USDC, far beyond any run. */
const FAUCET = [
  { token: 'USDC', amount: '5000000' },
  { token: 'SOL', amount: '100' },
] as const;
const ACCEPT = 'application/json, text/event-stream';
/** Set in the forked load generator's environment. */
const ROLE_ENV = 'TRADING_BENCH_ROLE';
const MAX_ERROR_SAMPLES = 5;

// ---------------------------------------------------------------------------------------------
// What the parent and the load child exchange (IPC, structured clone).

type CallKind = 'mcp-swap' | 'mcp-summary' | 'rest-swap' | 'ceiling';

interface ClientSpec {
  /** Request path: `/mcp/<publicId>` or the REST route with `?agentId=`. */
  path: string;
  /** Credential headers of this client (trade key, or session bearer + CSRF token). */
  headers: Record<string, string>;
}

interface PhaseSpec {
  kind: CallKind;
  seconds: number;
  host: string;
  port: number;
  clients: ClientSpec[];
  /**
   * Absent: closed loop (each client sends again as soon as it is answered). Set: open loop,
   * calls/s over all clients, sent on a fixed schedule whatever the answers; latency counts
   * from the time a call was due (no coordinated omission).
   */
  ratePerSecond?: number;
}

interface LatencySummary {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

interface PhaseResult {
  /** Answers received (successes + failures), including those in flight at the deadline. */
  calls: number;
  errors: number;
  errorSamples: string[];
  /** Distinct order ids among successful swaps (0 for reads). */
  distinctOrders: number;
  seconds: number;
  latency: LatencySummary;
  /** CPU time of the load generator, as a share of one core. */
  clientCpuPct: number;
  /** Open loop: how late the generator sent its latest call (counted in that call's latency). */
  sendLagMaxMs: number;
  /** Connections the phase opened: one per client in a closed loop; in an open loop, one more for each call sent while its client's earlier ones were unanswered. */
  connections: number;
}

// ---------------------------------------------------------------------------------------------
// The load child: one loop per client over node:http (closed, or open at a rate), one keep-alive socket each.

function requestBody(kind: CallKind, id: number): { body: string; headers: Record<string, string> } {
  if (kind === 'rest-swap') return { body: JSON.stringify({ message: REST_COMMAND }), headers: { 'x-idempotency-key': randomUUID() } };
  if (kind === 'ceiling') return { body: JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }), headers: {} };
  const params =
    kind === 'mcp-swap'
      ? {
          name: 'trading_solana_aggregator_swap',
          arguments: { inputMint: USDC, outputMint: SOL, amount: SWAP_AMOUNT, idempotencyKey: randomUUID() },
        }
      : { name: 'trading_portfolio_summary', arguments: {} };
  return { body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }), headers: {} };
}

/** The parts of an answer that say whether it succeeded (JSON-RPC for MCP, the command envelope for REST). */
interface Answer {
  success?: unknown;
  order?: { status?: unknown; order_id?: unknown };
  result?: { isError?: unknown; structuredContent?: { status?: unknown; order_id?: unknown; positions?: unknown } };
}

/** Success (with the order id of a swap) or why the answer is not one. */
function verdict(kind: CallKind, status: number, text: string): { ok: true; orderId?: string } | { ok: false; why: string } {
  const fail = (why: string) => ({ ok: false as const, why: `${why}: HTTP ${status} ${text.slice(0, 300)}` });
  if (status !== 200) return fail('status');
  let body: Answer | null;
  try {
    body = JSON.parse(text) as Answer | null;
  } catch {
    return fail('not JSON');
  }
  if (kind === 'rest-swap') {
    const order = body?.order;
    if (body?.success !== true || order?.status !== 'filled' || typeof order.order_id !== 'string') return fail('not filled');
    return { ok: true, orderId: order.order_id };
  }
  const result = body?.result;
  // A tool failure is HTTP 200 with `isError: true`: only the result says whether it worked.
  if (result?.isError !== false) return fail('isError');
  if (kind === 'ceiling') return { ok: true };
  if (kind === 'mcp-summary') return Array.isArray(result.structuredContent?.positions) ? { ok: true } : fail('no positions');
  const order = result.structuredContent;
  if (order?.status !== 'filled' || typeof order.order_id !== 'string') return fail('not filled');
  return { ok: true, orderId: order.order_id };
}

function post(
  spec: PhaseSpec,
  client: ClientSpec,
  agent: Agent,
  body: string,
  headers: Record<string, string>,
  onNewConnection: () => void,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: spec.host,
        port: spec.port,
        method: 'POST',
        path: client.path,
        agent,
        headers: {
          'content-type': 'application/json',
          accept: ACCEPT,
          ...client.headers,
          ...headers,
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        if (!req.reusedSocket) onNewConnection();
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function summarize(latencies: number[]): LatencySummary {
  const sorted = Float64Array.from(latencies).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
  const mean = sorted.reduce((sum, value) => sum + value, 0) / (sorted.length || 1);
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted[sorted.length - 1] ?? NaN, mean };
}

async function runPhase(spec: PhaseSpec): Promise<PhaseResult> {
  const latencies: number[] = [];
  const orderIds = new Set<string>();
  const errorSamples: string[] = [];
  let errors = 0;
  let nextId = 1;
  let sendLagMax = 0;
  let connections = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const deadline = started + spec.seconds * 1000;
  /** One call: its answer checked, its latency counted from `since`. */
  const callOnce = async (client: ClientSpec, agent: Agent, since: number) => {
    const { body, headers } = requestBody(spec.kind, nextId++);
    let outcome: ReturnType<typeof verdict>;
    try {
      const answer = await post(spec, client, agent, body, headers, () => connections++);
      outcome = verdict(spec.kind, answer.status, answer.text);
    } catch (error) {
      outcome = { ok: false, why: `network: ${error instanceof Error ? error.message : String(error)}` };
    }
    latencies.push(performance.now() - since);
    if (outcome.ok) {
      if (outcome.orderId) orderIds.add(outcome.orderId);
    } else {
      errors++;
      if (errorSamples.length < MAX_ERROR_SAMPLES) errorSamples.push(outcome.why);
    }
  };
  const rate = spec.ratePerSecond;
  if (rate) {
    // Open loop: one schedule for all clients (round robin), each call sent when due whether
    // or not earlier ones were answered (a client opens another socket for it), its latency
    // counted from when it was due: a slow answer delays no later call and hides nothing
    // (no coordinated omission), and a generator that fell behind shows as latency too.
    const agents = spec.clients.map(() => new Agent({ keepAlive: true }));
    const inFlight: Array<Promise<void>> = [];
    const intervalMs = 1000 / rate;
    try {
      for (let n = 0; ; n++) {
        const due = started + n * intervalMs;
        if (due >= deadline) break;
        const wait = due - performance.now();
        if (wait > 1) await sleep(wait);
        else if (wait > 0) await new Promise<void>((resolve) => setImmediate(resolve));
        sendLagMax = Math.max(sendLagMax, performance.now() - due);
        const index = n % spec.clients.length;
        inFlight.push(callOnce(spec.clients[index]!, agents[index]!, due));
      }
      await Promise.all(inFlight);
    } finally {
      for (const agent of agents) agent.destroy();
    }
  } else {
    await Promise.all(
      spec.clients.map(async (client) => {
        // One socket per client, as one MCP client or browser tab per account would hold.
        const agent = new Agent({ keepAlive: true, maxSockets: 1 });
        try {
          while (performance.now() < deadline) await callOnce(client, agent, performance.now());
        } finally {
          agent.destroy();
        }
      }),
    );
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  return {
    calls: latencies.length,
    errors,
    errorSamples,
    distinctOrders: orderIds.size,
    seconds,
    latency: summarize(latencies),
    clientCpuPct: ((cpu.user + cpu.system) / 1e6 / seconds) * 100,
    sendLagMaxMs: sendLagMax,
    connections,
  };
}

function loadChild(): void {
  process.on('message', (spec: PhaseSpec) => {
    runPhase(spec).then(
      (result) => process.send?.(result),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
  process.on('disconnect', () => process.exit(0));
}

// ---------------------------------------------------------------------------------------------
// The parent: the service, the accounts, the phases, the report.

interface TradingAccount {
  operator: Operator;
  agentId: string;
  publicId: string;
  tradeKey: string;
}

const toolCall = (name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name, arguments: args },
});

/** One client's account, set up as an operator and an MCP client would (see trading.e2e.test.ts). */
async function openAccount(svc: TestService, index: number): Promise<TradingAccount> {
  const operator = await Operator.signIn(svc);
  const { agentId, publicId } = await operator.agent(`bench-trader-${index}`);
  const enabled = await operator.client.put(`/api/nest/agents/${agentId}/trading`, { enabled: true });
  if (enabled.status !== 200) throw new Error(`enable trading: ${enabled.status} ${JSON.stringify(enabled.body)}`);
  const { secret } = await operator.agentKey(agentId, 'trade');
  const wallet = await rawRpc(svc.url, publicId, toolCall('trading_wallet_custodial_ensure', {}), bearer(secret));
  if (wallet.body?.result?.isError !== false) throw new Error(`custodial wallet: ${wallet.text}`);
  for (const { token, amount } of FAUCET) {
    const funded = await operator.client.post(`/api/nest/trading/paper/faucet/${operator.userId}?agentId=${agentId}`, {
      chain: 'solana',
      token,
      amount,
    });
    if (funded.status !== 200) throw new Error(`faucet ${token}: ${funded.status} ${JSON.stringify(funded.body)}`);
  }
  return { operator, agentId, publicId, tradeKey: secret };
}

function specOf(svc: TestService, kind: CallKind, seconds: number, accounts: TradingAccount[], ratePerSecond?: number): PhaseSpec {
  const url = new URL(svc.url);
  const clients = accounts.map((account): ClientSpec => {
    if (kind !== 'rest-swap') return { path: `/mcp/${account.publicId}`, headers: bearer(account.tradeKey) };
    // The operator's session: bearer plus its CSRF token (a mutating route), no cookie needed.
    const { bearer: session, csrf } = account.operator.client;
    if (!session || !csrf) throw new Error('operator is not signed in');
    return {
      path: `/api/nest/trading/command?agentId=${account.agentId}`,
      headers: { authorization: `Bearer ${session}`, 'x-csrf-token': csrf },
    };
  });
  return { kind, seconds, host: url.hostname, port: Number(url.port), clients, ...(ratePerSecond ? { ratePerSecond } : {}) };
}

class LoadGenerator {
  private constructor(private readonly child: ChildProcess) {}

  static start(): LoadGenerator {
    // Its own execArgv: a `--cpu-prof` given to this process must profile the service only.
    // Pinned to the core the service is not on (`taskset`), so that the two do not take turns.
    const pin = PIN
      ? { execPath: 'taskset', execArgv: ['-c', '1', process.execPath, ...compiledImport()] }
      : { execArgv: compiledImport() };
    const child = fork(fileURLToPath(import.meta.url), [], {
      ...pin,
      env: { ...process.env, [ROLE_ENV]: 'load' },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    return new LoadGenerator(child);
  }

  run(spec: PhaseSpec): Promise<PhaseResult> {
    return new Promise((resolve, reject) => {
      const exited = (code: number | null) => reject(new Error(`load generator exited with ${code}`));
      this.child.once('exit', exited);
      this.child.once('message', (result: PhaseResult) => {
        this.child.off('exit', exited);
        resolve(result);
      });
      this.child.send(spec);
    });
  }

  stop(): void {
    this.child.disconnect();
  }
}

type StoreOp = 'get' | 'put' | 'commit' | 'find' | 'delete' | 'durable';
type StoreOps = Record<StoreOp, { count: number; seconds: number }>;

/** Store calls so far (`store_operation_duration_seconds`) and live actors, from the service's own metrics. */
async function storeOps(svc: TestService): Promise<StoreOps & { liveActors: number }> {
  const text = await scrapeMetrics(svc);
  const metric = (pattern: string) => Number(new RegExp(`^${pattern} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  const of = (op: StoreOp) => ({
    count: metric(`store_operation_duration_seconds_count\\{operation="${op}"\\}`),
    seconds: metric(`store_operation_duration_seconds_sum\\{operation="${op}"\\}`),
  });
  return {
    get: of('get'),
    put: of('put'),
    commit: of('commit'),
    find: of('find'),
    delete: of('delete'),
    durable: of('durable'),
    liveActors: metric('runtime_actors_live'),
  };
}

/** Orders in the store: all of them, and those `filled`. */
async function countOrders(svc: TestService): Promise<{ all: number; filled: number }> {
  const count = async (query: { index: string; eq?: string }) => {
    let total = 0;
    let cursor: string | undefined;
    do {
      const page = await svc.service.adapters.store.find(collectionOf('order'), query, { limit: 1000, ...(cursor ? { cursor } : {}) });
      total += page.items.length;
      cursor = page.nextCursor;
    } while (cursor);
    return total;
  };
  return { all: await count({ index: 'state' }), filled: await count({ index: 'state', eq: 'filled' }) };
}

/** The figures of one phase that an A/B run compares. */
interface PhaseFigures {
  rps: number;
  cpuUsPerCall: number;
  txnsPerCall: number;
  switchesPerCall: number;
  durablePerCall: number;
  gcPct: number;
  p50: number;
  p99: number;
}

export interface BenchResult {
  summary: PhaseFigures;
  swap: PhaseFigures;
  openSwap?: PhaseFigures & { rate: number };
  openSummary?: PhaseFigures & { rate: number };
  /** The bare node:http ceiling under the same loads (BENCH_CEILING=0: absent). */
  ceiling?: PhaseFigures;
  ceilingOpenSwap?: PhaseFigures & { rate: number };
  ceilingOpenSummary?: PhaseFigures & { rate: number };
  idleCpuPct: number;
  loadAverage: number;
}

interface Measured {
  label: string;
  load: PhaseResult;
  /** CPU of the service's threads by kind (main, libuv, V8 workers, LMDB), as shares of one core. */
  threads: string;
  rps: number;
  /** Service process CPU (all its threads) as a share of one core, of which in the kernel, and per call. */
  cpuPct: number;
  sysPct: number;
  cpuUsPerCall: number;
  /** LMDB write transactions (each with its own commit and, alone, its own disk flush) per call. */
  txnsPerCall: number;
  /** Context switches of the service's threads (voluntary and not) per call. */
  switchesPerCall: number;
  /** Garbage collection pauses as a share of the phase's wall time. */
  gcPct: number;
  loopDelayP99Ms: number;
  perCall: Record<StoreOp, number>;
  /** Mean time a store put or commit waited (to its commit). */
  putMeanMs: number;
  /** Mean time a wait for durability took (to the disk flush of what was committed before it). */
  durableMeanMs: number;
  ordersCreated: number;
  ordersFilled: number;
  ordersPerAccountAfter: number;
  heapGrowthKbPerCall: number;
  heapMb: number;
  liveActors: number;
}

async function measure(svc: TestService, gen: LoadGenerator, label: string, spec: PhaseSpec): Promise<Measured> {
  // Audit entries are written in batches after their call: flush so that each phase's store
  // counts hold its own entries, not the previous phase's backlog.
  await svc.service.operations.audit.flush();
  // Counting orders uses the (instrumented) store: count before the metrics snapshot, and after it.
  const ordersBefore = await countOrders(svc);
  const opsBefore = await storeOps(svc);
  const heapBefore = process.memoryUsage().heapUsed;
  let gcMs = 0;
  const gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcMs += entry.duration;
  });
  gc.observe({ entryTypes: ['gc'] });
  const loop = monitorEventLoopDelay({ resolution: 10 });
  const txnsBefore = writeTransactions(svc);
  const cpuBefore = process.cpuUsage();
  const threadsBefore = threadUse();
  loop.enable();
  const load = await gen.run(spec);
  loop.disable();
  const cpu = process.cpuUsage(cpuBefore);
  const txns = writeTransactions(svc) - txnsBefore;
  const threadsAfter = threadUse();
  const switches = totalSwitches(threadsAfter) - totalSwitches(threadsBefore);
  const threads = threadShares(threadsBefore, threadsAfter, load.seconds, Math.max(1, load.calls));
  const heapAfter = process.memoryUsage().heapUsed;
  gc.disconnect();
  await svc.service.operations.audit.flush();
  const opsAfter = await storeOps(svc);
  const ordersAfter = await countOrders(svc);
  const calls = Math.max(1, load.calls);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const delta = (op: StoreOp) => opsAfter[op].count - opsBefore[op].count;
  return {
    label,
    load,
    threads,
    rps: load.calls / load.seconds,
    cpuPct: (cpuSeconds / load.seconds) * 100,
    sysPct: (cpu.system / 1e6 / load.seconds) * 100,
    cpuUsPerCall: (cpuSeconds * 1e6) / calls,
    txnsPerCall: txns / calls,
    switchesPerCall: switches / calls,
    gcPct: (gcMs / 1000 / load.seconds) * 100,
    loopDelayP99Ms: loop.percentile(99) / 1e6,
    perCall: {
      get: delta('get') / calls,
      put: delta('put') / calls,
      commit: delta('commit') / calls,
      find: delta('find') / calls,
      delete: delta('delete') / calls,
      durable: delta('durable') / calls,
    },
    putMeanMs:
      ((opsAfter.put.seconds - opsBefore.put.seconds + opsAfter.commit.seconds - opsBefore.commit.seconds) /
        Math.max(1, delta('put') + delta('commit'))) *
      1000,
    durableMeanMs: ((opsAfter.durable.seconds - opsBefore.durable.seconds) / Math.max(1, delta('durable'))) * 1000,
    ordersCreated: ordersAfter.all - ordersBefore.all,
    ordersFilled: ordersAfter.filled - ordersBefore.filled,
    ordersPerAccountAfter: ordersAfter.all / spec.clients.length,
    // Without a forced GC: indicative only (what the phase left on the heap, garbage included).
    heapGrowthKbPerCall: (heapAfter - heapBefore) / 1024 / calls,
    heapMb: heapAfter / 2 ** 20,
    liveActors: opsAfter.liveActors,
  };
}

/** Write transactions the service's LMDB environment committed so far (its last transaction id). */
function writeTransactions(svc: TestService): number {
  // lmdb-js shares one environment per path within a process: this is the service's own.
  const env = open({ path: join(svc.dataDir, 'store'), overlappingSync: true });
  // Its statistics are those of this handle's read snapshot, which may be older: take a fresh one.
  env.resetReadTxn();
  return (env.getStats() as { lastTxnId: number }).lastTxnId;
}

/** What one thread of this process has used so far: CPU ticks (1/100 s) and context switches (voluntary and not). */
interface ThreadUse {
  ticks: number;
  switches: number;
}

/** Each thread of this process so far, by name (the main thread is `main`, others `name#tid`). */
function threadUse(): Map<string, ThreadUse> {
  const use = new Map<string, ThreadUse>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const status = readFileSync(`/proc/self/task/${tid}/status`, 'utf8');
      const close = stat.lastIndexOf(')');
      const name = tid === String(process.pid) ? 'main' : `${stat.slice(stat.indexOf('(') + 1, close)}#${tid}`;
      const fields = stat.slice(close + 2).split(' ');
      let switches = 0;
      for (const match of status.matchAll(/^(?:non)?voluntary_ctxt_switches:\s+(\d+)$/gm)) switches += Number(match[1]);
      use.set(name, { ticks: Number(fields[11]) + Number(fields[12]), switches });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return use;
}

const totalSwitches = (use: Map<string, ThreadUse>) => [...use.values()].reduce((sum, thread) => sum + thread.switches, 0);

/**
 * CPU of each thread between two readings, as a share of `seconds` of one core, with its
 * context switches per call: on a VM a thread's every wake-up costs far more than in the
 * profile, so which threads wake per call says where an idle service spends its CPU.
 */
function threadShares(before: Map<string, ThreadUse>, after: Map<string, ThreadUse>, seconds: number, calls: number): string {
  return [...after]
    .map(([name, use]) => {
      const was = before.get(name) ?? { ticks: 0, switches: 0 };
      return { name, ticks: use.ticks - was.ticks, switches: use.switches - was.switches };
    })
    .filter((thread) => thread.ticks > 0 || thread.switches > 0)
    .sort((a, b) => b.ticks - a.ticks || b.switches - a.switches)
    .map((thread) => `${thread.name} ${(thread.ticks / seconds).toFixed(0)}% (${(thread.switches / calls).toFixed(1)} switches/call)`)
    .join(', ');
}

/** The service's CPU (all threads) while no call arrives: what timers, due jobs and flushes cost on their own. */
async function idleCpu(seconds: number): Promise<number> {
  const before = process.cpuUsage();
  const started = performance.now();
  await sleep(seconds * 1000);
  const cpu = process.cpuUsage(before);
  return ((cpu.user + cpu.system) / 1e3 / (performance.now() - started)) * 100;
}

const ms = (value: number) => value.toFixed(1);

function latencyRow(m: Measured): string {
  const { latency } = m.load;
  return `| ${m.label} | ${m.rps.toFixed(0)} | ${ms(latency.p50)} | ${ms(latency.p90)} | ${ms(latency.p99)} | ${ms(latency.max)} | ${m.load.errors} |`;
}

function costRow(m: Measured): string {
  const ops = `${m.perCall.get.toFixed(1)} / ${m.perCall.put.toFixed(1)} / ${m.perCall.commit.toFixed(1)} / ${m.perCall.find.toFixed(1)} / ${m.perCall.durable.toFixed(1)}`;
  return `| ${m.label} | ${m.cpuPct.toFixed(0)}% (sys ${m.sysPct.toFixed(0)}%) | ${m.cpuUsPerCall.toFixed(0)} | ${m.txnsPerCall.toFixed(2)} / ${m.switchesPerCall.toFixed(1)} | ${m.gcPct.toFixed(1)}% | ${ms(m.loopDelayP99Ms)} | ${ops} | ${m.putMeanMs.toFixed(1)} / ${m.durableMeanMs.toFixed(1)} | ${m.heapMb.toFixed(0)} MB, ${m.heapGrowthKbPerCall >= 0 ? '+' : ''}${m.heapGrowthKbPerCall.toFixed(1)} KB/call | ${m.liveActors} |`;
}

/** Swaps must have created exactly one filled order per acknowledged swap, and nothing else. */
function ordersCheck(m: Measured): { ok: boolean; line: string } {
  const acknowledged = m.load.calls - m.load.errors;
  const ok =
    m.load.errors === 0 && m.ordersCreated === acknowledged && m.ordersFilled === acknowledged && m.load.distinctOrders === acknowledged;
  return {
    ok,
    line: `${m.label}: swaps acknowledged ${acknowledged}, distinct order ids ${m.load.distinctOrders}, orders created ${m.ordersCreated}, filled ${m.ordersFilled} -> ${ok ? 'equal' : 'MISMATCH'}`,
  };
}

/** One load of the bare ceiling: its process's CPU per call (all threads) and context switches per call. */
interface CeilingMeasured {
  label: string;
  load: PhaseResult;
  rps: number;
  cpuUsPerCall: number;
  switchesPerCall: number;
}

/** CPU ticks (1/100 s) and context switches of every thread of process `pid` so far. */
function processUse(pid: number): ThreadUse {
  const use = { ticks: 0, switches: 0 };
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      use.ticks += Number(fields[11]) + Number(fields[12]);
      for (const match of readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8').matchAll(/^(?:non)?voluntary_ctxt_switches:\s+(\d+)$/gm))
        use.switches += Number(match[1]);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return use;
}

/**
 * The bare ceiling under the loads the service just had: a closed loop of as many clients,
 * and open loops at the swap and summary rates (0: that one is skipped). It runs in a process
 * of its own on the service's core, so that the service's own timers and flushes at rest are
 * not charged to it; its CPU is read from /proc (1/100 s ticks: enough over a phase).
 */
async function measureCeiling(
  gen: LoadGenerator,
  clients: number,
  swapRate: number,
  summaryRate: number,
): Promise<{ closed: CeilingMeasured; openSwap?: CeilingMeasured; openSummary?: CeilingMeasured }> {
  const child = fork(fileURLToPath(import.meta.url), [], {
    ...(PIN ? { execPath: 'taskset', execArgv: ['-c', '0', process.execPath, ...compiledImport()] } : { execArgv: compiledImport() }),
    env: { ...process.env, [ROLE_ENV]: 'ceiling' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.once('message', (message) => resolve(Number(message)));
      child.once('exit', (code) => reject(new Error(`ceiling server exited with ${code}`)));
    });
    // `taskset` execs node in place: the child's pid is the server's.
    const pid = child.pid!;
    const spec = (seconds: number, ratePerSecond?: number): PhaseSpec => ({
      kind: 'ceiling',
      seconds,
      host: '127.0.0.1',
      port,
      clients: Array.from({ length: clients }, () => ({ path: '/', headers: {} })),
      ...(ratePerSecond ? { ratePerSecond } : {}),
    });
    const run = async (label: string, phase: PhaseSpec): Promise<CeilingMeasured> => {
      const before = processUse(pid);
      const load = await gen.run(phase);
      const after = processUse(pid);
      const calls = Math.max(1, load.calls);
      return {
        label,
        load,
        rps: load.calls / load.seconds,
        cpuUsPerCall: ((after.ticks - before.ticks) * 10_000) / calls,
        switchesPerCall: (after.switches - before.switches) / calls,
      };
    };
    await gen.run(spec(WARMUP_SECONDS));
    const closed = await run('bare node:http ceiling, closed loop', spec(SECONDS));
    const openSwap = swapRate > 0 ? await run(`bare node:http ceiling, open loop at ${swapRate}/s`, spec(SECONDS, swapRate)) : undefined;
    const openSummary =
      summaryRate > 0 ? await run(`bare node:http ceiling, open loop at ${summaryRate}/s`, spec(SECONDS, summaryRate)) : undefined;
    return { closed, ...(openSwap ? { openSwap } : {}), ...(openSummary ? { openSummary } : {}) };
  } finally {
    child.kill();
  }
}

/** The ceiling's process: serves until its parent goes. */
function ceilingChild(): void {
  listen(bareCeiling).then(
    ({ base }) => process.send?.(Number(new URL(base).port)),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
  process.on('disconnect', () => process.exit(0));
}

async function main(): Promise<void> {
  // The house way of measuring: the service on core 0, its load on core 1 (see LoadGenerator).
  if (PIN) execFileSync('taskset', ['-a', '-cp', '0', String(process.pid)], { stdio: 'ignore' });
  const svc = await startTestService({ discardLogs: true });
  unmeter(svc.service.adapters.limiter);
  const gen = LoadGenerator.start();
  try {
    // Other work on the machine moves every figure here: say how busy it was.
    const loadBefore = loadavg()[0]!;
    const setupStarted = performance.now();
    // Five at a time: on a busy machine fifty sign-ins at once outlast the HTTP timeouts.
    const accounts: TradingAccount[] = [];
    for (let i = 0; i < CLIENTS; i += 5)
      accounts.push(...(await Promise.all(Array.from({ length: Math.min(5, CLIENTS - i) }, (_, j) => openAccount(svc, i + j)))));
    // Each path answers correctly once before it is loaded.
    const first = accounts[0]!;
    const swap = await rawRpc(
      svc.url,
      first.publicId,
      toolCall('trading_solana_aggregator_swap', { inputMint: USDC, outputMint: SOL, amount: SWAP_AMOUNT, idempotencyKey: randomUUID() }),
      bearer(first.tradeKey),
    );
    if (verdict('mcp-swap', swap.status, swap.text).ok !== true) throw new Error(`sanity swap: ${swap.text}`);
    console.log(
      `setup: ${CLIENTS} accounts (operator, agent, trade key, custodial wallet, faucet) in ${((performance.now() - setupStarted) / 1000).toFixed(1)} s`,
    );

    const spec = (kind: CallKind, seconds = SECONDS, rate?: number) => specOf(svc, kind, seconds, accounts, rate);
    const warmups: PhaseResult[] = [];
    warmups.push(await gen.run(spec('mcp-swap', WARMUP_SECONDS)), await gen.run(spec('mcp-summary', WARMUP_SECONDS)));
    const idleBefore = await idleCpu(IDLE_SECONDS);
    const readsBefore = await measure(svc, gen, 'MCP trading_portfolio_summary (baseline)', spec('mcp-summary'));
    const swaps = await heapSampled(
      HEAP_PROFILE,
      () => profiled(CPU_PROFILE, () => measure(svc, gen, 'MCP trading_solana_aggregator_swap', spec('mcp-swap')), 'the swap phase'),
      'the swap phase',
    );
    // The same swaps at a steady arrival rate below saturation (by default half the closed
    // loop's rate just measured): latency without the queue a closed loop builds.
    const swapRate = SWAP_RATE === 'half' ? Math.max(1, Math.round(swaps.rps / 2)) : Number(SWAP_RATE);
    const paced =
      swapRate > 0
        ? await profiled(
            OPEN_CPU_PROFILE,
            () => measure(svc, gen, `MCP trading_solana_aggregator_swap, open loop at ${swapRate}/s`, spec('mcp-swap', SECONDS, swapRate)),
            'the open-loop swap phase',
          )
        : undefined;
    const idleAfter = await idleCpu(IDLE_SECONDS);
    const readsAfter = await measure(svc, gen, 'MCP trading_portfolio_summary (after the swap phases)', spec('mcp-summary'));
    const summaryRate = SUMMARY_RATE === 'half' ? Math.max(1, Math.round(readsAfter.rps / 2)) : Number(SUMMARY_RATE);
    const pacedReads =
      summaryRate > 0
        ? await profiled(
            SUMMARY_OPEN_CPU_PROFILE,
            () =>
              measure(svc, gen, `MCP trading_portfolio_summary, open loop at ${summaryRate}/s`, spec('mcp-summary', SECONDS, summaryRate)),
            'the open-loop summary phase',
          )
        : undefined;
    let rest: Measured | undefined;
    if (WITH_REST) {
      warmups.push(await gen.run(spec('rest-swap', WARMUP_SECONDS)));
      rest = await measure(svc, gen, `REST POST /api/nest/trading/command "${REST_COMMAND}"`, spec('rest-swap'));
    }
    const ceiling = WITH_CEILING ? await measureCeiling(gen, accounts.length, swapRate, summaryRate) : undefined;

    const rows = [readsBefore, swaps, ...(paced ? [paced] : []), readsAfter, ...(pacedReads ? [pacedReads] : []), ...(rest ? [rest] : [])];
    const title = `${SECONDS} s each after a ${WARMUP_SECONDS} s warm-up, ${CLIENTS} clients each with its own agent, embedded profile: LMDB, answers after the disk flush`;
    console.log(`\n## Guarded swaps vs portfolio reads (${title})`);
    console.log('| phase | calls/s | p50 ms | p90 ms | p99 ms | max ms | errors |\n|---|---|---|---|---|---|---|');
    for (const m of rows) console.log(latencyRow(m));
    console.log('\n### Where the time goes (service process)');
    console.log(
      '| phase | CPU of one core (kernel) | CPU µs/call | LMDB write txns / context switches per call | GC pauses | loop delay p99 ms | store get / put / commit / find / durable per call | ms (mean) of a put or commit (to its commit) / of a durable wait (to the flush) | heap after, growth | live actors |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|');
    for (const m of rows) console.log(costRow(m));
    console.log('\n### CPU by thread (service process, share of one core, context switches per call)');
    for (const m of rows) console.log(`- ${m.label}: ${m.threads}`);
    console.log(
      `\nservice CPU at rest (no calls, ${IDLE_SECONDS} s): ${idleBefore.toFixed(1)}% of a core before the phases, ${idleAfter.toFixed(1)}% after the swap phases`,
    );
    console.log(
      `orders per account: ${readsBefore.ordersPerAccountAfter.toFixed(0)} during the baseline read, ${readsAfter.ordersPerAccountAfter.toFixed(0)} during the read after the swap phases`,
    );
    console.log(
      `swaps/s / reads/s: ${swaps.rps.toFixed(0)} / ${readsBefore.rps.toFixed(0)} = ${((swaps.rps / readsBefore.rps) * 100).toFixed(1)}% (a swap costs ${(readsBefore.rps / swaps.rps).toFixed(1)} reads)`,
    );
    const { latency } = swaps.load;
    console.log(
      `swap latency (MCP): p50 ${ms(latency.p50)} ms, p90 ${ms(latency.p90)} ms, p99 ${ms(latency.p99)} ms, max ${ms(latency.max)} ms, mean ${ms(latency.mean)} ms`,
    );
    console.log(
      `swap p99 < ${TARGET_P99_MS} ms at ${CLIENTS} clients (target): ${latency.p99 < TARGET_P99_MS ? 'MET' : 'MISSED'} (${ms(latency.p99)} ms)`,
    );
    // Little's law: a closed loop's mean latency is clients / throughput, whatever the path costs.
    console.log(
      `  a closed loop of ${CLIENTS} clients averages ${TARGET_P99_MS} ms only above ${((CLIENTS / TARGET_P99_MS) * 1000).toFixed(0)} swaps/s (Little's law: mean latency = clients / throughput)`,
    );
    for (const open of [paced, pacedReads])
      if (open)
        console.log(
          `${open.label}: p50 ${ms(open.load.latency.p50)} ms, p99 ${ms(open.load.latency.p99)} ms (target p99 < ${OPEN_TARGET_P99_MS} ms: ${open.load.latency.p99 < OPEN_TARGET_P99_MS ? 'MET' : 'MISSED'}), generator at most ${ms(open.load.sendLagMaxMs)} ms late, ${open.load.clientCpuPct.toFixed(0)}% of a core, ${open.load.connections} connections opened`,
        );
    if (ceiling) {
      // Ours over the ceiling at the same load: what our code adds, apart from what the machine charges per request.
      console.log('\n### Against a bare node:http server under the same load (same run)');
      console.log(
        '| load | ceiling calls/s | ceiling p99 ms | ceiling CPU µs/call (switches/call) | ours | ours / ceiling |\n|---|---|---|---|---|---|',
      );
      const pairs: Array<[string, CeilingMeasured, Measured | undefined]> = [
        ['closed loop, summary', ceiling.closed, readsAfter],
        ['closed loop, swap', ceiling.closed, swaps],
        [`open loop at ${swapRate}/s, swap`, ceiling.openSwap ?? ceiling.closed, ceiling.openSwap && paced],
        [`open loop at ${summaryRate}/s, summary`, ceiling.openSummary ?? ceiling.closed, ceiling.openSummary && pacedReads],
      ];
      for (const [load, bare, ours] of pairs)
        if (ours)
          console.log(
            `| ${load} | ${bare.rps.toFixed(0)} | ${ms(bare.load.latency.p99)} | ${bare.cpuUsPerCall.toFixed(0)} (${bare.switchesPerCall.toFixed(1)}) | ${ours.cpuUsPerCall.toFixed(0)} | ${(ours.cpuUsPerCall / bare.cpuUsPerCall).toFixed(2)}x |`,
          );
    }
    if (rest)
      console.log(
        `swap latency (REST): p50 ${ms(rest.load.latency.p50)} ms, p99 ${ms(rest.load.latency.p99)} ms; REST / MCP swaps/s: ${((rest.rps / swaps.rps) * 100).toFixed(1)}%`,
      );

    const warmupErrors = warmups.reduce((sum, w) => sum + w.errors, 0);
    const errors = rows.reduce((sum, m) => sum + m.load.errors, 0) + warmupErrors;
    console.log(`errors (non-success answers): ${errors} (warm-ups ${warmupErrors})`);
    for (const sample of [...warmups.flatMap((w) => w.errorSamples), ...rows.flatMap((m) => m.load.errorSamples)].slice(
      0,
      MAX_ERROR_SAMPLES,
    ))
      console.log(`  e.g. ${sample}`);
    const checks = [swaps, ...(paced ? [paced] : []), ...(rest ? [rest] : [])].map(ordersCheck);
    for (const check of checks) console.log(check.line);
    console.log(
      `load generator CPU during the swap phase: ${swaps.load.clientCpuPct.toFixed(0)}% of a core (another process${PIN ? ', pinned to core 1; the service to core 0' : ''})`,
    );
    console.log(
      `machine: ${cpus().length} cores, load average ${loadBefore.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end (above ${cpus().length}: other work competed for the CPU)`,
    );
    if (RESULT_PATH) {
      const ceilingFigures = (m: CeilingMeasured) => ({
        rps: m.rps,
        cpuUsPerCall: m.cpuUsPerCall,
        txnsPerCall: 0,
        switchesPerCall: m.switchesPerCall,
        durablePerCall: 0,
        gcPct: 0,
        p50: m.load.latency.p50,
        p99: m.load.latency.p99,
      });
      const figures = (m: Measured | undefined) =>
        m && {
          rps: m.rps,
          cpuUsPerCall: m.cpuUsPerCall,
          txnsPerCall: m.txnsPerCall,
          switchesPerCall: m.switchesPerCall,
          durablePerCall: m.perCall.durable,
          gcPct: m.gcPct,
          p50: m.load.latency.p50,
          p99: m.load.latency.p99,
        };
      const result: BenchResult = {
        summary: figures(readsBefore)!,
        swap: figures(swaps)!,
        ...(paced ? { openSwap: { ...figures(paced)!, rate: swapRate } } : {}),
        ...(pacedReads ? { openSummary: { ...figures(pacedReads)!, rate: summaryRate } } : {}),
        ...(ceiling ? { ceiling: ceilingFigures(ceiling.closed) } : {}),
        ...(ceiling?.openSwap ? { ceilingOpenSwap: { ...ceilingFigures(ceiling.openSwap), rate: swapRate } } : {}),
        ...(ceiling?.openSummary ? { ceilingOpenSummary: { ...ceilingFigures(ceiling.openSummary), rate: summaryRate } } : {}),
        idleCpuPct: idleAfter,
        loadAverage: loadavg()[0]!,
      };
      writeFileSync(RESULT_PATH, JSON.stringify(result));
    }
    if (errors > 0 || checks.some((check) => !check.ok)) process.exitCode = 1;
  } finally {
    gen.stop();
    await svc.stop();
  }
}

if (process.env[ROLE_ENV] === 'load') {
  loadChild();
} else if (process.env[ROLE_ENV] === 'ceiling') {
  ceilingChild();
} else {
  main().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}
