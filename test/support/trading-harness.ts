/**
 * The trading core assembled in memory for unit tests: real order actors (runtime on
 * the memory store), the real paper venue behind the real breaker, real positions and
 * events; wallets, configuration, kill switch and agent status are small fakes the test
 * steers.
 */
import nacl from 'tweetnacl';
import bs58 from 'bs58';
import pino from 'pino';
import { ManualClock } from './manual-clock.adapter.js';
import { InProcessEventBus } from '../../adapters/event-bus/in-process-event-bus.adapter.js';
import { MemoryStore } from './memory-store.adapter.js';
import { PAPER_COLLECTIONS } from '../../adapters/paper/paper-ledger.js';
import { PaperVenue } from '../../adapters/paper/paper-venue.adapter.js';
import { BreakerVenue } from '../../adapters/resilience/breaker-venue.adapter.js';
import { DAILY_VOLUME_COLLECTION, DailyVolume } from '../../agents/trading/daily-volume.js';
import { OrderQueries } from '../../agents/trading/order-queries.js';
import type { SubjectStatus, TradingSubject } from '../../agents/portfolio/portfolio.types.js';
import { TRADING_RECORD_COLLECTIONS } from '../../agents/portfolio/portfolio.records.js';
import { PositionsService } from '../../agents/portfolio/positions.service.js';
import { SafetyPath, type TradeRequest } from '../../agents/trading/safety-path.js';
import { defaultTradingConfig } from '../../agents/config/trading-config.rules.js';
import type { TradingConfig } from '../../agents/config/trading-config.types.js';
import { TradingEvents } from '../../agents/trading/trading-events.js';
import { DurablePublisher } from '../../src/runtime/durable-publisher.js';
import { TradingPipeline } from '../../agents/trading/trading-pipeline.js';
import type { WalletView } from '../../agents/wallets/wallet.types.js';
import { orderDefinition } from '../../machines/order.machine.js';
import type { BusEvent } from '../../kernel/ports/event-bus.port.js';
import type { OneOffJob } from '../../kernel/ports/scheduler.port.js';
import type { Chain, VenuePort } from '../../kernel/ports/venue.port.js';
import { ActorRuntime } from '../../src/runtime/actor-runtime.js';

export const SOL = 'So11111111111111111111111111111111111111112';
export const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
export const BONK = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
export const SUBJECT: TradingSubject = { type: 'agent', id: 'agt_1' };

/** Buy 1 SOL worth of BONK on Solana through REST, unless told otherwise. */
export const buyRequest = (overrides: Partial<TradeRequest> = {}): TradeRequest => ({
  subject: SUBJECT,
  channel: 'rest',
  chain: 'solana',
  side: 'buy',
  inputToken: 'SOL',
  outputToken: 'BONK',
  amount: { kind: 'whole', value: '1' },
  ...overrides,
});

export async function tradingHarness(
  options: {
    venue?: (paper: PaperVenue) => VenuePort;
    /** `delegate` (default): sends reserve the wallet's cap; `custodial`: paper swaps fill in one commit. */
    walletKind?: 'delegate' | 'custodial';
  } = {},
) {
  const clock = new ManualClock(Date.parse('2026-11-21T12:00:00Z'));
  const store = new MemoryStore(clock);
  const logger = pino({ level: 'silent' });
  const bus = new InProcessEventBus({ clock });
  const publisher = new DurablePublisher({ store, bus, logger });
  const runtime = new ActorRuntime({ store, clock, logger, publisher, maxLiveActors: 1000, idleMs: 60_000, maxConflictRetries: 5 });
  runtime.register(orderDefinition);
  await store.init([...TRADING_RECORD_COLLECTIONS, ...PAPER_COLLECTIONS, DAILY_VOLUME_COLLECTION]);
  await runtime.start();

  const paper = new PaperVenue({ store, clock, seed: 'test' });
  const inner = options.venue ? options.venue(paper) : paper;
  const venue = new BreakerVenue(inner, { threshold: 2, openMs: 60_000, timeoutMs: 5_000, clock });
  const keys = nacl.sign.keyPair();
  // A delegate wallet: the pipeline reserves (and gives back) spend on its cap, which `state.spend` counts.
  const wallet: WalletView = {
    walletId: 'wal_1',
    chain: 'solana',
    address: bs58.encode(keys.publicKey),
    custodial: true,
    ...(options.walletKind === 'custodial'
      ? { kind: 'custodial' as const }
      : { kind: 'delegate' as const, spendingCapUsd: 1e9, spentUsd: 0 }),
    isDefault: true,
    status: 'active',
    createdAt: new Date(clock.now()).toISOString(),
  };

  // What the tests steer.
  const state = {
    status: { subjectType: 'agent', subjectId: SUBJECT.id, name: 'A', status: 'active', tradingEnabled: true } as SubjectStatus,
    config: defaultTradingConfig(new Date(clock.now()).toISOString()) as TradingConfig,
    killed: new Set<Chain>(),
    hasWallet: true,
    breaker: undefined as 'closed' | 'open' | 'half_open' | undefined,
    /** USD reserved and given back on the delegate cap. */
    spend: { reserved: 0, released: 0 },
  };
  const jobs: OneOffJob[] = [];
  const cancelled: string[] = [];
  const events: BusEvent[] = [];
  await bus.subscribe(`agent:${SUBJECT.id}`, (event) => events.push(event));

  const tradingEvents = new TradingEvents(publisher);
  const wallets = {
    signingWallet: async () => (state.hasWallet ? wallet : null),
    signer: async () => ({
      walletId: wallet.walletId,
      chain: 'solana' as const,
      address: wallet.address,
      withSecretKey: <T>(use: (key: Uint8Array) => Promise<T>) => use(keys.secretKey),
    }),
    reserveSpend: async (_subject: unknown, _walletId: string, usd: number) => {
      state.spend.reserved += usd;
    },
    releaseSpend: async (_subject: unknown, _walletId: string, usd: number) => {
      state.spend.released += usd;
    },
  };
  const status = { agentStatus: async () => state.status };
  const config = { get: async () => state.config };
  const safety = new SafetyPath({
    status,
    config,
    killSwitch: { isActive: async (chain: Chain) => state.killed.has(chain), active: async () => [...state.killed] },
    wallets,
    venue,
    breakerOf: () => ({ provider: 'paper', state: state.breaker ?? venue.breakerState() }),
    events: tradingEvents,
    clock,
  });
  const positions = new PositionsService({ store, clock, events: tradingEvents });
  const orders = runtime.collection(orderDefinition);
  let nextId = 0;
  const pipeline = new TradingPipeline({
    safety,
    orders,
    venue,
    wallets,
    positions,
    volume: new DailyVolume(store),
    scheduler: { scheduleOnce: async (job) => void jobs.push(job), cancel: async (id) => void cancelled.push(id) },
    config,
    clock,
    newOrderId: () => `ord_${++nextId}`,
  });
  const fund = (token: string, amount: string) => paper.credit('solana', wallet.address, token, amount);
  return {
    clock,
    store,
    runtime,
    paper,
    venue,
    wallet,
    state,
    jobs,
    cancelled,
    events,
    safety,
    pipeline,
    positions,
    queries: new OrderQueries(orders, clock),
    fund,
    status,
  };
}

export type TradingHarness = Awaited<ReturnType<typeof tradingHarness>>;

/** Counts the commits of the harness's store that lost a compare-and-set (VERSION_CONFLICT). */
export function countConflicts(h: TradingHarness): { conflicts: number } {
  const counted = { conflicts: 0 };
  const commit = h.store.commit.bind(h.store);
  h.store.commit = async (batch) => {
    try {
      return await commit(batch);
    } catch (error) {
      if ((error as { code?: string }).code === 'VERSION_CONFLICT') counted.conflicts++;
      throw error;
    }
  };
  return counted;
}

/** Records every write of the harness's store, as `put <collection>` or `commit <a> + <b> ...`. */
export function recordWrites(h: TradingHarness): string[] {
  const writes: string[] = [];
  const { put, commit } = { put: h.store.put.bind(h.store), commit: h.store.commit.bind(h.store) };
  h.store.put = (async (...args: Parameters<typeof put>) => {
    writes.push(`put ${args[0]}`);
    return put(...args);
  }) as typeof put;
  h.store.commit = async (batch) => {
    writes.push(`commit ${batch.map((w) => w.collection).join(' + ')}`);
    return commit(batch);
  };
  return writes;
}

/**
 * The venue with some members replaced (an `undefined` one hides the venue's own: a venue
 * without `planFill`); every other member is the venue's own, bound to it.
 */
export function overridingVenue(inner: VenuePort, members: { [K in keyof VenuePort]?: VenuePort[K] | undefined }): VenuePort {
  return new Proxy(inner, {
    get(target, property, receiver) {
      if (Object.hasOwn(members, property)) return members[property as keyof VenuePort];
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
