/**
 * One MCP event stream, whatever carries it (SSE or WebSocket): access check, replay then
 * live delivery from the bus, keep-alive, and the end of the stream when its credential is
 * revoked, expires or stops resolving. Transports only frame bytes (`EventSink`).
 */
import { AUTH_STREAM } from '../../../machines/auth-stream.js';
import { AppError, isAppError } from '../../../kernel/errors/app-error.js';
import type { Logger } from '../../observability/logger.js';
import type { ClockPort } from '../../../kernel/ports/clock.port.js';
import type { BusEvent, EventBusPort, Subscription } from '../../../kernel/ports/event-bus.port.js';
import type { McpAccess, McpAccessResolver } from '../mcp-access.js';
import {
  busStreamOf,
  credentialEndOf,
  credentialExpiryOf,
  credentialIdOf,
  toStreamEvent,
  type StreamEndReason,
  type StreamEvent,
} from './event-frame.js';

/** What a transport provides: write an event, write a keep-alive, end with a reason. */
export interface EventSink {
  event(event: StreamEvent): void;
  heartbeat(): void;
  end(reason: StreamEndReason): void;
  /** Bytes written but not yet taken by the client: a slow reader must not grow our heap. */
  bufferedBytes(): number;
}

export interface EventStreamDeps {
  access: Pick<McpAccessResolver, 'resolve'>;
  bus: EventBusPort;
  clock: ClockPort;
  logger: Logger;
  /** Events: a comment line every 15 s. */
  heartbeatMs?: number;
  /** Re-check of the credential and the agent, should a revocation event ever be missed. */
  revalidateMs?: number;
  /** A client this far behind is cut off; it reconnects with `Last-Event-ID` and loses nothing. */
  maxBufferedBytes?: number;
}

const HEARTBEAT_MS = 15_000;
const REVALIDATE_MS = 60_000;
const MAX_BUFFERED_BYTES = 1024 * 1024;
/**
 * Event streams (not tools) also take the agent owner's session, read scope: the console shows
 * the events of the signed-in operator's agents without minting a key for them. The session is
 * checked again at each revalidation, so a sign-out or an expired access token ends the stream.
 */
const OWNER_SESSION = { ownerSession: true } as const;
/** setTimeout fires at once beyond 2^31-1 ms; a 90-day key expiry is armed in hops. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Lifecycle: `authorize()` → transport accepts → `start()` → `close()` (idempotent, any time). */
export class EventStream {
  access: McpAccess | undefined;
  private sink: EventSink | undefined;
  private credentialId: string | undefined;
  /** Credential ends seen on `auth` while our own credential id was not known yet. */
  private readonly early = new Map<string, StreamEndReason>();
  private pendingEnd: StreamEndReason | undefined;
  private readonly subscriptions: Subscription[] = [];
  private readonly timers = new Map<'heartbeat' | 'revalidate' | 'expiry', () => void>();
  private closing: Promise<void> | undefined;
  /** Why the server ended the stream, for a transport that attaches after the fact. */
  private endReason: StreamEndReason | undefined;

  constructor(
    private readonly deps: EventStreamDeps,
    private readonly publicId: string,
    private readonly authorization: string | undefined,
    private readonly onClosed: (stream: EventStream) => void,
  ) {}

  get closed(): boolean {
    return this.closing !== undefined;
  }

  /**
   * Watches `auth` first, then resolves: a revocation that lands while resolving is then
   * either refused by the resolver or seen by the watch; none slips between the two.
   */
  async authorize(): Promise<McpAccess> {
    const watch = await this.deps.bus.subscribe(AUTH_STREAM, (event) => this.onCredentialEvent(event));
    if (this.closed) void watch.unsubscribe().catch(() => undefined);
    else this.subscriptions.push(watch);
    const access = this.closed ? undefined : await this.deps.access.resolve(this.publicId, this.authorization, OWNER_SESSION);
    // Closed meanwhile: only shutdown or the client leaving do that, and neither wants a stream.
    if (this.closed || !access) throw new AppError('SHUTTING_DOWN', 'Service Unavailable', { envelope: 'standard' });
    this.access = access;
    this.credentialId = credentialIdOf(access.principal);
    if (this.credentialId !== undefined) this.pendingEnd = this.early.get(this.credentialId);
    this.early.clear();
    return access;
  }

  /** Replays events after `afterId` (none when undefined), then goes live; arms the timers. */
  async start(afterId: number | undefined, sink: EventSink): Promise<void> {
    const access = this.access;
    if (this.closed || !access) return void (this.endReason && sink.end(this.endReason));
    this.sink = sink;
    if (this.pendingEnd) return void this.close(this.pendingEnd);
    try {
      const options = afterId === undefined ? {} : { afterId };
      const subscription = await this.deps.bus.subscribe(busStreamOf(access.subject), (event) => this.deliver(event), options);
      // The replay may have ended us already (a revocation in it), or the client left meanwhile.
      if (this.closed) return void subscription.unsubscribe().catch(() => undefined);
      this.subscriptions.push(subscription);
    } catch (error) {
      this.deps.logger.error({ err: error, subject: access.subject }, 'event stream subscription failed');
      return void this.close('error');
    }
    this.every('heartbeat', this.deps.heartbeatMs ?? HEARTBEAT_MS, () => this.sink?.heartbeat());
    this.every('revalidate', this.deps.revalidateMs ?? REVALIDATE_MS, () => this.revalidate());
    const expiresAt = credentialExpiryOf(access.principal);
    if (expiresAt !== undefined) this.armExpiry(expiresAt);
  }

  /** Stops timers and subscriptions; tells the client why unless it is the one who left. */
  close(reason: StreamEndReason | 'disconnected'): Promise<void> {
    if (this.closing) return this.closing;
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
    const subscriptions = this.subscriptions.splice(0);
    this.closing = Promise.all(subscriptions.map((s) => s.unsubscribe())).then(
      () => undefined,
      (error: unknown) => this.deps.logger.warn({ err: error }, 'event stream unsubscribe failed'),
    );
    if (reason !== 'disconnected') {
      this.endReason = reason;
      this.sink?.end(reason);
    }
    this.onClosed(this);
    return this.closing;
  }

  private deliver(event: BusEvent): void {
    const { sink, access } = this;
    if (this.closed || !sink || !access) return;
    sink.event(toStreamEvent(event, access.subject));
    // The owner stream carries our own key's end too: the client sees that event, then the end.
    const end = credentialEndOf(event);
    if (end && end.credentialId === this.credentialId) return void this.close(end.reason);
    if (sink.bufferedBytes() > (this.deps.maxBufferedBytes ?? MAX_BUFFERED_BYTES)) void this.close('slow-consumer');
  }

  private onCredentialEvent(event: BusEvent): void {
    const end = credentialEndOf(event);
    if (!end) return;
    if (!this.access) this.early.set(end.credentialId, end.reason);
    else if (end.credentialId !== this.credentialId) return;
    else if (this.sink) void this.close(end.reason);
    else this.pendingEnd = end.reason;
  }

  private async revalidate(): Promise<void> {
    try {
      await this.deps.access.resolve(this.publicId, this.authorization, OWNER_SESSION);
    } catch (error) {
      if (isAppError(error) && error.kind === 'unauthenticated') return void this.close('unauthorized');
      if (isAppError(error) && error.kind === 'not_found') return void this.close('not-found');
      // An outage of the store is not the client's fault: keep streaming, ask again next time.
      this.deps.logger.warn({ err: error }, 'event stream revalidation failed');
    }
  }

  private every(slot: 'heartbeat' | 'revalidate', ms: number, tick: () => void | Promise<void>): void {
    this.timers.set(
      slot,
      this.deps.clock.setTimer(() => {
        if (this.closed) return;
        this.every(slot, ms, tick);
        void tick();
      }, ms),
    );
  }

  private armExpiry(at: number): void {
    const left = at - this.deps.clock.now();
    if (left <= 0) return void this.close('expired');
    this.timers.set(
      'expiry',
      this.deps.clock.setTimer(() => !this.closed && this.armExpiry(at), Math.min(left, MAX_TIMER_MS)),
    );
  }
}
