/**
 * Reads of an agent's DCA strategies, each a hook with its loading and error state and `reload`.
 * `version`: the caller's change counter; a new value reads again (a live event, a change made on the page).
 */
import { client } from '../api.js';
import { useLoad } from '../hooks/use-load.js';

export const useStrategies = (agentId: string, version = 0) =>
  useLoad(() => client.dca.list({ limit: 200 }, { agentId }), [agentId, version]);

export const useDcaStats = (agentId: string, version = 0) => useLoad(() => client.dca.stats({ agentId }), [agentId, version]);
