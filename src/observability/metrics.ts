/**
 * Prometheus metrics of one service instance. Each `Metrics` owns its registry (never the
 * global one) so tests and several apps in one process do not collide.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { DcaTickMetrics } from './dca-tick.metrics.js';
import { TradingMetrics } from './trading.metrics.js';
import { WidgetMetrics } from './widget.metrics.js';

/** What the runtime reports at scrape time. */
export interface ActorStats {
  live: number;
  /** Passivations since start (cumulative). */
  passivations: number;
  mailboxDepth: number;
}

export interface MetricsOptions {
  /** Node process metrics (CPU, heap, event loop lag); on by default. */
  defaultMetrics?: boolean;
  /** Prefix of every metric name, e.g. `agent_runtime_`. */
  prefix?: string;
}

/** Route label of requests that matched no route (keeps label cardinality bounded). */
export const UNMATCHED_ROUTE = 'unmatched';
/** Route label of requests past `MAX_HTTP_SERIES`. */
const OTHER_ROUTE = 'other';
/**
 * Distinct method/route/status sets counted before new ones fall under `other`: the route
 * templates are a bounded set, this bounds them should a template ever carry a value.
 */
const MAX_HTTP_SERIES = 1_000;

const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const STORE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

export class Metrics {
  readonly registry = new Registry();
  private readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  private readonly httpDuration: Histogram<'method' | 'route'>;
  private readonly storeDuration: Histogram<'operation'>;
  // Labelled children, made once per label set: `observe(labels, v)` hashes the labels on
  // every call. Label sets are bounded (route templates, store operations).
  private readonly httpChildren = new Map<string, { count: Counter.Internal; duration: Histogram.Internal<'method' | 'route'> }>();
  private readonly storeChildren = new Map<string, Histogram.Internal<'operation'>>();
  private actorStats: (() => ActorStats) | undefined;
  /** Orders, swaps, risk refusals and circuit breakers (fed by the composition root). */
  readonly trading: TradingMetrics;
  /** DCA ticks: the `DcaTickObserver` the strategies service reports to. */
  readonly dcaTicks: DcaTickMetrics;
  /** Chat widget sessions and client-side events. */
  readonly widget: WidgetMetrics;

  constructor(options: MetricsOptions = {}) {
    const prefix = options.prefix ?? '';
    const registers = [this.registry];
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix });

    this.httpRequests = new Counter({
      name: `${prefix}http_requests_total`,
      help: 'HTTP requests by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.httpDuration = new Histogram({
      name: `${prefix}http_request_duration_seconds`,
      // Not by status: eleven buckets per status of every route made the scrape hundreds of KB.
      help: 'HTTP request latency by method and route template',
      labelNames: ['method', 'route'],
      buckets: HTTP_BUCKETS,
      registers,
    });
    this.storeDuration = new Histogram({
      name: `${prefix}store_operation_duration_seconds`,
      help: 'Store port call latency by operation',
      labelNames: ['operation'],
      buckets: STORE_BUCKETS,
      registers,
    });

    // Gauges read the runtime at scrape time instead of being pushed on every change.
    const gauge = (name: string, help: string, pick: (s: ActorStats) => number): void => {
      const read = (): ActorStats | undefined => this.readActorStats();
      new Gauge({
        name: `${prefix}${name}`,
        help,
        registers,
        collect() {
          const stats = read();
          if (stats) this.set(pick(stats));
        },
      });
    };
    gauge('runtime_actors_live', 'Actors resident in memory', (s) => s.live);
    gauge(
      'runtime_actor_passivations',
      'Actors dropped from memory since start (they stay persisted and rehydrate on demand)',
      (s) => s.passivations,
    );
    gauge('runtime_mailbox_depth', 'Events waiting in actor mailboxes', (s) => s.mailboxDepth);

    this.trading = new TradingMetrics(this.registry, prefix);
    this.dcaTicks = new DcaTickMetrics(this.registry, prefix);
    this.widget = new WidgetMetrics(this.registry, prefix);
  }

  /** Content type of `render()` (Prometheus text exposition format). */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Records one finished HTTP request; `route` is the matched template, never the raw URL. */
  observeHttp(method: string, route: string, status: number, seconds: number): void {
    let key = `${method} ${route} ${status}`;
    if (!this.httpChildren.has(key) && this.httpChildren.size >= MAX_HTTP_SERIES) {
      route = OTHER_ROUTE;
      key = `${method} ${route} ${status}`;
    }
    let children = this.httpChildren.get(key);
    if (!children) {
      children = {
        count: this.httpRequests.labels({ method, route, status: String(status) }),
        duration: this.httpDuration.labels({ method, route }),
      };
      this.httpChildren.set(key, children);
    }
    children.count.inc();
    children.duration.observe(seconds);
  }

  /** Records one store call (`get`, `put`, `find`, ...). */
  observeStore(operation: string, seconds: number): void {
    let child = this.storeChildren.get(operation);
    if (!child) {
      child = this.storeDuration.labels({ operation });
      this.storeChildren.set(operation, child);
    }
    child.observe(seconds);
  }

  /** Registers the runtime's stats callback, read on every scrape. */
  setActorStatsSource(source: () => ActorStats): void {
    this.actorStats = source;
  }

  /** The Prometheus text of every metric in this registry. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  private readActorStats(): ActorStats | undefined {
    try {
      return this.actorStats?.();
    } catch {
      // A failing source must not break the whole scrape; the gauges keep their last value.
      return undefined;
    }
  }
}
