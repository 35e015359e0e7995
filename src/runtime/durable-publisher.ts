import type { Logger } from 'pino';
import type { BusEventInput, EventBusPort } from '../../kernel/ports/event-bus.port.js';
import type { StorePort } from '../../kernel/ports/store.port.js';
import { settlesWithin } from '../../kernel/shared/settles-within.js';

/** How long `drained()` waits for publications before letting an answer go anyway. */
const DEFAULT_DRAIN_WAIT_MS = 1_000;

export interface DurablePublisherOptions {
  store: Pick<StorePort, 'durable'>;
  bus: EventBusPort;
  logger: Logger;
  /** Bound of `drained()`: a slow bus holds answers this long at most. */
  drainWaitMs?: number;
  /**
   * Told of each event once it is durable, before it goes to the bus (the metrics count
   * order transitions and refusals here). An event published on several streams is told once per stream.
   */
  onDurable?: DurableObserver;
}

/** Told of an event once it is durable, with the stream it goes out on. */
export type DurableObserver = (event: BusEventInput, stream: string) => void;

/**
 * Publishes events once the writes they describe are durable (StorePort: a write resolves
 * when committed, the flush comes after): an SSE client never sees an order, a position or
 * a wallet address that power loss then undoes. Each stream is one queue, so a stream's
 * events go out in the order their writes committed, whichever component wrote them (the
 * runtime's actors, the trading services). Publishing returns at once: writers never wait
 * for the flush or the bus.
 */
export class DurablePublisher {
  /** Per stream: the tail of its publications still under way. */
  private readonly tails = new Map<string, Promise<void>>();
  /** The wait for the flush shared by the calls of this turn of the event loop (see `durable`). */
  private batch: Promise<void> | undefined;
  private readonly observers = new Set<DurableObserver>();

  constructor(private readonly options: DurablePublisherOptions) {
    if (options.onDurable) this.observers.add(options.onDurable);
  }

  /**
   * Adds an observer told of each event this process publishes, once durable and before it
   * goes to the bus (a feature reacting to its own service's changes, not another process's).
   * Returns what removes it.
   */
  observe(observer: DurableObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  /**
   * Resolves once everything committed before the call is durable. The calls of one turn of
   * the event loop share one `StorePort.durable()`, made after the last of them (so it covers
   * every commit before any of them): under load, the events and answers of many writes ride
   * one wait instead of each asking for its own.
   */
  durable(): Promise<void> {
    if (!this.batch) {
      const batch = new Promise<void>((resolve, reject) => {
        setImmediate(() => {
          this.batch = undefined;
          this.options.store.durable().then(resolve, reject);
        });
      });
      batch.catch(() => undefined); // awaited by each caller; never an unhandled rejection meanwhile
      this.batch = batch;
    }
    return this.batch;
  }

  /** Queues `events` on `stream`, to go out once everything committed so far is durable. */
  publish(stream: string, events: BusEventInput[]): void {
    if (events.length === 0) return;
    const { bus, logger } = this.options;
    const durable = this.durable();
    const send = async () => {
      try {
        await durable;
      } catch (error) {
        // Committed, but not known to be durable: saying so is better than announcing it.
        logger.error({ err: error, stream, types: events.map((event) => event.type) }, 'events not published: the store did not flush');
        return;
      }
      for (const observer of this.observers) {
        for (const event of events) {
          try {
            observer(event, stream);
          } catch (error) {
            // An observer's failure must keep neither this event from its subscribers nor the others from the observer.
            logger.error({ err: error, stream, type: event.type }, 'durable event observer failed');
          }
        }
      }
      for (const event of events) {
        try {
          await bus.publish(stream, event);
        } catch (error) {
          // The change is committed; a lost notification must not turn it into a failure.
          logger.error({ err: error, stream, type: event.type }, 'event publish failed');
        }
      }
    };
    const tail = (this.tails.get(stream) ?? Promise.resolve()).then(send);
    this.tails.set(stream, tail);
    void tail.then(() => {
      if (this.tails.get(stream) === tail) this.tails.delete(stream);
    });
  }

  /**
   * Resolves once the publications queued before the call went out, or after the drain
   * bound: an answer normally follows its events, but a slow bus does not hold answers.
   */
  async drained(): Promise<void> {
    const pending = [...this.tails.values()];
    if (pending.length === 0) return;
    await settlesWithin(Promise.all(pending), this.options.drainWaitMs ?? DEFAULT_DRAIN_WAIT_MS);
  }
}
