import type { AgentContext } from '../../machines/agent.machine.js';
import type { KeyScope } from '../../kernel/vocabulary/scopes.js';
import type { BotContext } from '../../machines/bot.machine.js';
import { bearer, type CredentialResolver, type Principal } from '../auth/credentials/credential-resolver.js';
import type { SessionPrincipal } from '../auth/session/session.service.js';
import { AppError } from '../../kernel/errors/app-error.js';
import type { Viewer } from '../operations/operation-catalog.js';
import type { CallContext, OperationSubject } from '../operations/operation.types.js';
import { accountOfAgent } from '../operations/account-access.js';
import type { ActorCollection, ActorView } from '../../kernel/ports/actor-collection.port.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';

/** What an MCP request (tools or events) may act on, and as whom. */
export interface McpAccess {
  principal: Principal;
  subject: OperationSubject;
  scope: KeyScope;
  viewer: Viewer;
  /** Owner of the agent or bot. */
  userId: string;
  /** `Tool not found: <name>` instead of `Method not found` for hidden tools. */
  granularErrors: boolean;
  /** The agent's status as resolving the credential read it in this request, when it did (see `CallContext.account`). */
  account?: CallContext['account'];
}

/** The MCP and agent errors: unknown or inactive publicId, or a credential for another agent. */
const AGENT_NOT_FOUND = 'Agent not found';

/** Opt-in reuse of publicId lookups, for the hot MCP path. */
export interface McpAccessCacheOptions {
  /**
   * How long one lookup of an active agent or bot answers for its publicId. Bounds how late
   * a deactivation or a bot's MCP config change reaches MCP calls; credentials are never
   * cached here (the key cache evicts revocations at once).
   */
  ttlMs: number;
  clock: ClockPort;
}

/** What an MCP request may act on, found by its publicId. */
interface Target {
  subject: OperationSubject;
  ownerId: string;
  disabledFamilies: string[];
  granularErrors: boolean | undefined;
}
const MAX_CACHED_TARGETS = 10_000;
/** Grants reused by `resolveCached`, one per Authorization header; past this the map starts over. */
const MAX_CACHED_GRANTS = 10_000;

/** A cached lookup: `value` once it resolved (what `resolveCached` reads without waiting). */
interface CachedTarget {
  target: Promise<Target | null>;
  until: number;
  value?: Target | null;
}

/** The last grant built for one Authorization header, reused while its parts are the same objects. */
interface Grant {
  token: string;
  publicId: string;
  principal: Principal;
  target: Target;
  access: McpAccess;
}

/**
 * Resolves `/mcp/:publicId` plus a bearer credential to an access grant: 401 for a bad,
 * revoked or expired credential; 403 for a valid credential this endpoint does not serve (an
 * operator session); 404 `Agent not found` for an unknown or inactive publicId and for a
 * credential that does not operate that agent (or legacy bot).
 */
export class McpAccessResolver {
  private readonly targets = new Map<string, CachedTarget>();
  private readonly grants = new Map<string, Grant>();

  constructor(
    /** Agents and legacy bots, looked up by their `publicId` index. */
    private readonly actors: { agents: Pick<ActorCollection<AgentContext>, 'find'>; bots: Pick<ActorCollection<BotContext>, 'find'> },
    private readonly credentials: CredentialResolver,
    private readonly defaultGranularErrors: boolean,
    /** Absent: every request reads the store. */
    private readonly cache?: McpAccessCacheOptions,
  ) {}

  /**
   * `ownerSession` (the event streams only, never tools): the signed-in owner of an agent may
   * read its events with their session, read scope, so the console shows them without minting
   * a key behind the person's back. Another user's session is 404, as another agent's key is.
   */
  async resolve(publicId: string, authorization: string | undefined, options: { ownerSession?: boolean } = {}): Promise<McpAccess> {
    const { principal, agent } = await this.credentials.resolveWithAgent(authorization, {
      identityTokenRoute: true,
      mcpPublicId: publicId,
    });
    if (principal.type === 'session') {
      // A valid credential of a kind this surface does not serve (DECISIONS, HTTP): 403, not 401.
      if (!options.ownerSession) throw AppError.forbidden();
      return this.ownerSessionAccess(publicId, principal);
    }
    // The credential's agent, read just now for its scope cap, tells whether it is this
    // publicId's agent (publicIds are unique) without a lookup by publicId; its status passes
    // down as the call's account.
    if (agent && principal.type !== 'bot-key' && agent.id === principal.ownerId) {
      const own = agentTarget(agent);
      if (!own || agent.context.publicId !== publicId) throw AppError.notFound(AGENT_NOT_FOUND);
      return {
        principal,
        subject: own.subject,
        scope: principal.scope,
        viewer: { kind: 'agent', scope: principal.scope, disabledFamilies: own.disabledFamilies },
        userId: own.ownerId,
        granularErrors: own.granularErrors ?? this.defaultGranularErrors,
        account: accountOfAgent(agent),
      };
    }
    const target = await this.cachedTarget(publicId);
    const access = target ? this.accessOf(principal, target) : undefined;
    if (!access) throw AppError.notFound(AGENT_NOT_FOUND);
    return access;
  }

  /**
   * `resolve`'s grant without a promise when everything it needs is already in this process's
   * caches and still valid under their rules: the credential (`CredentialResolver.peek`: a
   * revocation, expiry or scope change evicts it at once) and the publicId lookup (within
   * its TTL). Undefined whenever any part is not (or the answer would be a refusal): the
   * caller then asks `resolve`, which decides and refuses. The same grant object is handed
   * out again while its credential and lookup are the same objects, so a hot agent's calls
   * allocate none.
   */
  resolveCached(publicId: string, authorization: string | undefined): McpAccess | undefined {
    if (!this.cache || authorization === undefined) return undefined;
    const cached = this.targets.get(publicId);
    const target = cached?.value;
    if (!target || cached.until <= this.cache.clock.now()) return undefined;
    const last = this.grants.get(authorization);
    const token = last ? last.token : bearer(authorization);
    if (token === undefined) return undefined;
    const principal = this.credentials.peek(token);
    if (!principal) return undefined;
    if (last && last.publicId === publicId && last.principal === principal && last.target === target) return last.access;
    const access = this.accessOf(principal, target);
    if (!access) return undefined;
    if (this.grants.size >= MAX_CACHED_GRANTS) this.grants.clear();
    this.grants.set(authorization, { token, publicId, principal, target, access });
    return access;
  }

  /** The grant of an agent credential on `target`; undefined when it does not operate that agent or bot. */
  private accessOf(principal: Exclude<Principal, SessionPrincipal>, target: Target): McpAccess | undefined {
    // An identity token or OAuth access token operates its own agent, as an agent key does.
    const kind = principal.type === 'bot-key' ? 'bot' : 'agent';
    if (target.subject.type !== kind || target.subject.id !== principal.ownerId) return undefined;
    return {
      principal,
      subject: target.subject,
      scope: principal.scope,
      viewer: { kind, scope: principal.scope, disabledFamilies: target.disabledFamilies },
      userId: target.ownerId,
      granularErrors: target.granularErrors ?? this.defaultGranularErrors,
    };
  }

  private async ownerSessionAccess(publicId: string, principal: SessionPrincipal): Promise<McpAccess> {
    const target = await this.cachedTarget(publicId);
    if (target?.subject.type !== 'agent' || target.ownerId !== principal.userId) throw AppError.notFound(AGENT_NOT_FOUND);
    return {
      principal,
      subject: target.subject,
      scope: 'read',
      viewer: { kind: 'agent', scope: 'read', disabledFamilies: target.disabledFamilies },
      userId: target.ownerId,
      granularErrors: target.granularErrors ?? this.defaultGranularErrors,
    };
  }

  /** `findByPublicId`, reused for `cache.ttlMs`; concurrent first requests share one lookup, misses are not kept. */
  private cachedTarget(publicId: string): Promise<Target | null> {
    if (!this.cache) return this.findByPublicId(publicId);
    const now = this.cache.clock.now();
    const hit = this.targets.get(publicId);
    if (hit && hit.until > now) return hit.target;
    if (this.targets.size >= MAX_CACHED_TARGETS) this.targets.clear();
    const target = this.findByPublicId(publicId);
    const entry: CachedTarget = { target, until: now + this.cache.ttlMs };
    this.targets.set(publicId, entry);
    target.then(
      (found) => {
        entry.value = found;
        if (!found && this.targets.get(publicId)?.target === target) this.targets.delete(publicId);
      },
      () => {
        if (this.targets.get(publicId)?.target === target) this.targets.delete(publicId);
      },
    );
    return target;
  }

  /** The active agent or MCP-enabled bot behind a publicId, or null. */
  async findByPublicId(publicId: string) {
    if (!/^pub_[A-Za-z0-9_-]{1,64}$/.test(publicId)) return null;
    const view = await this.lookup(this.actors.agents, publicId);
    if (view) return agentTarget(view);
    const bot = await this.lookup(this.actors.bots, publicId);
    if (!bot) return null;
    const { context } = bot;
    if (bot.state !== 'active' || !context.mcp.enabled) return null;
    return {
      subject: { type: 'bot' as const, id: context.botId },
      ownerId: context.ownerId,
      disabledFamilies: context.mcp.disabledCategories,
      granularErrors: context.mcp.granularErrors,
    };
  }

  private async lookup<TContext>(actors: Pick<ActorCollection<TContext>, 'find'>, publicId: string) {
    const { items } = await actors.find({ index: 'publicId', eq: publicId }, { limit: 1 });
    return items[0];
  }
}

/** The target an agent's view stands for: an active or paused agent; null for any other. */
function agentTarget(view: Pick<ActorView<AgentContext>, 'state' | 'context'>): Target | null {
  const { context } = view;
  if (view.state !== 'active' && view.state !== 'paused') return null;
  return { subject: { type: 'agent', id: context.agentId }, ownerId: context.ownerId, disabledFamilies: [], granularErrors: undefined };
}
