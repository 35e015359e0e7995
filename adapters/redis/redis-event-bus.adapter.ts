import { Redis } from 'ioredis';
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
import { decodeLiveMessage, decodeLogEntry } from './redis-event-bus.codec.js';
import { eventBusKeys, PUBLISH_SCRIPT, TRIM_BATCH } from './redis-event-bus.script.js';

export interface RedisEventBusOptions {
  redisUrl: string;
  /** Prefix of every key and channel, e.g. `ars:`; tests use a unique one each. */
  keyPrefix: string;
  clock: ClockPort;
  retention?: RetentionPolicy;
  logger?: EventBusLogger;
  /** CLIENT SETNAME base of the two connections, so an operator (or a test) can find them. */
  connectionName?: string;
}

interface RemoteSubscriber {
  stream: string;
  handler: BusEventHandler;
  /** Highest id delivered (or skipped as unreadable); anything at or below it is a duplicate. */
  lastId: number;
  /** While catching up from the log, live messages wait here. */
  buffering: boolean;
  buffer: BusEvent[];
  running: boolean;
  again: boolean;
  active: boolean;
}

interface ChannelState {
  stream: string;
  subscribers: Set<RemoteSubscriber>;
  /** Resolves once Redis confirmed the SUBSCRIBE: only then is reading the log gap-free. */
  ready: Promise<unknown>;
}

type PublishScript = (seqKey: string, logKey: string, ...args: (string | number)[]) => Promise<number>;

const PAGE = 500;
const RETRY_MS = 1_000;

/**
 * Event bus over Redis: numbering and history in Redis (a counter and a Stream per stream),
 * fan-out over pub/sub, so a subscriber in one process sees what another published. A
 * subscriber that misses live messages (reconnect, gap in ids) catches up from the log.
 */
export class RedisEventBus implements EventBusPort {
  private readonly options: RedisEventBusOptions;
  private readonly retention: RetentionPolicy;
  private readonly command: Redis;
  private subscriber: Redis | undefined;
  private readonly channels = new Map<string, ChannelState>();
  private readonly timers = new Set<() => void>();
  private subscriberWasReady = false;
  private closed = false;

  constructor(options: RedisEventBusOptions) {
    this.options = options;
    this.retention = checkRetention(options.retention ?? DEFAULT_RETENTION);
    this.command = this.connect('cmd');
    this.command.defineCommand('eventBusPublish', { numberOfKeys: 2, lua: PUBLISH_SCRIPT });
  }

  async publish(stream: string, input: BusEventInput): Promise<BusEvent> {
    this.assertOpen();
    const body = toEventBody(stream, input, this.options.clock.now());
    const keys = eventBusKeys(this.options.keyPrefix, stream);
    const script = (this.command as unknown as { eventBusPublish: PublishScript }).eventBusPublish.bind(this.command);
    const { minCount, maxAgeMs } = this.retention;
    const id = await this.guard(script(keys.seq, keys.log, keys.channel, JSON.stringify(body), body.at, minCount, maxAgeMs, TRIM_BATCH));
    return toBusEvent(stream, Number(id), body);
  }

  async subscribe(stream: string, handler: BusEventHandler, options: SubscribeOptions = {}): Promise<Subscription> {
    this.assertOpen();
    const sub: RemoteSubscriber = {
      stream,
      handler,
      lastId: normalizeAfterId(options.afterId),
      buffering: true,
      buffer: [],
      running: true,
      again: false,
      active: true,
    };
    // Channel first, log second: whatever is published after SUBSCRIBE is confirmed arrives
    // live (and waits in the buffer), whatever was published before is in the log.
    const channel = this.joinChannel(sub);
    try {
      await this.guard(channel.ready);
      if (options.afterId === undefined) {
        // Live only: start at the head as it is now that the channel is listening.
        const head = await this.guard(this.command.get(eventBusKeys(this.options.keyPrefix, stream).seq));
        sub.lastId = normalizeAfterId(Number(head ?? 0));
      }
      await this.catchUp(sub);
    } catch (error) {
      await this.leaveChannel(sub);
      throw error;
    } finally {
      sub.running = false;
    }
    if (sub.again) this.requestCatchUp(sub);
    return { unsubscribe: () => this.leaveChannel(sub) };
  }

  async replay(stream: string, afterId: number, limit?: number): Promise<BusEvent[]> {
    this.assertOpen();
    const wanted = limit === undefined ? Infinity : Math.max(0, Math.floor(limit));
    const events: BusEvent[] = [];
    let cursor = normalizeAfterId(afterId);
    while (events.length < wanted) {
      const count = Math.min(PAGE, wanted - events.length);
      const page = await this.readPage(stream, cursor, count);
      events.push(...page.events);
      if (page.size < count) break;
      cursor = page.lastSeenId;
    }
    return events;
  }

  async ping(): Promise<void> {
    this.assertOpen();
    await this.guard(this.command.ping());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const cancel of this.timers) cancel();
    this.timers.clear();
    for (const state of this.channels.values()) for (const sub of state.subscribers) sub.active = false;
    this.channels.clear();
    await Promise.all([this.command, this.subscriber].map((conn) => conn && quietly(conn)));
  }

  private connect(role: 'cmd' | 'sub'): Redis {
    const name = `${this.options.connectionName ?? 'event-bus'}:${role}`;
    // A bounded retry per command: a publisher learns of an outage in seconds, not minutes.
    const conn = new Redis(this.options.redisUrl, { lazyConnect: true, connectionName: name, maxRetriesPerRequest: 3 });
    // Without a listener ioredis prints every connection error as unhandled.
    conn.on('error', (error: unknown) => this.options.logger?.('event bus redis connection error', { role, error }));
    return conn;
  }

  /** The one subscriber connection of this process, made on the first subscribe. */
  private subscriberConnection(): Redis {
    if (this.subscriber) return this.subscriber;
    const conn = this.connect('sub');
    conn.on('message', (channel: string, message: string) => this.onMessage(channel, message));
    conn.on('ready', () => {
      if (this.subscriberWasReady) void this.onReconnect(conn);
      this.subscriberWasReady = true;
    });
    this.subscriber = conn;
    return conn;
  }

  private joinChannel(sub: RemoteSubscriber): ChannelState {
    const channel = eventBusKeys(this.options.keyPrefix, sub.stream).channel;
    let state = this.channels.get(channel);
    if (!state) {
      state = { stream: sub.stream, subscribers: new Set(), ready: this.subscriberConnection().subscribe(channel) };
      // A failed SUBSCRIBE is reported to the subscribe() that awaits it; this is not a leak.
      state.ready.catch(() => undefined);
      this.channels.set(channel, state);
    }
    state.subscribers.add(sub);
    return state;
  }

  private async leaveChannel(sub: RemoteSubscriber): Promise<void> {
    sub.active = false;
    sub.buffer.length = 0;
    const channel = eventBusKeys(this.options.keyPrefix, sub.stream).channel;
    const state = this.channels.get(channel);
    if (!state?.subscribers.delete(sub) || state.subscribers.size > 0) return;
    // Last local listener gone: stop receiving the stream. A later subscribe makes a new
    // state whose SUBSCRIBE is queued after this UNSUBSCRIBE on the same connection.
    this.channels.delete(channel);
    if (this.closed || !this.subscriber) return;
    await this.subscriber.unsubscribe(channel).catch((error: unknown) => {
      this.options.logger?.('event bus unsubscribe failed', { stream: sub.stream, error });
    });
  }

  private onMessage(channel: string, message: string): void {
    const state = this.channels.get(channel);
    if (!state) return;
    const event = this.parseLive(state.stream, message);
    if (!event) return;
    for (const sub of [...state.subscribers]) this.offer(sub, event);
  }

  private offer(sub: RemoteSubscriber, event: BusEvent): void {
    if (!sub.active) return;
    if (sub.buffering) {
      sub.buffer.push(event);
    } else if (event.id > sub.lastId + 1) {
      // A hole: a live message was missed (e.g. while reconnecting); the log has it.
      sub.buffer.push(event);
      this.requestCatchUp(sub);
    } else if (event.id > sub.lastId) {
      this.deliver(sub, event);
    }
  }

  private deliver(sub: RemoteSubscriber, event: BusEvent): void {
    sub.lastId = event.id;
    invokeHandler(sub.handler, event, this.options.logger);
  }

  /** Reads the log after `lastId`, then flushes what arrived live meanwhile, skipping duplicates. */
  private async catchUp(sub: RemoteSubscriber): Promise<void> {
    sub.buffering = true;
    for (;;) {
      const page = await this.readPage(sub.stream, sub.lastId, PAGE);
      for (const event of page.events) if (sub.active && event.id > sub.lastId) this.deliver(sub, event);
      // Unreadable entries are skipped for good, not re-read on every catch-up.
      sub.lastId = Math.max(sub.lastId, page.lastSeenId);
      if (page.size < PAGE || !sub.active) break;
    }
    // Holes left now are events the log no longer has (trimmed or unreadable): accept them.
    for (const event of sub.buffer.splice(0)) if (sub.active && event.id > sub.lastId) this.deliver(sub, event);
    sub.buffering = false;
  }

  /** Background catch-up (hole or reconnect); one at a time per subscriber, retried on failure. */
  private requestCatchUp(sub: RemoteSubscriber): void {
    if (!sub.active || this.closed) return;
    sub.buffering = true;
    if (sub.running) {
      sub.again = true;
      return;
    }
    sub.running = true;
    sub.again = false;
    this.catchUp(sub).then(
      () => {
        sub.running = false;
        if (sub.again) this.requestCatchUp(sub);
      },
      (error: unknown) => {
        sub.running = false;
        this.options.logger?.('event bus catch-up failed; retrying', { stream: sub.stream, error });
        // On the injected clock, like every timer here, so tests can drive the retry.
        const cancel = this.options.clock.setTimer(() => {
          this.timers.delete(cancel);
          this.requestCatchUp(sub);
        }, RETRY_MS);
        this.timers.add(cancel);
      },
    );
  }

  private async onReconnect(conn: Redis): Promise<void> {
    // ioredis re-subscribes on reconnect without waiting; wait for it ourselves, so the
    // catch-up below cannot read the log before the channel listens again.
    const channels = [...this.channels.keys()];
    if (channels.length === 0) return;
    await conn.subscribe(...channels).catch(() => undefined);
    for (const state of this.channels.values()) for (const sub of state.subscribers) this.requestCatchUp(sub);
  }

  private async readPage(
    stream: string,
    afterId: number,
    count: number,
  ): Promise<{ events: BusEvent[]; lastSeenId: number; size: number }> {
    const log = eventBusKeys(this.options.keyPrefix, stream).log;
    const entries = await this.guard(this.command.xrange(log, `${afterId + 1}-0`, '+', 'COUNT', count));
    const events: BusEvent[] = [];
    let lastSeenId = afterId;
    for (const [entryId, fields] of entries) {
      // Even a foreign id moves the cursor past itself, so paging always terminates.
      const [, seq, part] = /^(\d+)-(\d+)$/.exec(entryId) ?? [];
      if (seq !== undefined) lastSeenId = Math.max(lastSeenId, Number(seq));
      const event = part === '0' ? decodeLogEntry(stream, Number(seq), fields) : undefined;
      if (event) events.push(event);
      else this.options.logger?.('event bus skipped a malformed log entry', { stream, entryId });
    }
    return { events, lastSeenId, size: entries.length };
  }

  private parseLive(stream: string, message: string): BusEvent | undefined {
    const event = decodeLiveMessage(stream, message);
    if (!event) this.options.logger?.('event bus skipped a malformed live message', { stream, message });
    return event;
  }

  private async guard<T>(work: Promise<T>): Promise<T> {
    try {
      return await work;
    } catch (cause) {
      if (cause instanceof AppError) throw cause;
      throw new AppError('DEPENDENCY_UNAVAILABLE', 'The event bus (Redis) is unavailable', { cause });
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new AppError('SHUTTING_DOWN', 'The event bus is closed');
  }
}

/** QUIT politely; a connection that never connected (or is gone) is just dropped. */
async function quietly(conn: Redis): Promise<void> {
  if (conn.status === 'wait' || conn.status === 'end') return conn.disconnect();
  await conn.quit().catch(() => conn.disconnect());
}
