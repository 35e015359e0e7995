import { chosenAgentId } from '../../machines/agent-id.js';
import type { AgentContext, AgentEvent, AgentInput } from '../../machines/agent.machine.js';
import type { KeyScope } from '../../kernel/vocabulary/scopes.js';
import { AUTH_STREAM } from '../../machines/auth-stream.js';
import { SCOPES_CHANGED } from '../auth/credentials/scope-caps.js';
import { messagePurpose } from '../auth/wallet/message-purpose.js';
import type { ProvenWallet, WalletLoginService } from '../auth/wallet/wallet-login.service.js';
import { AppError } from '../../kernel/errors/app-error.js';
import type { ActorCollection, ActorView } from '../../kernel/ports/actor-collection.port.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { AgentsService } from './agents.service.js';
import { userIdOfWallet, type UsersService } from './users.service.js';

/** The MCP and agent errors. */
const AGENT_ALREADY_CLAIMED = 'Agent already claimed';
/** Ours: the control routes that change an agent's credentials or money need the owner's claim first. */
const CLAIM_REQUIRED = 'Agent not claimed: claim it first with POST /api/nest/agents/:agentId/control/claim';
const NOT_OWNER_WALLET = "Message not signed by the agent's owner wallet";
const NO_OWNER_WALLET = 'Agent has no owner wallet to claim it with';

export interface ClaimAnswer {
  agentId: string;
  claimed: true;
  claimedBy: string;
  claimedAt: string;
}

export interface AgentControlDeps {
  agents: ActorCollection<AgentContext, AgentEvent, AgentInput>;
  accounts: Pick<AgentsService, 'ownedView' | 'firstMadeAs' | 'claimedByAnother'>;
  users: Pick<UsersService, 'get'>;
  wallet: Pick<WalletLoginService, 'prove'>;
  /** This process's scope caps, dropped at once (other processes hear it on the bus). */
  caps: { evict(agentActorId: string): void };
  clock: ClockPort;
}

/**
 * The agent control plane's claim and scope cap (agent control plane). A claim is
 * proof of control of the agent's owner wallet — the wallet it was onboarded with, or for an
 * agent an operator created, that operator's wallet — by a fresh signed sign-in message
 * whose statement claims the agent (`Claim agent <agentId>`: made for a claim, which no other
 * route takes). The first claim makes the operator its owner; the same operator again
 * verifies; any other operator is refused (409), whatever wallet signed. Both are events of
 * the agent actor, so they are journaled.
 */
export class AgentControlService {
  constructor(private readonly deps: AgentControlDeps) {}

  /** `POST /api/nest/agents/:agentId/control/claim {message, signature}`. */
  async claim(userId: string, agentId: string, input: { message: string; signature: string }): Promise<ClaimAnswer> {
    const statementRequired = () => AppError.validation([`message: its statement must start with Claim and name the agent (${agentId})`]);
    // A message of no purpose of its own is a claim without its statement; other purposes are refused as such (401).
    if (messagePurpose(input.message) === 'sign-in') throw statementRequired();
    let target: ActorView<AgentContext> | undefined;
    let proven: ProvenWallet | undefined;
    // Every check runs before the nonce is spent: a refused claim can be corrected and sent again.
    await this.deps.wallet.prove({
      ...input,
      purpose: 'claim',
      beforeConsume: async (wallet) => {
        if (!namesAgent(wallet.statement, agentId)) throw statementRequired();
        const view = await this.claimable(userId, agentId, wallet);
        // Another operator's claim stands whichever wallet signed this one.
        if (view.context.claim && view.context.claim.claimedBy !== userId) throw AppError.conflict(AGENT_ALREADY_CLAIMED);
        const owner = await this.ownerWallet(view);
        if (!owner) throw AppError.forbidden(NO_OWNER_WALLET);
        if (owner.chain !== wallet.chain || owner.address.toLowerCase() !== wallet.address.toLowerCase())
          throw AppError.forbidden(NOT_OWNER_WALLET);
        target = view;
        proven = wallet;
      },
    });
    const view = target!;
    const at = this.deps.clock.now();
    if (!view.context.claim) {
      const { accepted, view: after } = await this.deps.agents.send(view.id, { type: 'agent.claim', userId, wallet: proven!.address, at });
      if (accepted) return answer(after);
      // Claimed meanwhile: by this operator it is a verification, by anyone else a conflict.
      if (after.context.claim?.claimedBy !== userId) throw AppError.conflict(AGENT_ALREADY_CLAIMED);
    }
    const { accepted, view: after } = await this.deps.agents.send(view.id, { type: 'agent.claim.verify', userId, at });
    if (!accepted) throw AppError.conflict(AGENT_ALREADY_CLAIMED);
    return answer(after);
  }

  /** 403 unless `userId` claimed the agent (scopes, key rotation and withdrawal settings need it). */
  async requireClaim(userId: string, agentActorId: string): Promise<void> {
    const view = await this.deps.agents.get(agentActorId);
    if (view?.context.claim?.claimedBy !== userId) throw AppError.forbidden(CLAIM_REQUIRED);
  }

  /**
   * `PUT .../control/scopes {maxScope}`: every credential of the agent acts with at most
   * `maxScope` from the answer on, on every process (the change travels the auth stream once
   * durable, as a revocation does).
   */
  async setScopes(agentActorId: string, maxScope: KeyScope): Promise<{ agentId: string; maxScope: KeyScope }> {
    return this.changeScopes(agentActorId, { type: 'agent.scopes.set', maxScope });
  }

  /**
   * A manage credential's own lowering: the agent's actor keeps the lower of the stored cap and
   * `maxScope`, so a call that passed on a cap cached before the owner lowered it further cannot raise it.
   */
  async lowerScopes(agentActorId: string, maxScope: KeyScope): Promise<{ agentId: string; maxScope: KeyScope }> {
    return this.changeScopes(agentActorId, { type: 'agent.scopes.lower', maxScope });
  }

  private async changeScopes(
    agentActorId: string,
    event: Extract<AgentEvent, { type: 'agent.scopes.set' | 'agent.scopes.lower' }>,
  ): Promise<{ agentId: string; maxScope: KeyScope }> {
    const { view } = await this.deps.agents.send(agentActorId, event, {
      // The stored cap after the change, which a lowering may have left as it was.
      join: async (context) => ({
        writes: [],
        events: [
          { stream: AUTH_STREAM, type: SCOPES_CHANGED, data: { agentId: agentActorId, maxScope: context.maxScope ?? event.maxScope } },
        ],
      }),
    });
    this.deps.caps.evict(agentActorId);
    return { agentId: chosenAgentId(view.context.agentId), maxScope: view.context.maxScope ?? event.maxScope };
  }

  /**
   * The agent a claim names: the operator's own (or already claimed) agent of that id, else
   * the one the signing wallet's user made or onboarded under it, whoever owns it now, else
   * one of that id another operator claimed.
   */
  private async claimable(userId: string, agentId: string, wallet: ProvenWallet): Promise<ActorView<AgentContext>> {
    const view =
      (await this.deps.accounts.ownedView(userId, agentId).catch(() => null)) ??
      (await this.deps.accounts.firstMadeAs(userIdOfWallet(wallet.chain, wallet.address), agentId)) ??
      (await this.deps.accounts.claimedByAnother(userId, agentId));
    // An archived agent takes no event: nothing to claim.
    if (!view || view.state === 'archived') throw AppError.notFound('Agent not found');
    return view;
  }

  /** The wallet a claim must be signed by: the claim's once made, else the first owner's (the onboarding or creating wallet). */
  private async ownerWallet(view: ActorView<AgentContext>): Promise<{ chain: 'solana' | 'evm'; address: string } | null> {
    const { claim, ownerId } = view.context;
    if (claim) return { chain: claim.wallet.startsWith('0x') ? 'evm' : 'solana', address: claim.wallet };
    const user = await this.deps.users.get(ownerId);
    return user ? { chain: user.chain, address: user.walletAddress } : null;
  }
}

/** The statement names the agent when the agentId is one of its words. */
function namesAgent(statement: string | undefined, agentId: string): boolean {
  return statement?.split(/\s+/).some((word) => word === agentId || word.replace(/^[("'`]+|[)"'`.,;:!?]+$/g, '') === agentId) ?? false;
}

function answer(view: ActorView<AgentContext>): ClaimAnswer {
  const claim = view.context.claim!;
  return {
    agentId: chosenAgentId(view.context.agentId),
    claimed: true,
    claimedBy: claim.claimedBy,
    claimedAt: new Date(claim.claimedAt).toISOString(),
  };
}
