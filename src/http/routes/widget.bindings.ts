import type { RestBinding } from './operation.routes.js';

const legacy = { subject: 'bot', tag: 'Legacy bots', deprecated: true } as const;

/**
 * The chat widget's owner routes (the legacy routes): like every legacy bot route they answer
 * `Deprecation: true` and a `Link` to their successor; someone else's bot is 404, as a missing one.
 */
export const WIDGET_BINDINGS: RestBinding[] = [
  { method: 'get', path: '/api/nest/bots/:botId/widget-config', operation: 'bot_widget_config_get', ...legacy },
  { method: 'put', path: '/api/nest/bots/:botId/widget-config', operation: 'bot_widget_config_set', ...legacy },
  { method: 'get', path: '/api/nest/bots/:botId/widget-events', operation: 'bot_widget_events', ...legacy },
];
