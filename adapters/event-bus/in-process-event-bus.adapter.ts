import { AppError } from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import {
  DEFAULT_RETENTION,
  type BusEvent,
  type BusEventHandler,
  type BusEventInput,
  type EventBusPort,
  type RetentionPolicy,
  type SubscribeOptions,
  type Subscription,
} from '../../kernel/ports/event-bus.port.js';
import {
  checkRetention,
  invokeHandler,
  normalizeAfterId,
  toBusEvent,
  toEventBody,
  type EventBusLogger,
} from '../shared/event-bus-helpers.js';

const DEFAULT_MAX_RETAINED = 20_000;

export interface InProcessEventBusOptions {
  clock: ClockPort;
  retention?: RetentionPolicy;
  /**
   * Most events kept per stream, whatever their age (at least `retention.minCount`): this
   * bus holds its replay buffer on the heap, so an agent trading all day must not grow it
   * without bound. Default 20,000 (about a day at one event every 4 seconds).
   */
  maxRetained?: number;
  /**
   * Each stream's ids start right after this (default 0). This bus keeps nothing on disk,
   * so the service passes its start time in microseconds: ids then keep growing across
   * restarts, and a client reconnecting with an id from before one gets what followed.
   */
  firstIdAfter?: number;
  logger?: EventBusLogger;
}

interface LocalSubscriber {
  handler: BusEventHandler;
  /** Highest id handed to this subscriber (or queued for it): later copies are dropped. */
  lastId: number;
  queue: BusEvent[];
  draining: boolean;
  active: boolean;
}

interface StreamState {
  seq: number;
  /** Retained events, oldest first. */
  retained: BusEvent[];
  /**
   * Made at the first subscription: most streams (one per agent) never have a listener, and
   * an empty Set is some 150 bytes of the ~780 a stream with one retained event holds.
   */
  subscribers?: Set<LocalSubscriber>;
}

/**
 * The embedded bus: one process, everything on the heap. Delivery is synchronous inside
 * `publish`, through a queue per subscriber so that a handler which publishes (re-entrancy)
 * never makes another subscriber see a later event before an earlier one.
 */
export class InProcessEventBus implements EventBusPort {
  private readonly clock: ClockPort;
  private readonly retention: RetentionPolicy;
  private readonly maxRetained: number;
  private readonly logger: EventBusLogger | undefined;
  private readonly firstIdAfter: number;
  private readonly streams = new Map<string, StreamState>();
  private closed = false;

  constructor(options: InProcessEventBusOptions) {
    this.clock = options.clock;
    this.retention = checkRetention(options.retention ?? DEFAULT_RETENTION);
    this.maxRetained = Math.max(this.retention.minCount, options.maxRetained ?? DEFAULT_MAX_RETAINED);
    this.logger = options.logger;
    this.firstIdAfter = normalizeAfterId(options.firstIdAfter ?? 0);
  }

  async publish(stream: string, input: BusEventInput): Promise<BusEvent> {
    this.assertOpen();
    const body = toEventBody(stream, input, this.clock.now());
    const state = this.state(stream);
    state.seq += 1;
    const event = toBusEvent(stream, state.seq, body);
    state.retained.push(event);
    this.trim(state);
    if (!state.subscribers || state.subscribers.size === 0) return event;
    // Queue for everyone first, then drain: see the class comment on re-entrancy.
    const targets = [...state.subscribers];
    for (const sub of targets) enqueue(sub, event);
    for (const sub of targets) this.drain(sub);
    return event;
  }

  async subscribe(stream: string, handler: BusEventHandler, options: SubscribeOptions = {}): Promise<Subscription> {
    this.assertOpen();
    const state = this.state(stream);
    // Without afterId the subscriber starts at the head: only events published from now on.
    // An id beyond the head (from another run of the service, say) also starts there, rather
    // than dropping everything until the ids catch up with it.
    const afterId = options.afterId === undefined ? state.seq : Math.min(normalizeAfterId(options.afterId), state.seq);
    const sub: LocalSubscriber = { handler, lastId: afterId, queue: [], draining: false, active: true };
    // Registered before the replay is queued, and nothing awaits in between: no gap is possible.
    state.subscribers ??= new Set();
    state.subscribers.add(sub);
    for (const event of state.retained) enqueue(sub, event);
    this.drain(sub);
    return {
      unsubscribe: async () => {
        sub.active = false;
        sub.queue.length = 0;
        state.subscribers?.delete(sub);
      },
    };
  }

  async replay(stream: string, afterId: number, limit?: number): Promise<BusEvent[]> {
    this.assertOpen();
    const from = normalizeAfterId(afterId);
    const retained = this.streams.get(stream)?.retained ?? [];
    const events = retained.filter((event) => event.id > from);
    return limit === undefined ? events : events.slice(0, Math.max(0, Math.floor(limit)));
  }

  async ping(): Promise<void> {
    this.assertOpen();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const state of this.streams.values()) {
      for (const sub of state.subscribers ?? []) sub.active = false;
      state.subscribers?.clear();
    }
  }

  private state(stream: string): StreamState {
    let state = this.streams.get(stream);
    if (!state) {
      state = { seq: this.firstIdAfter, retained: [] };
      this.streams.set(stream, state);
    }
    return state;
  }

  /**
   * Drops from the oldest end while an event is both beyond the latest `minCount` and older
   * than `maxAgeMs`. Stopping at the first recent one keeps more, never less, if clocks jump.
   */
  private trim(state: StreamState): void {
    const cutoff = this.clock.now() - this.retention.maxAgeMs;
    let drop = 0;
    const excess = state.retained.length - this.retention.minCount;
    while (drop < excess && state.retained[drop]!.at < cutoff) drop += 1;
    // The heap is the whole buffer here: a stream busier than `maxRetained` a day keeps its latest `maxRetained`.
    drop = Math.max(drop, state.retained.length - this.maxRetained);
    if (drop > 0) state.retained.splice(0, drop);
  }

  private drain(sub: LocalSubscriber): void {
    if (sub.draining) return;
    sub.draining = true;
    try {
      for (let event = sub.queue.shift(); event && sub.active; event = sub.queue.shift()) {
        invokeHandler(sub.handler, event, this.logger);
      }
    } finally {
      sub.draining = false;
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new AppError('SHUTTING_DOWN', 'The event bus is closed');
  }
}

function enqueue(sub: LocalSubscriber, event: BusEvent): void {
  if (!sub.active || event.id <= sub.lastId) return;
  sub.lastId = event.id;
  sub.queue.push(event);
}
