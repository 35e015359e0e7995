import { z } from 'zod';
import type { WidgetMetrics } from '../observability/widget.metrics.js';
import { WIDGET_EVENT_TYPES } from '../observability/widget.metrics.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { CollectionSpec, StorePort } from '../../kernel/ports/store.port.js';
import { escapeUnsafe } from '../../kernel/shared/escape-unsafe.js';
import { updateRecord } from '../../kernel/shared/record-update.js';

/**
 * Client-side widget events (the events, `POST /api/widget/:botId/client-event`): a few
 * known types with a short detail, kept for the bot's owner as one capped record per bot
 * (the newest 200; a record nobody wrote to for 30 days is dropped) and counted in `/metrics`.
 */
export const WIDGET_EVENT_COLLECTION: CollectionSpec = { name: 'bots.widget-events', indexes: [] };

const MAX_KEPT = 200;
const KEPT_MS = 30 * 24 * 3600_000;

export const widgetEventSchema = z
  .object({
    type: z.enum(WIDGET_EVENT_TYPES).describe('`open`, `close`, `message_shown` or `error`'),
    detail: z.string().max(200).optional().describe('A short note, up to 200 characters (the error shown, say)'),
  })
  .strict();

export interface WidgetEvent {
  type: (typeof WIDGET_EVENT_TYPES)[number];
  detail?: string;
  /** Which widget session reported it (a prefix of the session's id, never its token). */
  session: string;
  origin: string;
  /** ISO 8601. */
  at: string;
}

export class WidgetEvents {
  constructor(private readonly deps: { store: StorePort; clock: ClockPort; metrics: WidgetMetrics }) {}

  async record(botId: string, event: Omit<WidgetEvent, 'at'>): Promise<void> {
    const now = this.deps.clock.now();
    const kept: WidgetEvent = { ...event, at: new Date(now).toISOString() };
    await updateRecord<{ events: WidgetEvent[] }>(this.deps.store, { collection: WIDGET_EVENT_COLLECTION.name, id: botId }, (current) => ({
      data: { events: [...(current?.data.events ?? []), kept].slice(-MAX_KEPT) },
      expiresAt: now + KEPT_MS,
    }));
    this.deps.metrics.observeEvent(event.type);
  }

  /** The newest `limit` events, newest first; a detail is any page's text, shown with control and bidi characters escaped. */
  async list(botId: string, limit: number): Promise<WidgetEvent[]> {
    const doc = await this.deps.store.get<{ events: WidgetEvent[] }>(WIDGET_EVENT_COLLECTION.name, botId);
    return [...(doc?.data.events ?? [])]
      .reverse()
      .slice(0, limit)
      .map((event) => (event.detail === undefined ? event : { ...event, detail: escapeUnsafe(event.detail) }));
  }
}
