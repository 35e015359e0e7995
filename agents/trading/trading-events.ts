import type { TradingSubject } from '../portfolio/portfolio.types.js';

/** Event types of the trading core on an agent's stream (events). */
export type TradingEventType =
  | 'order.created'
  | 'order.updated'
  | 'position.updated'
  | 'wallet.updated'
  | 'risk.blocked'
  | 'dca.executed'
  | 'dca.failed';

/** Queues events for a stream, to go out once what they describe is durable (`DurablePublisher`). */
export interface StreamPublisher {
  publish(stream: string, events: Array<{ type: string; data: Record<string, unknown> }>): void;
}

/**
 * Publishes trading events on the subject's bus stream (`agent:<id>` / `bot:<id>`, the
 * stream the SSE and WebSocket surfaces read), through the runtime's publisher: once the
 * change is durable, in commit order with the order actors' events on that stream. Returns
 * at once; a lost notification is logged there, never a failure of the committed change.
 */
export class TradingEvents {
  constructor(private readonly publisher: StreamPublisher) {}

  publish(subject: TradingSubject, type: TradingEventType, data: Record<string, unknown>): void {
    this.publisher.publish(subjectStream(subject), [{ type, data }]);
  }
}

/** The bus stream of a subject's events (`agent:<id>` / `bot:<id>`). */
export function subjectStream(subject: TradingSubject): string {
  return `${subject.type}:${subject.id}`;
}
