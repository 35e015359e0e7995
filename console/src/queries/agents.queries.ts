/**
 * Reads of the operator's agents, each a hook with its loading and error state and `reload`.
 * `version`: the caller's change counter; a new value reads again (a live event, a change made on the page).
 */
import { client } from '../api.js';
import { useLoad } from '../hooks/use-load.js';

export const useAgents = () => useLoad(() => client.agents.list({ limit: 200 }), []);

export const useAgent = (agentId: string) => useLoad(() => client.agents.get(agentId), [agentId]);

export const useWithdrawSettings = (agentId: string) => useLoad(() => client.agents.withdrawSettings(agentId), [agentId]);
