/**
 * Reads of a legacy bot's chat widget: its configuration and the client events its widgets sent.
 * `version`: the caller's change counter; a new value reads again.
 */
import { client } from '../api.js';
import { useLoad } from '../hooks/use-load.js';

export const useWidgetConfig = (botId: string, version = 0) => useLoad(() => client.bots.widgetConfig(botId), [botId, version]);

export const useWidgetEvents = (botId: string) => useLoad(() => client.bots.widgetEvents(botId, { limit: 50 }), [botId]);
