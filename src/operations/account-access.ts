import type { AgentsService } from '../accounts/agents.service.js';
import type { BotsService } from '../accounts/bots.service.js';
import type { SubjectStatus } from '../../agents/portfolio/portfolio.types.js';
import { statusOfView } from '../../agents/portfolio/status-reader.js';
import type { OperationSubject } from './operation.types.js';
import type { ActorView } from '../../kernel/ports/actor-collection.port.js';
import type { AgentContext } from '../../machines/agent.machine.js';

/** The account a call acts on, as the boundary read it once for that call (`CallContext.account`). */
export interface AccountContext {
  subject: OperationSubject;
  account: SubjectStatus;
}

/**
 * Which agent or bot an operator's REST call acts on, checked for ownership before the
 * operation runs: someone else's is 404 (`Agent not found`, `Bot not found`), as a missing
 * one is. Surfaces ask this port instead of the account services (Surfaces reach Accounts
 * only through Operations). Each answer carries the account's status as read by that lookup,
 * so the operation does not read the same actor again.
 */
export interface AccountAccess {
  /** The named agent the user owns, or (no name) their default agent. */
  agent(userId: string, agentId?: string): Promise<AccountContext>;
  /** A live bot the user owns. */
  bot(userId: string, botId: string): Promise<AccountContext>;
  /**
   * The operator who owns an agent (by its actor id), or null: the user behind an agent
   * credential's call; with the agent's status when it exists.
   */
  agentOwner(agentId: string): Promise<CredentialAccount>;
  /** `agentOwner` of an agent the request read already (resolving its credential): no read. */
  agentOwnerOf(view: ActorView<AgentContext>): CredentialAccount;
}

/** The operator behind an agent credential's call, and the agent's status when it exists. */
export interface CredentialAccount {
  ownerId: string | null;
  account?: SubjectStatus;
}

function ownerOfView(view: ActorView<AgentContext>): CredentialAccount {
  return { ownerId: view.context.ownerId ?? null, account: accountOfAgent(view) };
}

/** The account (`CallContext.account`) of an agent whose view the request read. */
export function accountOfAgent(view: ActorView<AgentContext>): SubjectStatus {
  return statusOfView({ type: 'agent', id: view.id }, view);
}

/** The account services as an `AccountAccess`. */
export function accountAccess(agents: Pick<AgentsService, 'tradingAgent' | 'view'>, bots: Pick<BotsService, 'ownedView'>): AccountAccess {
  return {
    // The actor id: a chosen agentId is scoped to its owner, the actor id is unique.
    agent: async (userId, agentId) => {
      const view = await agents.tradingAgent(userId, agentId);
      const subject: OperationSubject = { type: 'agent', id: view.id };
      return { subject, account: statusOfView(subject, view) };
    },
    bot: async (userId, botId) => {
      const view = await bots.ownedView(userId, botId);
      const subject: OperationSubject = { type: 'bot', id: view.id };
      return { subject, account: statusOfView(subject, view) };
    },
    agentOwner: async (agentId) => {
      const view = await agents.view(agentId);
      return view ? ownerOfView(view) : { ownerId: null };
    },
    agentOwnerOf: ownerOfView,
  };
}
