/**
 * Agent ids as their owner knows them (issue 16, item 8). A caller-chosen agentId is scoped to
 * its owner: the agent's actor id, which must be unique (keys, orders, wallets, audit entries
 * and event streams name the agent by it), is `<ownerId>~<agentId>`. `~` is in no chosen id
 * (their grammar has no `~`), no generated one (`agt_<base64url>`) and no user id
 * (`usr_<base64url>`). Everything a client receives names the agent by the part after the
 * `~`, never by the actor id: it would differ from REST and leak the owner's user id.
 *
 * Pure and here, beside the order view, because every layer may import `machines/` (the
 * order machine's events carry that view), while machines may import nothing else.
 */
export const AGENT_SCOPE_SEPARATOR = '~';

/** The actor id of an agent whose owner chose its id. */
export function scopedActorId(ownerId: string, agentId: string): string {
  return `${ownerId}${AGENT_SCOPE_SEPARATOR}${agentId}`;
}

/** The id the owner chose (or was given) for the agent of `actorId`: after the first `~`; an id without one is unchanged. */
export function chosenAgentId(actorId: string): string {
  const at = actorId.indexOf(AGENT_SCOPE_SEPARATOR);
  return at === -1 ? actorId : actorId.slice(at + 1);
}
