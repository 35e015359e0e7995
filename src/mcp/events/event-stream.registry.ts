/**
 * Every MCP event stream of this process: the one entry point both transports use to open
 * a stream, the open-stream count for metrics, the cap of streams per credential, and the
 * shutdown that ends them all.
 */
import { AppError, isAppError } from '../../../kernel/errors/app-error.js';
import { bearerChallenge } from '../mcp-challenge.js';
import type { RateLimiterPort } from '../../../kernel/ports/rate-limiter.port.js';
import { budgetKeyOf, rateLimitHeaders, tooManyRequests } from '../../surface-common/rate-limit-answers.js';
import { defaultRateWindows, hitBudget, type RateWindowsOf } from '../mcp-rate-budget.js';
import { ORIGIN_NOT_ALLOWED, type OriginCheck } from '../mcp-origin.js';
import { EventStream, type EventStreamDeps } from './event-stream.js';

export interface EventStreamRegistryDeps extends EventStreamDeps {
  /** Opening a stream is one request on the credential's budget, as an MCP call is. */
  limiter: RateLimiterPort;
  rateWindows?: RateWindowsOf;
  /** Streams one credential may hold open at once (config `MCP_EVENT_STREAMS_PER_CREDENTIAL`). */
  maxStreamsPerCredential?: number;
  /** Browser origins served (mcp-origin.ts); absent: any. */
  originAllowed?: OriginCheck;
  /** The agent's protected resource metadata URL, named by a 401's `WWW-Authenticate` (OAuth); absent: plain `Bearer`. */
  resourceMetadataUrl?: (publicId: string) => string;
}

const MAX_STREAMS_PER_CREDENTIAL = 20;
/** What a refused client waits before trying again: streams are long-lived, one of its own must end first. */
const STREAM_CAP_RETRY_SECONDS = 30;

/** A stream ready to start, with the `X-RateLimit-*` headers of the request that opened it. */
export interface OpenedStream {
  stream: EventStream;
  rateHeaders: Record<string, string>;
}

export class EventStreamRegistry {
  private readonly streams = new Set<EventStream>();
  /** The credential (its rate budget's key) each counted stream holds a place of, and how many places each holds. */
  private readonly holders = new Map<EventStream, string>();
  private readonly held = new Map<string, number>();
  private shuttingDown = false;

  constructor(private readonly deps: EventStreamRegistryDeps) {}

  /**
   * Checks the credential for `/mcp/:publicId`, counts the request on its budget and returns
   * a stream ready to `start`. Throws the resolver's AppError (401, 403, 404 `Agent not
   * found`) or 429 (a spent budget, or the credential's streams at their cap; with the
   * `X-RateLimit-*` headers) with nothing left open. A browser `origin` outside the allowed
   * set is refused first (403), before the credential is looked at.
   */
  async open(publicId: string, authorization: string | undefined, origin?: string): Promise<OpenedStream> {
    if (this.deps.originAllowed && !this.deps.originAllowed(origin)) throw AppError.forbidden(ORIGIN_NOT_ALLOWED);
    if (this.shuttingDown) throw new AppError('SHUTTING_DOWN', 'Service Unavailable', { envelope: 'standard' });
    const stream = new EventStream(this.deps, publicId, authorization, (closed) => this.release(closed));
    this.streams.add(stream);
    try {
      const access = await stream.authorize();
      const decision = await hitBudget(this.deps.limiter, this.deps.rateWindows ?? defaultRateWindows, access);
      const rateHeaders = rateLimitHeaders(decision);
      if (!decision.allowed) throw tooManyRequests(decision, rateHeaders);
      // The rate budget's key: an agent mints identity tokens at will, so a cap per token would be none.
      this.hold(stream, budgetKeyOf(access.principal), rateHeaders);
      return { stream, rateHeaders };
    } catch (error) {
      await stream.close('disconnected');
      throw this.challenged(error, publicId);
    }
  }

  /** A 401 with the OAuth challenge naming the agent's resource metadata, as the MCP endpoint's. */
  private challenged(error: unknown, publicId: string): unknown {
    const url = this.deps.resourceMetadataUrl;
    if (!url || !isAppError(error) || error.kind !== 'unauthenticated' || !/^[A-Za-z0-9_-]{1,100}$/.test(publicId)) return error;
    return new AppError(error.code, error.message, {
      kind: error.kind,
      envelope: error.envelope,
      headers: { ...error.headers, 'WWW-Authenticate': bearerChallenge(url(publicId)) },
      cause: error,
    });
  }

  /**
   * Takes one of the credential's places, or refuses with 429: one client (one key, one
   * operator) cannot hold every stream of the process. Counted in this process only.
   */
  private hold(stream: EventStream, credential: string, rateHeaders: Record<string, string>): void {
    const held = this.held.get(credential) ?? 0;
    if (held >= (this.deps.maxStreamsPerCredential ?? MAX_STREAMS_PER_CREDENTIAL))
      throw new AppError('RATE_LIMITED', 'Too many open event streams', {
        envelope: 'standard',
        retryAfterSeconds: STREAM_CAP_RETRY_SECONDS,
        headers: rateHeaders,
      });
    this.held.set(credential, held + 1);
    this.holders.set(stream, credential);
  }

  private release(stream: EventStream): void {
    this.streams.delete(stream);
    const credential = this.holders.get(stream);
    if (credential === undefined) return;
    this.holders.delete(stream);
    const left = (this.held.get(credential) ?? 1) - 1;
    if (left > 0) this.held.set(credential, left);
    else this.held.delete(credential);
  }

  /** Streams open now, counting those still being authorized (gauge source). */
  openStreams(): number {
    return this.streams.size;
  }

  /** Ends every stream with `shutdown` and refuses new ones; resolves once unsubscribed from the bus. */
  async closeAll(): Promise<void> {
    this.shuttingDown = true;
    await Promise.all([...this.streams].map((stream) => stream.close('shutdown')));
  }
}
