/**
 * Agent ids as their owner knows them. A caller-chosen agentId is scoped to
 * its owner: the agent's actor id, which must be unique (keys, orders, wallets, audit entries
 * and event streams name the agent by it), is `<ownerId>~<agentId>`. `~` is in no chosen id
 * (their grammar has no `~`), no generated one (`agt_<base64url>`) and no user id
 * (`usr_<base64url>`). Everything a client receives names the agent by the part after the
 * `~`, never by the actor id: it would differ from REST and leak the owner's user id.
 *
 * Onboarded agents are the exception: an identity token's `sub` is the agentId, and a `sub`
 * must name one agent in the whole service. Onboarding now makes unscoped ids of its own
 * (`agt_<digest of the identity>`); the scoped ids it made before shared their part after the
 * `~` (every wallet's `erc8004-wallet`, every provider subject's `erc8004-agent`), so those
 * agents are named by their whole actor id, unique like every actor id. Their records all
 * name the agent by that actor id, so nothing stored has to move.
 *
 * Pure and here, beside the order view, because every layer may import `machines/` (the
 * order machine's events carry that view), while machines may import nothing else.
 */
export const AGENT_SCOPE_SEPARATOR = '~';

/** The owners provider onboarding made (`idp_<digest of iss and sub>`): no operator is one. */
const PROVIDER_OWNER_PREFIX = 'idp_';
/** The chosen ids wallet onboarding gave its agents before they were made unique. */
const LEGACY_WALLET_AGENT_ID = 'erc8004-wallet';
const LEGACY_SIWA_AGENT_PREFIX = 'erc8004:';

/** The actor id of an agent whose owner chose its id. */
export function scopedActorId(ownerId: string, agentId: string): string {
  return `${ownerId}${AGENT_SCOPE_SEPARATOR}${agentId}`;
}

/**
 * The agentId clients know for the agent of `actorId`: the part after the first `~` (the id
 * its owner chose), the whole id for an id without one and for a scoped id onboarding made.
 */
export function chosenAgentId(actorId: string): string {
  const at = actorId.indexOf(AGENT_SCOPE_SEPARATOR);
  if (at === -1) return actorId;
  const chosen = actorId.slice(at + 1);
  return isLegacyOnboardedId(actorId.slice(0, at), chosen) ? actorId : chosen;
}

/** A scoped id onboarding made before its ids were unique (see above). */
function isLegacyOnboardedId(ownerId: string, chosen: string): boolean {
  return ownerId.startsWith(PROVIDER_OWNER_PREFIX) || chosen === LEGACY_WALLET_AGENT_ID || chosen.startsWith(LEGACY_SIWA_AGENT_PREFIX);
}

/**
 * Chosen ids an operator may not take: the generated and onboarded ids' prefix, and the ids
 * onboarding used to choose, so that no operator's agent is ever named like another agent is.
 */
export function isReservedAgentId(agentId: string): boolean {
  return agentId.startsWith('agt_') || agentId === LEGACY_WALLET_AGENT_ID || agentId.startsWith(LEGACY_SIWA_AGENT_PREFIX);
}
