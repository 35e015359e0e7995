import type { EventBusPort } from '../src/ports/event-bus.port.js';
import type { TradingSubject } from './portfolio.types.js';

/** Event types of the trading core on an agent's stream (CONTRACT "Events"). */
export type TradingEventType =
  | 'order.created'
  | 'order.updated'
  | 'position.updated'
  | 'wallet.updated'
  | 'risk.blocked'
  | 'dca.executed'
  | 'dca.failed';

/** Where a lost notification is reported; a pino logger fits. */
export interface EventFailureLog {
  error(details: Record<string, unknown>, message: string): void;
}

/**
 * Publishes trading events on the subject's bus stream (`agent:<id>` / `bot:<id>`, the
 * stream the SSE and WebSocket surfaces read). Called after the change is durable; a
 * publish failure is logged, never turned into a failure of the committed change.
 */
export class TradingEvents {
  constructor(
    private readonly bus: EventBusPort,
    private readonly log: EventFailureLog,
  ) {}

  async publish(subject: TradingSubject, type: TradingEventType, data: Record<string, unknown>): Promise<void> {
    try {
      await this.bus.publish(`${subject.type}:${subject.id}`, { type, data });
    } catch (error) {
      this.log.error({ err: error, subject: `${subject.type}:${subject.id}`, type }, 'trading event publish failed');
    }
  }
}
