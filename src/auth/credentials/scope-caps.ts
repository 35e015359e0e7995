import { scopeCovers, type KeyScope } from '../../../kernel/vocabulary/scopes.js';
import type { AgentContext } from '../../../machines/agent.machine.js';
import { AUTH_STREAM } from '../../../machines/auth-stream.js';
import type { ActorCollection, ActorView } from '../../../kernel/ports/actor-collection.port.js';
import type { ClockPort } from '../../../kernel/ports/clock.port.js';
import type { EventBusPort } from '../../../kernel/ports/event-bus.port.js';

/** The bus event (on the auth stream) that tells every process an agent's scope cap changed. */
export const SCOPES_CHANGED = 'agent.scopes.changed';

/** A change reaches every process through the bus; this bounds staleness should the bus ever miss one. */
const CACHE_MS = 30_000;
const MAX_CACHED = 100_000;

/**
 * The scope cap of each agent (`PUT .../control/scopes {maxScope}`): every credential of the
 * agent, keys and identity tokens alike, acts with at most this scope. Read from the agent
 * actor, kept per process and dropped at once when `agent.scopes.changed` reaches it on the
 * auth stream (the changing process drops its own before it answers), as revocations are.
 */
export class ScopeCaps {
  private readonly cache = new Map<string, { cap: KeyScope | undefined; until: number }>();

  constructor(
    private readonly agents: Pick<ActorCollection<AgentContext>, 'get'>,
    private readonly clock: ClockPort,
    private readonly bus: EventBusPort,
  ) {}

  async start(): Promise<void> {
    await this.bus.subscribe(AUTH_STREAM, (event) => {
      const agentId = event.data.agentId;
      if (event.type === SCOPES_CHANGED && typeof agentId === 'string') this.evict(agentId);
    });
  }

  evict(agentActorId: string): void {
    this.cache.delete(agentActorId);
  }

  /** `cap`'s answer when the agent's cap is cached and fresh (no promise); undefined: ask `cap`. */
  peek(agentActorId: string, scope: KeyScope): KeyScope | undefined {
    const hit = this.cache.get(agentActorId);
    if (!hit || hit.until <= this.clock.now()) return undefined;
    return hit.cap !== undefined && !scopeCovers(hit.cap, scope) ? hit.cap : scope;
  }

  /** `scope`, lowered to the agent's cap when it has one below it. */
  async cap(agentActorId: string, scope: KeyScope): Promise<KeyScope> {
    return (await this.capRead(agentActorId, scope)).scope;
  }

  /**
   * `cap`, with the agent's view when this call read it (not when the cap came from the
   * cache): the request's boundary takes its account from that read instead of reading the
   * agent a second time.
   */
  async capRead(agentActorId: string, scope: KeyScope): Promise<{ scope: KeyScope; agent?: ActorView<AgentContext> }> {
    const now = this.clock.now();
    const hit = this.cache.get(agentActorId);
    let cap: KeyScope | undefined;
    let agent: ActorView<AgentContext> | undefined;
    if (hit && hit.until > now) cap = hit.cap;
    else {
      agent = (await this.agents.get(agentActorId)) ?? undefined;
      cap = agent?.context.maxScope;
      if (this.cache.size >= MAX_CACHED) this.cache.clear();
      this.cache.set(agentActorId, { cap, until: now + CACHE_MS });
    }
    const capped = cap !== undefined && !scopeCovers(cap, scope) ? cap : scope;
    return agent ? { scope: capped, agent } : { scope: capped };
  }
}
