/**
 * Chat widget figures of `/metrics`: sessions started or refused at `init`, and the
 * client-side events widgets report (open, close, message shown, error).
 */
import { Counter, type Registry } from 'prom-client';

export const WIDGET_EVENT_TYPES = ['open', 'close', 'message_shown', 'error'] as const;
export type WidgetEventType = (typeof WIDGET_EVENT_TYPES)[number];
type InitOutcome = 'started' | 'refused';

export class WidgetMetrics {
  private readonly events: Counter<'type'>;
  private readonly inits: Counter<'outcome'>;

  constructor(registry: Registry, prefix = '') {
    const registers = [registry];
    this.events = new Counter({
      name: `${prefix}widget_client_events_total`,
      help: 'Client-side events reported by chat widgets, by type',
      labelNames: ['type'],
      registers,
    });
    this.inits = new Counter({
      name: `${prefix}widget_sessions_total`,
      help: 'Widget session starts: started, or refused (origin not allowed, widget off)',
      labelNames: ['outcome'],
      registers,
    });
    // Every label shows from the start (at 0), so a rate exists before the first event.
    for (const type of WIDGET_EVENT_TYPES) this.events.inc({ type }, 0);
    for (const outcome of ['started', 'refused'] as const) this.inits.inc({ outcome }, 0);
  }

  observeEvent(type: WidgetEventType): void {
    this.events.inc({ type });
  }

  observeInit(outcome: InitOutcome): void {
    this.inits.inc({ outcome });
  }
}
