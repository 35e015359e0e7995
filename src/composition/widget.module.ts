import type { BotChat } from '../../agents/chat/bot-chat.js';
import { botDefinition } from '../../machines/bot.machine.js';
import type { WalletLoginService } from '../auth/wallet/wallet-login.service.js';
import type { RequestHandler } from 'express';
import { WIDGET_BINDINGS } from '../http/routes/widget.bindings.js';
import { createWidgetRoutes } from '../http/routes/widget.routes.js';
import { widgetOperations, widgetSessionOperations } from '../operations/definitions/widget.ops.js';
import type { OperationInvoker } from '../operations/operation-invoker.js';
import { WIDGET_CONFIG_COLLECTION, WidgetConfigs } from '../widget/widget-config.service.js';
import { WIDGET_EVENT_COLLECTION, WidgetEvents } from '../widget/widget-events.service.js';
import { widgetScript } from '../widget/widget-script.js';
import { WIDGET_SESSION_COLLECTION, WidgetSessions } from '../widget/widget-sessions.service.js';
import { WidgetService } from '../widget/widget.service.js';
import type { FeatureModule, ModuleContext } from './feature-module.types.js';

/**
 * The public chat widget of legacy bots (the legacy routes): its owner routes and a
 * session's chat and client events are catalog operations (the latter of the `widget`
 * principal); the script, session start and the owner's wallet sign-in stay outside it, like
 * sign-in, since their caller has no credential yet. Chat goes to the bot surface's chat core.
 */
export function widgetModule(
  ctx: ModuleContext,
  needs: {
    chat: Pick<BotChat, 'send'>;
    wallet: WalletLoginService;
    publicLimit: RequestHandler;
    invoker: Pick<OperationInvoker, 'invoke'>;
  },
): FeatureModule {
  const configs = new WidgetConfigs({ store: ctx.store, clock: ctx.clock });
  const events = new WidgetEvents({ store: ctx.store, clock: ctx.clock, metrics: ctx.metrics.widget });
  const widget = new WidgetService({
    configs,
    sessions: new WidgetSessions({ store: ctx.store, clock: ctx.clock }),
    events,
    chat: needs.chat,
    bots: ctx.runtime.collection(botDefinition),
    wallet: needs.wallet,
    metrics: ctx.metrics.widget,
  });
  return {
    name: 'widget',
    definitions: [],
    collections: [WIDGET_CONFIG_COLLECTION, WIDGET_SESSION_COLLECTION, WIDGET_EVENT_COLLECTION],
    operations: [...widgetOperations({ configs, events }), ...widgetSessionOperations(widget)],
    bindings: WIDGET_BINDINGS,
    routers: [
      createWidgetRoutes({ widget, invoker: needs.invoker, limiter: ctx.limiter, publicLimit: needs.publicLimit, script: widgetScript }),
    ],
    dueJobs: [],
    // Bundled before the server takes requests: the first page to ask does not wait for esbuild.
    start: async () => {
      await widgetScript();
    },
  };
}
