/**
 * Every MCP event stream of this process: the one entry point both transports use to open
 * a stream, the open-stream count for metrics, and the shutdown that ends them all.
 */
import { AppError } from '../../errors/app-error.js';
import type { RateLimiterPort } from '../../ports/rate-limiter.port.js';
import { rateLimitHeaders, tooManyRequests } from '../../surface-common/rate-limit-answers.js';
import { defaultRateWindows, hitBudget, type RateWindowsOf } from '../mcp-rate-budget.js';
import { EventStream, type EventStreamDeps } from './event-stream.js';

export interface EventStreamRegistryDeps extends EventStreamDeps {
  /** Opening a stream is one request on the credential's budget, as an MCP call is. */
  limiter: RateLimiterPort;
  rateWindows?: RateWindowsOf;
}

/** A stream ready to start, with the `X-RateLimit-*` headers of the request that opened it. */
export interface OpenedStream {
  stream: EventStream;
  rateHeaders: Record<string, string>;
}

export class EventStreamRegistry {
  private readonly streams = new Set<EventStream>();
  private shuttingDown = false;

  constructor(private readonly deps: EventStreamRegistryDeps) {}

  /**
   * Checks the credential for `/mcp/:publicId`, counts the request on its budget and returns
   * a stream ready to `start`. Throws the resolver's AppError (401, 403, 404 `Agent not
   * found`) or 429 (with its `X-RateLimit-*` headers) with nothing left open.
   */
  async open(publicId: string, authorization: string | undefined): Promise<OpenedStream> {
    if (this.shuttingDown) throw new AppError('SHUTTING_DOWN', 'Service Unavailable', { envelope: 'standard' });
    const stream = new EventStream(this.deps, publicId, authorization, (closed) => this.streams.delete(closed));
    this.streams.add(stream);
    try {
      const access = await stream.authorize();
      const decision = await hitBudget(this.deps.limiter, this.deps.rateWindows ?? defaultRateWindows, access);
      const rateHeaders = rateLimitHeaders(decision);
      if (!decision.allowed) throw tooManyRequests(decision, rateHeaders);
      return { stream, rateHeaders };
    } catch (error) {
      await stream.close('disconnected');
      throw error;
    }
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
