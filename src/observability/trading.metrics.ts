/**
 * Trading figures of `/metrics`: orders by status, venue swap latency, risk refusals by
 * check and the state of every provider's circuit breaker. Labels are bounded sets (order
 * statuses, configured venues and chains, the safety path's check names, providers); never
 * an agent, user or order id.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { BusEventInput } from '../../kernel/ports/event-bus.port.js';
import type { BreakerReadout } from '../../kernel/ports/venue.port.js';

/** How a guarded `execute` ended: the venue's answer, or why there was none. */
export type SwapOutcome = 'filled' | 'submitted' | 'failed' | 'circuit_open' | 'error';

/** `circuit_breaker_state` values: ordered so that a bigger number is worse. */
const BREAKER_STATE_VALUE: Readonly<Record<BreakerReadout['state'], number>> = Object.freeze({ closed: 0, half_open: 1, open: 2 });

// A paper fill takes microseconds; a live one waits for a confirmation (seconds, up to the 90 s execute budget).
const SWAP_BUCKETS = [0.001, 0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 90];

/** Label sets are bounded, so each child is made once (as `Metrics` does for HTTP). */
class Children<T> {
  private readonly made = new Map<string, T>();
  constructor(private readonly make: (values: string[]) => T) {}
  of(...values: string[]): T {
    const key = values.join('\u0000');
    let child = this.made.get(key);
    if (!child) {
      child = this.make(values);
      this.made.set(key, child);
    }
    return child;
  }
}

export class TradingMetrics {
  private readonly orders: Children<Counter.Internal>;
  private readonly refusals: Children<Counter.Internal>;
  private readonly swaps: Children<Histogram.Internal<'venue' | 'chain' | 'outcome'>>;
  private readonly breakerSources: Array<() => BreakerReadout[]> = [];
  // Withdrawals: when the service gains them, `withdrawals_total{status,chain}` belongs here,
  // fed from their `withdrawal.*` events in `observeEvent` like orders. Not defined before then.

  constructor(registry: Registry, prefix = '') {
    const registers = [registry];
    const orders = new Counter({
      name: `${prefix}orders_total`,
      help: 'Order transitions into each status (order.created / order.updated), by venue and chain',
      labelNames: ['status', 'venue', 'chain'],
      registers,
    });
    this.orders = new Children(([status, venue, chain]) => orders.labels({ status, venue, chain }));
    const refusals = new Counter({
      name: `${prefix}risk_refusals_total`,
      help: 'Trades refused by the safety path (risk.blocked), by the check that refused them',
      labelNames: ['check'],
      registers,
    });
    this.refusals = new Children(([check]) => refusals.labels({ check }));
    const swaps = new Histogram({
      name: `${prefix}swap_duration_seconds`,
      help: 'Guarded venue swaps (breaker and timeout included) from request to answer, by venue, chain and outcome',
      labelNames: ['venue', 'chain', 'outcome'],
      buckets: SWAP_BUCKETS,
      registers,
    });
    this.swaps = new Children(([venue, chain, outcome]) => swaps.labels({ venue, chain, outcome }));
    const readBreakers = (): BreakerReadout[] => this.readBreakers();
    new Gauge({
      name: `${prefix}circuit_breaker_state`,
      help: 'Circuit breaker of each provider: 0 closed, 1 half-open, 2 open',
      labelNames: ['provider'],
      registers,
      // Read at scrape time: a breaker moves on its own clock, nothing pushes its changes.
      collect() {
        for (const { provider, state } of readBreakers()) this.labels({ provider }).set(BREAKER_STATE_VALUE[state]);
      },
    });
  }

  /**
   * Counts what a durable trading event says: an order's transition, a refusal. Other
   * events are ignored. Order and risk events travel on one stream each, so each is seen once.
   */
  observeEvent(event: BusEventInput): void {
    if (event.type === 'order.created' || event.type === 'order.updated') {
      const order = event.data.order as { status?: unknown; venue?: unknown; chain?: unknown } | undefined;
      if (order) this.orders.of(text(order.status), text(order.venue), text(order.chain)).inc();
    } else if (event.type === 'risk.blocked') {
      this.refusals.of(text(event.data.check)).inc();
    }
  }

  /** Records one guarded venue swap. */
  observeSwap(venue: string, chain: string, outcome: SwapOutcome, seconds: number): void {
    this.swaps.of(venue, chain, outcome).observe(seconds);
  }

  /** Adds where some providers' breakers are read on every scrape (one readout per provider): the venues', the LLM's. */
  addBreakerSource(source: () => BreakerReadout[]): void {
    this.breakerSources.push(source);
  }

  private readBreakers(): BreakerReadout[] {
    return this.breakerSources.flatMap((source) => {
      try {
        return source();
      } catch {
        // A failing source must not break the whole scrape; its gauges keep their last values.
        return [];
      }
    });
  }
}

/** A label value from event data: our own events carry strings; anything else is `unknown`, not a new series per value. */
function text(value: unknown): string {
  return typeof value === 'string' && value !== '' ? value : 'unknown';
}
