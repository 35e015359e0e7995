import type { RestBinding } from './operation.routes.js';

const BOTS = 'Legacy bots';
const legacy = { subject: 'bot', tag: BOTS, deprecated: true } as const;

/**
 * The rest of the legacy bot surface (the legacy routes): web chat, messaging configuration,
 * platform connectors, fees by channel. Like every legacy route they answer `Deprecation:
 * true` and a `Link` to their successor; someone else's bot is 404, as a missing one.
 */
export const BOT_SURFACE_BINDINGS: RestBinding[] = [
  { method: 'post', path: '/api/nest/bots/:botId/chat', operation: 'bot_chat', ...legacy },
  { method: 'get', path: '/api/nest/bots/:botId/telegram-config', operation: 'bot_telegram_config_get', ...legacy },
  { method: 'put', path: '/api/nest/bots/:botId/telegram-config', operation: 'bot_telegram_config_set', ...legacy },
  { method: 'get', path: '/api/nest/bots/:botId/discord-config', operation: 'bot_discord_config_get', ...legacy },
  { method: 'put', path: '/api/nest/bots/:botId/discord-config', operation: 'bot_discord_config_set', ...legacy },
  { method: 'post', path: '/api/nest/bots/:botId/platforms/:platform/start', operation: 'bot_platform_start', ...legacy },
  { method: 'post', path: '/api/nest/bots/:botId/platforms/:platform/stop', operation: 'bot_platform_stop', ...legacy },
  { method: 'get', path: '/api/nest/bots/:botId/trading/fees/channels', operation: 'bot_trading_fees_channels', ...legacy },
];
