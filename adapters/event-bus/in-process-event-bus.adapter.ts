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
import type { EventHistoryPort } from '../../kernel/ports/event-history.port.js';
import {
  checkRetention,
  invokeHandler,
  normalizeAfterId,
  toBusEvent,
  toEventBody,
  type EventBusLogger,
} from '../shared/event-bus-helpers.js';

const DEFAULT_MAX_RETAINED = 20_000;
const DEFAULT_WINDOW = 8;
const DEFAULT_MAX_STREAMS = 10_000;
const DEFAULT_MAX_WINDOW_EVENTS = 20_000;
const DEFAULT_TRIM_EVERY = 64;
/** Stored events a retention pass looks at; each publish that trims lets go of at most this many. */
const TRIM_SCAN = 1_000;
/** Events a replay from the history reads per page. */
const READ_PAGE = 1_000;

export interface InProcessEventBusOptions {
  clock: ClockPort;
  retention?: RetentionPolicy;
  /**
   * Without `history`: most events kept per stream, whatever their age (at least
   * `retention.minCount`): the heap is then the whole replay buffer, so an agent trading all
   * day must not grow it without bound. Default 20,000 (about a day at one event every 4 s).
   */
  maxRetained?: number;
  /**
   * Each stream's ids start right after this (default 0), or after the history's last id of
   * the stream when that is higher. The service passes its start time in microseconds: ids
   * then keep growing across restarts whatever the history still holds.
   */
  firstIdAfter?: number;
  /**
   * The replay log on disk. With it the heap keeps only a small recent window of the streams
   * used last (`window`, `maxStreams`, `maxWindowEvents`), and everything retention keeps is
   * read back from here; the bus owns it and closes it. Without it, everything is on the heap.
   */
  history?: EventHistoryPort;
  /** With `history`: events of a stream kept on the heap once on disk (default 8). */
  window?: number;
  /** With `history`: streams kept on the heap, least recently used let go first (default 10,000). */
  maxStreams?: number;
  /** With `history`: events kept on the heap over all streams (default 20,000). */
  maxWindowEvents?: number;
  /** With `history`: one publish in this many (at random) applies retention to the stream on disk (default 64). */
  trimEvery?: number;
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
  /** Retained events, oldest first: all of them without a history, the recent window with one. */
  retained: BusEvent[];
  /**
   * Made at the first subscription: most streams (one per agent) never have a listener, and
   * an empty Set is some 150 bytes of the ~780 a stream with one retained event holds.
   */
  subscribers?: Set<LocalSubscriber>;
  /** With a history: the highest id known committed to it (events above it stay on the heap). */
  committed: number;
  /** With a history: appends under way (a stream is let go of only when none is). */
  pending: number;
  /** With a history: events up to this id were let go by retention (a read skips them). */
  trimmed: number;
  /** With a history: events up to this id were removed from it (or their removal is under way). */
  removed: number;
  /** With a history: when it was last used (the bus's count of uses); the least recent leaves the heap first. */
  lastUsed: number;
  /** With a history: an append failed, so the history's last id is not this stream's (it stays). */
  unsaved?: boolean;
}

/**
 * The embedded bus: one process. Delivery is synchronous inside `publish`, through a queue
 * per subscriber so that a handler which publishes (re-entrancy) never makes another
 * subscriber see a later event before an earlier one.
 *
 * With a history (the service's embedded profile), each event is appended to it as it is
 * published, and the heap keeps per stream its id counter, its subscribers and the latest
 * few events (those not yet committed always among them), for the streams used last: at
 * 50,000 one-minute strategies a day of events is gigabytes, which belongs on disk. A read
 * (a replay, a subscriber's catch-up) takes the older events from the history, synchronously,
 * and the rest from the window; a stream let go of and used again continues after the
 * history's last id.
 */
export class InProcessEventBus implements EventBusPort {
  private readonly clock: ClockPort;
  private readonly retention: RetentionPolicy;
  private readonly maxRetained: number;
  private readonly logger: EventBusLogger | undefined;
  private readonly firstIdAfter: number;
  private readonly history: EventHistoryPort | undefined;
  private readonly window: number;
  private readonly maxStreams: number;
  private readonly maxWindowEvents: number;
  private readonly trimEvery: number;
  private readonly streams = new Map<string, StreamState>();
  /** Counts uses of streams: a stream's `lastUsed` orders the heap's evictions. */
  private uses = 0;
  /** Publishes since the last eviction pass (see `evict`); the first pass may run at once. */
  private sinceEviction = Number.POSITIVE_INFINITY;
  /** With a history: events on the heap over all streams. */
  private windowEvents = 0;
  private readonly appends = new Set<Promise<void>>();
  private closed = false;

  constructor(options: InProcessEventBusOptions) {
    this.clock = options.clock;
    this.retention = checkRetention(options.retention ?? DEFAULT_RETENTION);
    this.maxRetained = Math.max(this.retention.minCount, options.maxRetained ?? DEFAULT_MAX_RETAINED);
    this.logger = options.logger;
    this.firstIdAfter = normalizeAfterId(options.firstIdAfter ?? 0);
    this.history = options.history;
    this.window = Math.max(0, Math.floor(options.window ?? DEFAULT_WINDOW));
    this.maxStreams = Math.max(1, Math.floor(options.maxStreams ?? DEFAULT_MAX_STREAMS));
    this.maxWindowEvents = Math.max(0, Math.floor(options.maxWindowEvents ?? DEFAULT_MAX_WINDOW_EVENTS));
    this.trimEvery = Math.max(1, Math.floor(options.trimEvery ?? DEFAULT_TRIM_EVERY));
  }

  async publish(stream: string, input: BusEventInput): Promise<BusEvent> {
    this.assertOpen();
    const body = toEventBody(stream, input, this.clock.now());
    const state = this.state(stream);
    state.seq += 1;
    const event = toBusEvent(stream, state.seq, body);
    state.retained.push(event);
    if (this.history) {
      this.windowEvents += 1;
      this.save(stream, state, event, this.history);
    }
    this.trim(stream, state);
    if (this.history) this.evict();
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
    // Registered before the replay is queued, and nothing awaits in between (the history reads
    // synchronously): no gap is possible.
    state.subscribers ??= new Set();
    state.subscribers.add(sub);
    for (const event of this.since(stream, state, afterId)) enqueue(sub, event);
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
    const max = limit === undefined ? Number.POSITIVE_INFINITY : Math.max(0, Math.floor(limit));
    return this.since(stream, this.streams.get(stream), normalizeAfterId(afterId), max);
  }

  async ping(): Promise<void> {
    this.assertOpen();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const state of this.streams.values()) {
      for (const sub of state.subscribers ?? []) sub.active = false;
      state.subscribers?.clear();
    }
    if (!this.history) return;
    // What was published is written before the history closes: a restart replays it.
    await Promise.allSettled([...this.appends]);
    await this.history.close();
  }

  /** Retained events with id > `afterId`, oldest first: the history's older ones, then the heap's. */
  private since(stream: string, state: StreamState | undefined, afterId: number, limit = Number.POSITIVE_INFINITY): BusEvent[] {
    const fromHeap = (from: number) => (state?.retained ?? []).filter((event) => event.id > from);
    if (!this.history) return fromHeap(afterId).slice(0, limit);
    const from = Math.max(afterId, state?.trimmed ?? 0);
    // Everything below the window is committed (the window keeps what is not), so the history has it.
    const before = state ? (state.retained[0]?.id ?? state.seq + 1) : Number.POSITIVE_INFINITY;
    const out: BusEvent[] = [];
    for (let after = from; out.length < limit; ) {
      const page = this.history.read(stream, after, before, Math.min(READ_PAGE, limit - out.length));
      out.push(...page);
      if (page.length < READ_PAGE || page.length === 0) break;
      after = page[page.length - 1]!.id;
    }
    for (const event of fromHeap(from)) {
      if (out.length >= limit) break;
      out.push(event);
    }
    return out;
  }

  private state(stream: string): StreamState {
    let state = this.streams.get(stream);
    if (!state) {
      const seq = Math.max(this.firstIdAfter, this.history?.lastId(stream) ?? 0);
      state = { seq, retained: [], committed: seq, pending: 0, trimmed: 0, removed: 0, lastUsed: 0 };
      this.streams.set(stream, state);
    }
    this.uses += 1;
    state.lastUsed = this.uses;
    return state;
  }

  /** Appends `event` to the history; once committed, the window may let it go. */
  private save(stream: string, state: StreamState, event: BusEvent, history: EventHistoryPort): void {
    state.pending += 1;
    const append = history.append(stream, [event]).then(
      () => {
        state.committed = Math.max(state.committed, event.id);
      },
      (error: unknown) => {
        // Resuming clients miss this event; keeping it on the heap for ever is worse under a failing disk.
        state.unsaved = true;
        state.committed = Math.max(state.committed, event.id);
        this.logger?.('event history append failed', { stream, id: event.id, error });
      },
    );
    const settled = append.finally(() => {
      state.pending -= 1;
      this.appends.delete(settled);
      this.trimWindow(state);
      this.removeTrimmed(stream, state, history);
      // A stream pinned by this append may go now: the bounds hold once the disk caught up.
      this.evict();
    });
    this.appends.add(settled);
  }

  /**
   * Drops from the oldest end while an event is both beyond the latest `minCount` and older
   * than `maxAgeMs`. Stopping at the first recent one keeps more, never less, if clocks jump.
   */
  private trim(stream: string, state: StreamState): void {
    if (this.history) {
      if (Math.random() * this.trimEvery < 1) this.trimHistory(stream, state, this.history);
      this.trimWindow(state);
      return;
    }
    const cutoff = this.clock.now() - this.retention.maxAgeMs;
    let drop = 0;
    const excess = state.retained.length - this.retention.minCount;
    while (drop < excess && state.retained[drop]!.at < cutoff) drop += 1;
    // The heap is the whole buffer here: a stream busier than `maxRetained` a day keeps its latest `maxRetained`.
    drop = Math.max(drop, state.retained.length - this.maxRetained);
    if (drop > 0) state.retained.splice(0, drop);
  }

  /**
   * Retention over the stream as a whole, oldest first: the history's events below the
   * window, then the window's (the newest, those not yet committed among them). What may go
   * is recorded in `trimmed` at once (reads skip it from now on) and removed from the history
   * once no append of the stream is under way, so an event committed later is removed too.
   */
  private trimHistory(stream: string, state: StreamState, history: EventHistoryPort): void {
    const { minCount, maxAgeMs } = this.retention;
    const cutoff = this.clock.now() - maxAgeMs;
    const windowed = state.retained;
    const before = windowed[0]?.id ?? state.seq + 1;
    let through = state.trimmed;
    try {
      const onDisk = history.trimmable(stream, before, Math.max(0, minCount - windowed.length), cutoff, TRIM_SCAN);
      through = Math.max(through, onDisk);
      // Into the window only when nothing older is left on disk.
      if (history.read(stream, through, before, 1).length === 0) {
        const excess = windowed.length - minCount;
        for (let i = 0; i < excess && windowed[i]!.at < cutoff; i += 1) through = Math.max(through, windowed[i]!.id);
      }
    } catch (error) {
      this.logger?.('event history trim failed', { stream, error });
      return;
    }
    if (through <= state.trimmed) return;
    state.trimmed = through;
    this.removeTrimmed(stream, state, history);
  }

  private removeTrimmed(stream: string, state: StreamState, history: EventHistoryPort): void {
    if (state.pending > 0 || state.removed >= state.trimmed) return;
    state.removed = state.trimmed;
    history.remove(stream, state.trimmed).catch((error: unknown) => this.logger?.('event history trim failed', { stream, error }));
  }

  /** The window: events retention let go, and committed ones past the latest `window`, leave the heap. */
  private trimWindow(state: StreamState): void {
    const { retained } = state;
    let drop = 0;
    while (drop < retained.length) {
      const event = retained[drop]!;
      const overflow = retained.length - drop > this.window && event.id <= state.committed;
      if (!overflow && event.id > state.trimmed) break;
      drop += 1;
    }
    if (drop === 0) return;
    retained.splice(0, drop);
    this.windowEvents -= drop;
  }

  /**
   * Lets go of the least recently used streams once over the bounds, down to nine tenths of
   * them in one pass; the next pass waits for a tenth of `maxStreams` publishes. A pass per
   * publish (or a use order kept by moving each stream to the end of the Map) walked deleted
   * slots and streams again and again: it cost more CPU than the events themselves. A stream
   * with a subscriber, an append under way or a failed one stays (its counter is not the
   * history's last id yet); such streams are few, and go at a later pass.
   */
  private evict(): void {
    if (this.streams.size <= this.maxStreams && this.windowEvents <= this.maxWindowEvents) return;
    if (this.sinceEviction++ < this.maxStreams / 10) return;
    this.sinceEviction = 0;
    const streamTarget = Math.floor(this.maxStreams * 0.9);
    const eventTarget = Math.floor(this.maxWindowEvents * 0.9);
    const candidates = [...this.streams].filter(
      ([, state]) => (state.subscribers?.size ?? 0) === 0 && state.pending === 0 && !state.unsaved,
    );
    candidates.sort(([, a], [, b]) => a.lastUsed - b.lastUsed);
    for (const [stream, state] of candidates) {
      if (this.streams.size <= streamTarget && this.windowEvents <= eventTarget) return;
      this.streams.delete(stream);
      this.windowEvents -= state.retained.length;
    }
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
