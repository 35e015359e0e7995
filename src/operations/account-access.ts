import type { AgentsService } from '../accounts/agents.service.js';
import type { BotsService } from '../accounts/bots.service.js';
import type { OperationSubject } from './operation.types.js';

/**
 * Which agent or bot an operator's REST call acts on, checked for ownership before the
 * operation runs: someone else's is 404 (`Agent not found`, `Bot not found`), as a missing
 * one is. Surfaces ask this port instead of the account services (Surfaces reach Accounts
 * only through Operations).
 */
export interface AccountAccess {
  /** The named agent the user owns, or (no name) their default agent. */
  agent(userId: string, agentId?: string): Promise<OperationSubject>;
  /** A live bot the user owns. */
  bot(userId: string, botId: string): Promise<OperationSubject>;
  /** The operator who owns an agent (by its actor id), or null: the user behind an agent credential's call. */
  agentOwner(agentId: string): Promise<string | null>;
}

/** The account services as an `AccountAccess`. */
export function accountAccess(
  agents: Pick<AgentsService, 'tradingAgent' | 'ownerOf'>,
  bots: Pick<BotsService, 'ownedView'>,
): AccountAccess {
  return {
    // The actor id: a chosen agentId is scoped to its owner, the actor id is unique.
    agent: async (userId, agentId) => ({ type: 'agent', id: (await agents.tradingAgent(userId, agentId)).id }),
    bot: async (userId, botId) => ({ type: 'bot', id: (await bots.ownedView(userId, botId)).id }),
    agentOwner: (agentId) => agents.ownerOf(agentId),
  };
}
