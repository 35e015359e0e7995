import type { OrderEvent, OrderInput } from '../machines/order.machine.js';
import type { CommitWrite } from '../src/ports/store.port.js';

export type { OrderView } from '../machines/order-view.js';

/**
 * Record writes committed with an order's transition, all or nothing (the runtime's
 * `JoinedWrites`): computed from fresh reads by `join(context after the event)`, again after
 * a lost compare-and-set; a refusal it throws writes nothing. `events` go out with the
 * order's own, once durable.
 */
export interface OrderJoin {
  join?: (context: unknown) => Promise<{ writes: CommitWrite[]; events?: Array<{ stream: string; type: string; data: Record<string, unknown> }> }>;
}

/** The actor runtime as the trading core uses it for orders; `ActorRuntime` satisfies it structurally. */
export interface OrderActors {
  create(type: 'order', id: string, input: OrderInput, options?: OrderJoin): Promise<{ context: unknown }>;
  send(address: { type: 'order'; id: string }, event: OrderEvent, options?: OrderJoin): Promise<{ accepted: boolean; view: { context: unknown } }>;
  get(address: { type: 'order'; id: string }): Promise<{ context: unknown } | null>;
  find(
    type: 'order',
    query: { index: string; eq?: string; gte?: string; lte?: string },
    page: { limit: number; cursor?: string },
  ): Promise<{ items: Array<{ context: unknown }>; nextCursor?: string }>;
}
