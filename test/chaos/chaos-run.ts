/**
 * The chaos run, start to verdict: the cluster, the workload, the chaos loop (SIGKILL and
 * restart of a random process at random intervals, one Redis pause, one store stall), then the
 * quiet end (every key retried to a final answer, strategies paused, readers caught up), the
 * stored state read back, the invariants checked and the figures printed.
 */
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { SystemClock } from '../../adapters/clock/system-clock.adapter.js';
import { LmdbStore } from '../../adapters/lmdb/lmdb-store.adapter.js';
import {
  BALANCES_COLLECTION,
  FILLS_COLLECTION,
  PAPER_COLLECTIONS,
  type BalanceDoc,
  type FillDoc,
  type TransferDoc,
} from '../../adapters/paper/paper-ledger.js';
import type { StoredDocument } from '../../kernel/ports/store.port.js';
import type { DcaStrategyContext } from '../../machines/dca-strategy.machine.js';
import type { OrderContext } from '../../machines/order-context.types.js';
import type { WithdrawalContext } from '../../machines/withdrawal.machine.js';
import { opsActors, percentile } from '../support/dca-accounts.js';
import { startSseReader, type SseReader } from './chaos-http.js';
import { CLUSTER_PREFIX, ChaosCluster } from './chaos-cluster.js';
import { checkInvariants, type ChaosRecords, type InvariantResult, type SseClientRecord } from './chaos-invariants.js';
import { agentLoop, createStrategies, pauseStrategies, setUpOperator, type ChaosAgent, type WorkloadRecords } from './chaos-workload.js';

/** The size of a run: what the 2-core machine is asked to carry. */
export interface ChaosScale {
  /** How long the workload runs under chaos. */
  durationMs: number;
  processes: number;
  operators: number;
  agentsPerOperator: number;
  /** Pause of each agent between two requests (jittered ×0.5–1.5). */
  swapEveryMs: number;
  withdrawEveryMs: number;
  /** DCA strategies on each agent, and their interval (a divisor of 60 seconds, or 60). */
  strategiesPerAgent: number;
  dcaEverySeconds: number;
  sseClients: number;
  /** How long an SSE client keeps a connection before it drops it on purpose. */
  sseHoldMs: [number, number];
  /** Time between two kills, drawn in this range. */
  killEveryMs: [number, number];
  /** How long a killed process stays down before it is started again. */
  downMs: number;
  redisPauseMs: number;
  storeStallMs: number;
}

/**
 * Both sizes side by side, one field a line: [the five-minute run of `npm run chaos`, the
 * 30-second run inside `npm test`, which keeps every fault and every invariant with less of
 * everything else]. One table, so a field added to `ChaosScale` is sized for both at once.
 */
const SIZES: { [K in keyof ChaosScale]: [full: ChaosScale[K], short: ChaosScale[K]] } = {
  durationMs: [300_000, 30_000],
  processes: [3, 3],
  operators: [10, 3],
  agentsPerOperator: [4, 2],
  swapEveryMs: [2_000, 1_500],
  withdrawEveryMs: [6_000, 4_000],
  strategiesPerAgent: [5, 2],
  dcaEverySeconds: [60, 2],
  sseClients: [20, 4],
  sseHoldMs: [
    [2_000, 8_000],
    [1_500, 4_000],
  ],
  killEveryMs: [
    [20_000, 40_000],
    [8_000, 11_000],
  ],
  downMs: [1_000, 500],
  redisPauseMs: [2_000, 2_000],
  storeStallMs: [2_000, 2_000],
};

const sizeAt = (column: 0 | 1): ChaosScale =>
  Object.fromEntries(Object.entries(SIZES).map(([field, sizes]) => [field, sizes[column]])) as unknown as ChaosScale;

/** The five-minute run of `npm run chaos`. */
export const FULL_SCALE: ChaosScale = sizeAt(0);
/** The 30-second run inside `npm test`. */
export const SHORT_SCALE: ChaosScale = sizeAt(1);

export interface ChaosReport {
  results: InvariantResult[];
  lines: string[];
  ok: boolean;
}

const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
/** After the chaos: how long a client keeps retrying a key that has no final answer yet. */
const DRAIN_MS = 60_000;

export async function runChaos(scale: ChaosScale, log: (line: string) => void = console.log): Promise<ChaosReport> {
  const started = Date.now();
  const agentsTotal = scale.operators * scale.agentsPerOperator;
  const describeScale = `${scale.processes} processes; ${agentsTotal} agents (${scale.operators} operators × ${scale.agentsPerOperator}, ${scale.operators} withdrawing); a request per agent every ~${scale.swapEveryMs} ms; ${agentsTotal * scale.strategiesPerAgent} DCA strategies every ${scale.dcaEverySeconds} s; ${scale.sseClients} SSE clients; ${scale.durationMs / 1000} s of chaos (a kill every ${scale.killEveryMs[0] / 1000}–${scale.killEveryMs[1] / 1000} s, Redis paused ${scale.redisPauseMs / 1000} s, store stalled ${scale.storeStallMs / 1000} s)`;
  log(`[chaos] scale: ${describeScale}`);
  // Strategies faster than the service's one-minute floor, for the short run: the setting the DCA tests use.
  const cluster = await ChaosCluster.start(scale.processes, { DCA_MIN_INTERVAL_SECONDS: String(Math.min(60, scale.dcaEverySeconds)) });
  log(`[chaos] cluster up in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  try {
    const base = cluster.proxy.url;
    const agents = (await Promise.all(Array.from({ length: scale.operators }, () => setUpOperator(base, scale.agentsPerOperator)))).flat();
    const strategyIds = await createStrategies(agents, scale.strategiesPerAgent, scale.dcaEverySeconds);
    const setUpMs = Date.now() - started;
    log(`[chaos] set up in ${(setUpMs / 1000).toFixed(1)} s: ${agents.length} agents, ${strategyIds.length} strategies`);

    // --- workload and chaos ---
    const records: WorkloadRecords = { answers: [], swaps: [], withdrawals: [] };
    const chaosStart = Date.now();
    const chaosEnd = chaosStart + scale.durationMs;
    const running = () => Date.now() < chaosEnd;
    const deadline = () => Math.max(chaosEnd, Date.now()) + DRAIN_MS;
    const readers: SseReader[] = agents
      .slice(0, scale.sseClients)
      .map((agent) =>
        startSseReader(records.answers, base, { agentId: agent.agentId, publicId: agent.publicId, secret: agent.readKey }, scale.sseHoldMs),
      );
    const loops = agents.map((agent) =>
      agentLoop(base, agent, records, { swapEveryMs: scale.swapEveryMs, withdrawEveryMs: scale.withdrawEveryMs, running, deadline }),
    );
    await chaosLoop(cluster, scale, chaosStart, chaosEnd, log);
    await Promise.all(loops);
    const workloadEnd = Date.now();

    // --- the quiet end ---
    await pauseStrategies(agents.filter((_, i) => i < agents.length));
    await settle(cluster, base);
    for (const reader of readers) reader.stop();
    await Promise.all(readers.map((r) => r.done));
    // Each resuming client once more from its last id, until it has the last event its stream holds.
    const redis = new Redis(cluster.redis.url);
    let sse: SseClientRecord[];
    try {
      sse = await Promise.all(
        readers.map(async (reader) => {
          let reference = await streamIds(redis, reader.agentId);
          for (let round = 0; round < 3; round++) {
            await reader.catchUp(reference.at(-1) ?? 0, 60_000);
            const again = await streamIds(redis, reader.agentId);
            if (again.length === reference.length) break;
            reference = again;
          }
          return { agentId: reader.agentId, received: reader.received, connections: reader.connections, reference };
        }),
      );
    } finally {
      redis.disconnect();
    }

    // --- the stored state ---
    const url = cluster.proxy.url;
    const [orders, withdrawals, strategies] = await Promise.all([
      opsActors<OrderContext>(url, cluster.opsToken, 'order'),
      opsActors<WithdrawalContext>(url, cluster.opsToken, 'withdrawal'),
      opsActors<DcaStrategyContext>(url, cluster.opsToken, 'dca-strategy'),
    ]);
    await cluster.stop();
    const ledger = await readLedger(cluster.dataDir, agents);

    const chaosRecords: ChaosRecords = {
      answers: records.answers,
      swaps: records.swaps,
      withdrawals: records.withdrawals,
      orders: orders.map(({ context: o }) => ({
        orderId: o.orderId,
        agentId: o.subjectId,
        channel: o.channel,
        status: o.status,
        walletAddress: o.walletAddress,
        inputMint: o.inputMint,
        outputMint: o.outputMint,
        amountIn: o.amountIn,
        createdAt: o.createdAt,
        ...(o.filledOut === undefined ? {} : { filledOut: o.filledOut }),
        ...(o.strategyId === undefined ? {} : { strategyId: o.strategyId }),
        ...(o.tickDueAt === undefined ? {} : { tickDueAt: o.tickDueAt }),
      })),
      storedWithdrawals: withdrawals.map(({ context: w }) => ({
        withdrawalId: w.withdrawalId,
        agentId: w.subjectId,
        status: w.status,
        from: w.from,
        token: w.token,
        amount: w.amount,
        ...(w.txSignature ? { txSignature: w.txSignature } : {}),
      })),
      ...ledger,
      strategies: strategies.map(({ id, context: s }) => ({
        strategyId: id,
        intervalMs: scale.dcaEverySeconds * 1000,
        buys: s.buys,
        failures: s.failures,
        skipped: s.skipped,
        inFlight: s.inFlight.length,
      })),
      sse,
      faults: cluster.faults,
    };
    const results = checkInvariants(chaosRecords);
    const lines = figures(chaosRecords, results, {
      describeScale,
      chaosMs: workloadEnd - chaosStart,
      kills: cluster.kills,
      cut: cluster.proxy.cut,
    });
    for (const line of lines) log(line);
    return { results, lines, ok: results.every((r) => r.violations.length === 0) };
  } finally {
    await cluster.destroy();
  }
}

/**
 * Kills at random intervals, one Redis pause at about a third of the run, one store stall at
 * about two thirds. Each fault starts on time whatever the others do (a restart takes seconds on
 * a loaded machine); a kill picks a process that serves, never the last one serving.
 */
async function chaosLoop(cluster: ChaosCluster, scale: ChaosScale, start: number, end: number, log: (line: string) => void): Promise<void> {
  const between = ([low, high]: [number, number]) => low + Math.random() * (high - low);
  const kill = () => {
    const up = Array.from({ length: scale.processes }, (_, i) => i).filter((i) => !cluster.down.has(i));
    if (up.length < 2) return { what: 'no kill (only one process serving)', done: Promise.resolve() };
    const i = up[Math.floor(Math.random() * up.length)]!;
    return { what: `process ${i} SIGKILLed, restarted`, done: cluster.killAndRestart(i, scale.downMs) };
  };
  const faults: Array<{ at: number; run: () => { what: string; done: Promise<void> } }> = [
    {
      at: start + scale.durationMs * 0.35,
      run: () => ({ what: `Redis paused ${scale.redisPauseMs} ms`, done: cluster.pauseRedis(scale.redisPauseMs) }),
    },
    {
      at: start + scale.durationMs * 0.7,
      run: () => ({ what: `store stalled ${scale.storeStallMs} ms`, done: cluster.stallStore(scale.storeStallMs) }),
    },
  ];
  for (let at = start + between(scale.killEveryMs); at < end - 2_000; at += between(scale.killEveryMs)) faults.push({ at, run: kill });
  faults.sort((a, b) => a.at - b.at);
  const running: Promise<void>[] = [];
  for (const fault of faults) {
    const wait = fault.at - Date.now();
    if (wait > 0) await sleep(wait);
    const t = Date.now();
    const { what, done } = fault.run();
    running.push(done.then(() => log(`[chaos] t+${((t - start) / 1000).toFixed(1)} s: ${what} (over after ${Date.now() - t} ms)`)));
  }
  const rest = end - Date.now();
  if (rest > 0) await sleep(rest);
  await Promise.all(running);
}

/** Waits until no order is between submission and its end (the last ticks and swaps settled). */
async function settle(cluster: ChaosCluster, url: string): Promise<void> {
  const since = Date.now();
  for (let stable = 0, last = -1; stable < 3; await sleep(500)) {
    const orders = await opsActors<OrderContext>(url, cluster.opsToken, 'order');
    const moving = orders.some((o) => ['submitting', 'submitted', 'approved'].includes(o.context.status));
    stable = !moving && orders.length === last ? stable + 1 : 0;
    last = orders.length;
    if (Date.now() - since > 60_000) throw new Error(`orders still moving a minute after the workload stopped (${orders.length})`);
  }
}

/**
 * Every event id an agent's stream holds, from the bus's own log in Redis (`<seq>-0` entries of
 * `…bus:{agent:…<agentId>}:log`; this Redis is the run's own, so a pattern lookup is fine).
 */
async function streamIds(redis: Redis, agentId: string): Promise<number[]> {
  const keys = await redis.keys(`${CLUSTER_PREFIX}:bus:{agent:*${agentId}}:log`);
  if (keys.length !== 1) throw new Error(`the event log of agent ${agentId}: ${keys.length} keys`);
  const entries = await redis.xrange(keys[0]!, '-', '+');
  return entries.map(([id]) => Number(id.split('-')[0]));
}

/** Fills, transfers and the agents' balances, read from the stopped cluster's store. */
async function readLedger(dataDir: string, agents: ChaosAgent[]): Promise<Pick<ChaosRecords, 'fills' | 'transfers' | 'wallets'>> {
  const store = new LmdbStore({ path: join(dataDir, 'store'), clock: new SystemClock(), sweepIntervalMs: 3_600_000 });
  try {
    await store.init(PAPER_COLLECTIONS);
    const fills = await everything<FillDoc>(store, FILLS_COLLECTION);
    const transfers = await everything<TransferDoc>(store, 'paper.transfers');
    const wallets = await Promise.all(
      agents.map(async (agent) => ({
        address: agent.address,
        funded: agent.funded,
        balances: (await store.get<BalanceDoc>(BALANCES_COLLECTION, `solana:${agent.address}`))?.data.balances ?? {},
      })),
    );
    return {
      fills: fills.map(({ data: f }) => ({
        orderId: f.clientOrderId,
        address: f.address,
        inputMint: f.inputMint,
        outputMint: f.outputMint,
        amountIn: f.amountIn,
        status: f.outcome.status,
        ...('filledOut' in f.outcome && f.outcome.filledOut !== undefined ? { filledOut: f.outcome.filledOut } : {}),
      })),
      transfers: transfers.map(({ id, data: t }) => ({ txSignature: id, from: t.from, to: t.to, token: t.token, amount: t.amount })),
      wallets,
    };
  } finally {
    await store.close();
  }
}

async function everything<T>(store: LmdbStore, collection: string): Promise<StoredDocument<T>[]> {
  const out: StoredDocument<T>[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list<T>(collection, { limit: 1000, ...(cursor ? { cursor } : {}) });
    out.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

function figures(
  records: ChaosRecords,
  results: InvariantResult[],
  run: { describeScale: string; chaosMs: number; kills: number; cut: number },
): string[] {
  const seconds = run.chaosMs / 1000;
  const money = records.answers.filter((a) => a.via !== 'sse');
  const timeouts = records.answers.filter((a) => a.status === 'timeout').length;
  const ok = money.filter((a) => typeof a.status === 'number' && a.status < 300);
  const latencies = ok.map((a) => a.at - a.sentAt);
  const byStatus = new Map<string, number>();
  for (const a of records.answers) byStatus.set(`${a.via} ${a.status}`, (byStatus.get(`${a.via} ${a.status}`) ?? 0) + 1);
  const acked = records.swaps.filter((s) => s.ackedId).length + records.withdrawals.filter((w) => w.ackedId).length;
  const usdcOut = records.transfers.filter((t) => t.token === USDC_MINT).length;
  return [
    `[chaos] scale: ${run.describeScale}`,
    `[chaos] ${seconds.toFixed(1)} s under chaos: ${run.kills} kills, ${records.faults.filter((f) => f.kind !== 'kill').length} other faults; the balancer cut ${run.cut} exchanges`,
    `[chaos] throughput: ${(money.length / seconds).toFixed(1)} requests/s (${(ok.length / seconds).toFixed(1)} 2xx/s), ${(acked / seconds).toFixed(1)} acknowledged swaps+withdrawals/s; latency of 2xx p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms`,
    `[chaos] requests: ${records.swaps.length} swap keys (${records.swaps.filter((s) => s.ackedId).length} acknowledged), ${records.withdrawals.length} withdrawal keys (${records.withdrawals.filter((w) => w.ackedId).length} acknowledged, ${usdcOut} transfers); ${records.orders.length} orders stored, ${records.orders.filter((o) => o.strategyId).length} of DCA ticks`,
    `[chaos] requests the clients gave up on after 60 s without an answer: ${timeouts}`,
    `[chaos] answers: ${[...byStatus]
      .sort()
      .map(([k, n]) => `${k}: ${n}`)
      .join(', ')}`,
    `[chaos] SSE: ${records.sse.reduce((n, c) => n + c.connections, 0)} connections, ${records.sse.reduce((n, c) => n + c.received.length, 0)} events received of ${records.sse.reduce((n, c) => n + c.reference.length, 0)} in the streams`,
    ...results.map(
      (r) =>
        `[chaos] ${r.violations.length === 0 ? 'ok  ' : 'FAIL'} ${r.name}: ${r.checked} checked, ${r.violations.length} violations${r.violations.length ? `\n    ${r.violations.join('\n    ')}` : ''}`,
    ),
  ];
}
