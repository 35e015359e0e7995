import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { AGENT_SCOPE_SEPARATOR, chosenAgentId, isReservedAgentId, scopedActorId } from '../../machines/agent-id.js';
import type { AgentContext, AgentEvent, AgentInput } from '../../machines/agent.machine.js';
import { AppError } from '../../kernel/errors/app-error.js';
import { randomId } from '../../kernel/vocabulary/ids.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { ActorCollection, ActorView } from '../../kernel/ports/actor-collection.port.js';
import { countUpTo, type OwnerCaps } from './owner-caps.js';
import type { UsersService } from './users.service.js';
import { nameSchema } from '../../kernel/shared/name.schema.js';

/**
 * An agent as operators and its keys see it (agents, bots and keys): the one
 * shape of every agent answer (REST, MCP tools, the OpenAPI document), built by `toSummary`.
 */
export const agentSummarySchema = z.object({
  agentId: z.string().describe('The id its owner chose (or was given)'),
  publicId: z.string().describe('Public id of its MCP endpoint, `/mcp/{publicId}`'),
  name: z.string(),
  status: z.string().describe('Lifecycle state: active, paused, archived...'),
  tradingEnabled: z.boolean(),
  createdAt: z.string().describe('ISO 8601 time'),
});
export type AgentSummary = z.output<typeof agentSummarySchema>;

/** An agent in its owner's list: the summary, and whether it is the default of `:userId` trading routes. */
export const agentListItemSchema = agentSummarySchema.extend({
  isDefault: z.boolean().describe('Whether this is your default agent, the one `:userId` trading routes act on'),
});
export type AgentListItem = z.output<typeof agentListItemSchema>;

export const createAgentSchema = z
  .object({
    name: nameSchema().describe('Display name of the agent'),
    agentId: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{2,127}$/, 'must be 3-128 letters, digits, or . _ : - (starting with a letter or digit)')
      .refine(
        (id) => !isReservedAgentId(id),
        'must not start with agt_ or erc8004: nor be erc8004-wallet (the service names its own agents so)',
      )
      .optional()
      .describe('An id of your choosing, unique among your agents; default: a generated `agt_…` id'),
  })
  .strict();

export type CreateAgentInput = z.infer<typeof createAgentSchema>;

const AGENT_NOT_FOUND = 'Agent not found';

/*
 * Caller-chosen agentIds are scoped per owner: two users may each have
 * an agent `alpha`, and creating one never tells whether another user has it. The agent's
 * actor id is then `<ownerId>~<agentId>` (`scopedActorId`, machines/agent-id.ts), and every
 * surface shows `chosenAgentId` of it. Generated ids (`agt_<random>`) are unique by themselves
 * and stay the actor id, as do agents created before this change (found by the fallback in `ownedView`).
 */

/** Operators' agents: each is an `agent` actor owned by one user. */
export class AgentsService {
  constructor(
    private readonly agents: ActorCollection<AgentContext, AgentEvent, AgentInput>,
    private readonly users: UsersService,
    private readonly clock: ClockPort,
    private readonly caps: OwnerCaps,
    /** At most this many agents (archived ones aside) per user (`MAX_AGENTS_PER_USER`). */
    private readonly maxAgents: number,
  ) {}

  /**
   * Creates and activates an agent; the user's first agent becomes the default one. A user
   * holding `maxAgents` agents already gets 409 `Agent limit reached: ...`.
   */
  async create(ownerId: string, input: CreateAgentInput): Promise<AgentSummary> {
    return this.caps.create(
      `agents:${ownerId}`,
      this.maxAgents,
      `Agent limit reached: at most ${this.maxAgents} agents per user`,
      (cap) => this.countAgents(ownerId, cap),
      () => this.createUncapped(ownerId, input),
    );
  }

  private countAgents(ownerId: string, cap: number): Promise<number> {
    return countUpTo(
      cap,
      (cursor) => this.agents.find({ index: 'ownerId', eq: ownerId }, { limit: 200, ...(cursor ? { cursor } : {}) }),
      (view) => view.state !== 'archived',
    );
  }

  private async createUncapped(ownerId: string, input: CreateAgentInput): Promise<AgentSummary> {
    const exists = () => new AppError('RESOURCE_CONFLICT', 'Agent already exists');
    // Only the caller's own agents can make a chosen id taken (one created before ids were scoped included).
    if (input.agentId !== undefined && (await this.findOwned(ownerId, input.agentId))) throw exists();
    const actorId = input.agentId === undefined ? `agt_${randomBytes(12).toString('base64url')}` : scopedActorId(ownerId, input.agentId);
    const created = await this.createActor(ownerId, actorId, input.name);
    if (!created) throw exists();
    return toSummary(created);
  }

  /**
   * Onboarding's agent (identity module): the agent of actor id `actorId` (an id unique in the
   * service, made from the identity), else the one onboarding made at `formerActorId` before
   * its ids were unique; created as `actorId` for `ownerId` under the per-user cap when neither
   * exists. The same identity onboarding twice at once makes one agent: the second finds the first's.
   */
  async ensure(
    ownerId: string,
    ids: { actorId: string; formerActorId: string },
    name: string,
  ): Promise<{ view: ActorView<AgentContext>; created: boolean }> {
    const { actorId } = ids;
    const existing = (await this.agents.get(actorId)) ?? (await this.agents.get(ids.formerActorId));
    if (existing) return { view: await this.activated(existing), created: false };
    const created = await this.caps.create(
      `agents:${ownerId}`,
      this.maxAgents,
      `Agent limit reached: at most ${this.maxAgents} agents per user`,
      (cap) => this.countAgents(ownerId, cap),
      () => this.createActor(ownerId, actorId, name),
    );
    if (created) return { view: created, created: true };
    const raced = await this.agents.get(actorId);
    if (!raced) throw AppError.internal('onboarded agent vanished');
    return { view: await this.activated(raced), created: false };
  }

  /** The agent actor, created and activated (the user's first agent becomes the default); null when the id is taken. */
  private async createActor(ownerId: string, actorId: string, name: string): Promise<ActorView<AgentContext> | null> {
    // Unguessable and unrelated to every internal id.
    const publicId = randomId('pub');
    const made = await this.agents
      .create(actorId, { agentId: actorId, publicId, ownerId, name, createdAt: this.clock.now() })
      .then(() => true)
      .catch((error: unknown) => {
        if (error instanceof AppError && error.kind === 'conflict') return false;
        throw error;
      });
    if (!made) return null;
    const { view } = await this.agents.send(actorId, { type: 'agent.activate' });
    const user = await this.users.get(ownerId);
    if (user && !user.defaultAgentId) await this.users.setDefaultAgent(ownerId, actorId);
    return view;
  }

  /** An agent whose creation stopped before its activation (a crash between the two) is activated now. */
  private async activated(view: ActorView<AgentContext>): Promise<ActorView<AgentContext>> {
    return view.state === 'created' ? (await this.agents.send(view.id, { type: 'agent.activate' })).view : view;
  }

  async list(ownerId: string, page: { limit: number; cursor?: string }): Promise<{ items: AgentListItem[]; nextCursor?: string }> {
    const [docs, user] = await Promise.all([this.agents.find({ index: 'ownerId', eq: ownerId }, page), this.users.get(ownerId)]);
    return {
      items: docs.items.map((view) => ({ ...toSummary(view), isDefault: view.id === user?.defaultAgentId })),
      ...(docs.nextCursor ? { nextCursor: docs.nextCursor } : {}),
    };
  }

  /** The agent if `ownerId` owns it; 404 otherwise, so another user's agent is indistinguishable from none. */
  async getOwned(ownerId: string, agentId: string): Promise<AgentSummary> {
    return toSummary(await this.ownedView(ownerId, agentId));
  }

  /** The owner of an agent by its actor id (a credential's agent), or null. */
  async ownerOf(actorId: string): Promise<string | null> {
    return (await this.view(actorId))?.context.ownerId ?? null;
  }

  /** An agent by its actor id (a credential's agent), as committed now; null when there is none. */
  view(actorId: string): Promise<ActorView<AgentContext> | null> {
    return this.agents.get(actorId);
  }

  async ownedView(ownerId: string, agentId: string): Promise<ActorView<AgentContext>> {
    const view = await this.findOwned(ownerId, agentId);
    if (!view) throw AppError.notFound(AGENT_NOT_FOUND);
    return view;
  }

  /**
   * The owner's agent of that agentId: a chosen id scoped to the owner first, then the id as
   * an actor id (generated ids, agents from before scoping, and an owner's own actor id),
   * which counts only when the owner owns it.
   */
  private async findOwned(ownerId: string, agentId: string): Promise<ActorView<AgentContext> | null> {
    const view = await this.firstMadeAs(ownerId, agentId);
    if (view && view.context.ownerId === ownerId) return view;
    return this.findClaimed(ownerId, agentId);
  }

  /**
   * The agent `ownerId` made (or onboarded) as `agentId`, whoever owns it now: a claim
   * (control/claim) moves an agent to the claimant and keeps its actor id.
   */
  async firstMadeAs(ownerId: string, agentId: string): Promise<ActorView<AgentContext> | null> {
    if (agentId.includes(AGENT_SCOPE_SEPARATOR)) return this.agents.get(agentId);
    // A generated id (`agt_…`, which no operator may choose now) is its own actor id: read that
    // first, so the usual call reads the agent once. The scoped id is still tried after it: a
    // few agents were given a chosen `agt_…` id before such ids were reserved.
    if (isReservedAgentId(agentId)) return (await this.agents.get(agentId)) ?? (await this.agents.get(scopedActorId(ownerId, agentId)));
    return (await this.agents.get(scopedActorId(ownerId, agentId))) ?? (await this.agents.get(agentId));
  }

  /**
   * An agent named `agentId` that an operator other than `userId` claimed, whoever first made
   * it: a generated id is its actor id, a chosen one is found by the claimed agents' index.
   */
  async claimedByAnother(userId: string, agentId: string): Promise<ActorView<AgentContext> | null> {
    const byOther = (view: ActorView<AgentContext> | null | undefined) =>
      view?.context.claim !== undefined && view.context.claim.claimedBy !== userId;
    const direct = await this.agents.get(agentId);
    if (byOther(direct)) return direct;
    let cursor: string | undefined;
    do {
      const page = await this.agents.find({ index: 'claimedAgentId', eq: agentId }, { limit: 200, ...(cursor ? { cursor } : {}) });
      const found = page.items.find(byOther);
      if (found) return found;
      cursor = page.nextCursor;
    } while (cursor);
    return null;
  }

  /** An agent `ownerId` claimed from another owner, by the agentId it carries (its actor id is scoped to its first owner). */
  private async findClaimed(ownerId: string, agentId: string): Promise<ActorView<AgentContext> | null> {
    let cursor: string | undefined;
    do {
      const page = await this.agents.find({ index: 'ownerId', eq: ownerId }, { limit: 200, ...(cursor ? { cursor } : {}) });
      const found = page.items.find((view) => view.context.claim?.claimedBy === ownerId && chosenAgentId(view.id) === agentId);
      if (found) return found;
      cursor = page.nextCursor;
    } while (cursor);
    return null;
  }

  /**
   * The trading account a `:userId` route acts on (trading accounts): the
   * named agent when given (owned, else 404), otherwise the user's default agent.
   */
  async tradingAgent(ownerId: string, agentId?: string): Promise<ActorView<AgentContext>> {
    if (agentId !== undefined) return this.ownedView(ownerId, agentId);
    const user = await this.users.get(ownerId);
    if (!user?.defaultAgentId) throw AppError.notFound(AGENT_NOT_FOUND);
    return this.ownedView(ownerId, user.defaultAgentId);
  }

  /** Makes an owned agent the user's default for `:userId` trading routes; the agent's view. */
  async setDefault(ownerId: string, agentId: string): Promise<ActorView<AgentContext>> {
    const view = await this.ownedView(ownerId, agentId);
    await this.users.setDefaultAgent(ownerId, view.id);
    return view;
  }
}

/** An agent as operators see it: `agentId` is the id its owner chose (or was given), unscoped. */
export function toSummary(view: ActorView<AgentContext>): AgentSummary {
  const { context } = view;
  return {
    agentId: chosenAgentId(context.agentId),
    publicId: context.publicId,
    name: context.name,
    status: String(view.state),
    tradingEnabled: context.tradingEnabled,
    createdAt: new Date(context.createdAt).toISOString(),
  };
}
