/**
 * Event bus port: per-stream (e.g. per agent) events with monotonic ids, live
 * subscription and replay from a retained buffer. The Redis adapter lets a subscriber
 * on one process see what another published. Every adapter passes
 * `test/contracts/event-bus.contract.ts`.
 */

export interface BusEventInput {
  /** Dot-namespaced lower case, e.g. `order.updated`. */
  type: string;
  data: Record<string, unknown>;
}

export interface BusEvent extends BusEventInput {
  stream: string;
  /** Positive, strictly increasing per stream, never reused. */
  id: number;
  /** Epoch ms of publication. */
  at: number;
}

export type BusEventHandler = (event: BusEvent) => void;

export interface Subscription {
  unsubscribe(): Promise<void>;
}

export interface SubscribeOptions {
  /** Deliver retained events with id greater than this first, then live ones, in order. */
  afterId?: number;
}

export interface EventBusPort {
  publish(stream: string, event: BusEventInput): Promise<BusEvent>;
  /** Events arrive in id order, each once. */
  subscribe(stream: string, handler: BusEventHandler, options?: SubscribeOptions): Promise<Subscription>;
  /** Retained events with id greater than `afterId`, oldest first. */
  replay(stream: string, afterId: number, limit?: number): Promise<BusEvent[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Retention of the replay buffer: keep at least `minCount` events and all newer than `maxAgeMs`. */
export interface RetentionPolicy {
  minCount: number;
  maxAgeMs: number;
}

export const DEFAULT_RETENTION: RetentionPolicy = { minCount: 1000, maxAgeMs: 24 * 60 * 60 * 1000 };
