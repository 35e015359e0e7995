/**
 * Reads of the operator's legacy bots, each a hook with its loading and error state and `reload`.
 * `version`: the caller's change counter; a new value reads again.
 */
import type { BotTradingFeesChannelsInput } from 'agent-runtime-sdk';
import { client } from '../api.js';
import { useLoad } from '../hooks/use-load.js';

export type Platform = 'telegram' | 'discord';

export const useBots = () => useLoad(() => client.bots.list({ limit: 200 }), []);

export const useBot = (botId: string, version = 0) => useLoad(() => client.bots.get(botId), [botId, version]);

/** A messaging platform's configuration (token masked) and its connector's state. */
export const useMessagingConfig = (botId: string, platform: Platform, version = 0) =>
  useLoad(
    () => (platform === 'telegram' ? client.bots.telegramConfig(botId) : client.bots.discordConfig(botId)),
    [botId, platform, version],
  );

export const useFeesByChannel = (botId: string, range: BotTradingFeesChannelsInput) =>
  useLoad(() => client.bots.feesByChannel(botId, range), [botId, range.from, range.to]);

export const useBotCard = (botId: string, version = 0) => useLoad(() => client.botCards.get(botId), [botId, version]);
