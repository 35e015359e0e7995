/**
 * An agent's event stream (events), as an async iterator that never misses an
 * event across reconnects: each reconnect resumes after the last id seen (`Last-Event-ID`),
 * with exponential backoff and jitter while the service is unreachable. It ends with an
 * error when the service refuses the credential for good (revoked key, unknown agent); an
 * identity token is renewed once and the stream goes on.
 */
import type { AgentCredential } from '../agent-credentials.js';
import { SdkError } from '../errors.js';
import { retryDelayMs, type RetryPolicy, type SdkRuntime } from '../runtime.js';
import { EventQueue } from './event-queue.js';

/** One event: `id` monotonic per agent, `event` its type, `data` `{type, agentId, at, ...}`. */
export interface AgentEvent {
  id: number;
  event: string;
  data: { type: string; agentId?: string; botId?: string; at: string; [field: string]: unknown };
}

/** One connection: resolves when the server ends it (the subscription reconnects), rejects with why it failed. */
export type Connect = (args: {
  afterId: number | undefined;
  token: string;
  onOpen: () => void;
  onEvent: (event: AgentEvent) => void;
  signal: AbortSignal;
}) => Promise<void>;

export interface SubscribeOptions {
  /** Resume after this id (events of the last 24 hours or 1,000 events are replayed); default: live events only. */
  lastEventId?: number;
  signal?: AbortSignal;
  /** Backoff between reconnects; default: unlimited attempts, 250 ms doubling to 10 s. */
  reconnect?: Partial<RetryPolicy>;
  /** Called before each reconnect (tests and logs). */
  onReconnect?: (event: { attempt: number; delayMs: number; error: unknown }) => void;
}

export class EventSubscription implements AsyncIterable<AgentEvent> {
  private readonly queue: EventQueue<AgentEvent>;
  private readonly controller = new AbortController();
  /** Id of the last event delivered: where a reconnect resumes. */
  lastEventId: number | undefined;
  /** Connections opened so far. */
  connections = 0;

  constructor(
    private readonly runtime: SdkRuntime,
    private readonly credential: AgentCredential,
    private readonly connect: Connect,
    private readonly options: SubscribeOptions = {},
  ) {
    this.lastEventId = options.lastEventId;
    this.queue = new EventQueue(() => this.close());
    const outer = options.signal;
    if (outer?.aborted) this.close();
    outer?.addEventListener('abort', () => this.close(), { once: true });
    void this.run();
  }

  /** Stops the stream; a pending `next()` ends. */
  close(): void {
    this.controller.abort();
    this.queue.end();
  }

  [Symbol.asyncIterator](): AsyncIterator<AgentEvent> {
    return this.queue;
  }

  private async run(): Promise<void> {
    const signal = this.controller.signal;
    const policy: RetryPolicy = {
      maxAttempts: Number.POSITIVE_INFINITY,
      baseDelayMs: 250,
      maxDelayMs: 10_000,
      maxRetryAfterMs: 300_000,
      ...this.options.reconnect,
    };
    let failures = 0;
    let renewed = false;
    while (!signal.aborted) {
      let failure: unknown;
      try {
        const token = await this.credential.token({ signal });
        await this.connect({
          afterId: this.lastEventId,
          token,
          signal,
          onOpen: () => {
            this.connections++;
            failures = 0;
            renewed = false;
          },
          onEvent: (event) => {
            // A replay overlapping what was delivered is dropped: no duplicate, whatever the server does.
            if (this.lastEventId !== undefined && event.id <= this.lastEventId) return;
            this.lastEventId = event.id;
            this.queue.push(event);
          },
        });
        failure = new SdkError('network_error', { status: 0, message: 'The event stream ended' });
      } catch (error) {
        if (signal.aborted) break;
        if (error instanceof SdkError && error.code === 'auth_error' && !renewed && (await this.safeRenew(signal))) {
          renewed = true;
          continue;
        }
        if (!(error instanceof SdkError) || !error.retryable) {
          this.queue.end(error);
          return;
        }
        failure = error;
      }
      if (signal.aborted) break;
      failures++;
      if (failures >= policy.maxAttempts) {
        this.queue.end(failure);
        return;
      }
      const retryAfter = failure instanceof SdkError ? failure.retryAfter : undefined;
      const delayMs = retryDelayMs(policy, failures, this.runtime.random, retryAfter);
      this.options.onReconnect?.({ attempt: failures, delayMs, error: failure });
      try {
        await this.runtime.clock.sleep(delayMs, signal);
      } catch {
        break;
      }
    }
    this.queue.end();
  }

  private async safeRenew(signal: AbortSignal): Promise<boolean> {
    try {
      return await this.credential.renewAfterRefusal({ signal });
    } catch {
      return false;
    }
  }
}
