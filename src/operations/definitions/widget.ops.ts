import { z } from 'zod';
import { AppError } from '../../../kernel/errors/app-error.js';
import { WIDGET_EVENT_TYPES } from '../../observability/widget.metrics.js';
import { widgetConfigSchema, type WidgetConfigs } from '../../widget/widget-config.service.js';
import { widgetEventSchema, type WidgetEvents } from '../../widget/widget-events.service.js';
import { widgetChatSchema } from '../../widget/widget.schemas.js';
import type { WidgetService } from '../../widget/widget.service.js';
import { defineOperation } from '../operation-definition.js';
import type { CallContext, OperationContext, WidgetCaller } from '../operation.types.js';
import { isoTime } from './output-fields.js';

const configOutput = z.object({
  allowedOrigins: z.array(z.string()),
  enabled: z.boolean(),
  updatedAt: isoTime.optional(),
});

const eventsOutput = z.object({
  events: z.array(
    z.object({
      type: z.enum(WIDGET_EVENT_TYPES),
      detail: z.string().optional(),
      session: z.string().describe('The widget session that reported it (an id, not its token)'),
      origin: z.string(),
      at: isoTime,
    }),
  ),
});

function botOf(ctx: OperationContext): string {
  if (ctx.subject.type !== 'bot') throw AppError.notFound('Bot not found');
  return ctx.subject.id;
}

/**
 * The chat widget's owner side (the legacy routes, chat widget): its configuration
 * (allowed origins, on/off) and the client-side events its widgets reported. Operator-only,
 * on bots the operator owns.
 */
export function widgetOperations(deps: { configs: WidgetConfigs; events: WidgetEvents }) {
  const operator = { family: 'bots', principals: ['operator'] } as const;
  return [
    defineOperation({
      ...operator,
      minScope: 'read',
      name: 'bot_widget_config_get',
      description: "The bot's chat widget configuration: the origins allowed to embed it, and whether it is on.",
      input: z.object({}).strict(),
      output: configOutput,
      annotations: { readOnly: true, idempotent: true },
      handler: (ctx) => deps.configs.get(botOf(ctx)),
    }),
    defineOperation({
      ...operator,
      minScope: 'manage',
      name: 'bot_widget_config_set',
      description:
        "Update the bot's chat widget configuration: the fields given are replaced, the others kept. A page whose origin is not listed gets 403 `Origin not allowed` from the widget's `init`.",
      input: widgetConfigSchema,
      output: configOutput,
      annotations: { destructive: false, idempotent: true },
      handler: (ctx, input) => deps.configs.update(botOf(ctx), input),
    }),
    defineOperation({
      ...operator,
      minScope: 'read',
      name: 'bot_widget_events',
      description:
        "Client-side events the bot's chat widgets reported (open, close, message_shown, error), newest first; the newest 200 are kept.",
      input: z.object({ limit: z.coerce.number().int().min(1).max(200).default(50).describe('How many, 1-200 (default 50)') }).strict(),
      output: eventsOutput,
      annotations: { readOnly: true, idempotent: true },
      handler: async (ctx, input) => ({ events: await deps.events.list(botOf(ctx), input.limit) }),
    }),
  ];
}

/** The widget session behind a `widget` call (the routes resolve it from the session token). */
function widgetCallerOf(ctx: CallContext): WidgetCaller {
  if (ctx.principal.type !== 'widget-session') throw AppError.forbidden();
  return ctx.principal;
}

/**
 * What a widget on a page does, as catalog operations of the `widget` principal: the
 * routes resolve the session (origin, token, per-session budget) and call the invoker, so a
 * widget's chat is audited, switched off with the `chat` family (as MCP's `ask_bot` is; the
 * owner's console chat `bot_chat` is the `bots` family's), and answered once durable.
 */
export function widgetSessionOperations(widget: Pick<WidgetService, 'chat' | 'event'>) {
  const session = { family: 'chat', principals: ['widget'], minScope: 'read' } as const;
  return [
    defineOperation({
      ...session,
      name: 'widget_chat',
      description:
        "A message from the bot's chat widget, answered by the bot's chat core; trade commands run only after the bot's owner signed in inside the widget.",
      input: widgetChatSchema,
      handler: (ctx, input) => widget.chat(widgetCallerOf(ctx), input),
    }),
    defineOperation({
      ...session,
      name: 'widget_event',
      description: 'A client-side event of the widget (open, close, message_shown, error), kept for the bot owner and counted in /metrics.',
      input: widgetEventSchema,
      output: z.object({ accepted: z.literal(true) }),
      handler: async (ctx, input) => {
        await widget.event(widgetCallerOf(ctx), input);
        return { accepted: true as const };
      },
    }),
  ];
}
