import { assign, emit, setup } from 'xstate';
import { chosenAgentId } from './agent-id.js';
import { type KeyScope, scopeCovers } from '../kernel/vocabulary/scopes.js';
import type { MachineDefinition } from './machine-definition.types.js';

/**
 * The control claim (the states and transitions, "Agent control claim": unclaimed → claimed): the operator
 * who proved control of the agent's owner wallet. Absent: unclaimed.
 */
export interface AgentClaim {
  claimedBy: string;
  /** The owner wallet the claim was proven with; later claims must be signed by it. */
  wallet: string;
  /** Epoch ms of the first claim. */
  claimedAt: number;
  /** Epoch ms of the last proof (the first claim, or a later verification). */
  verifiedAt: number;
}

/** One always-on trading agent owned by an operator. */
export interface AgentContext {
  agentId: string;
  publicId: string;
  ownerId: string;
  name: string;
  tradingEnabled: boolean;
  /** Epoch ms. */
  createdAt: number;
  claim?: AgentClaim;
  /** The highest scope any credential of the agent acts with (`control/scopes`); absent: no cap. */
  maxScope?: KeyScope;
}

export type AgentInput = Omit<AgentContext, 'tradingEnabled' | 'claim' | 'maxScope'> & { tradingEnabled?: boolean };

export type AgentEvent =
  | { type: 'agent.activate' }
  | { type: 'agent.pause' }
  | { type: 'agent.resume' }
  | { type: 'agent.archive' }
  | { type: 'agent.rename'; name: string }
  | { type: 'agent.trading.enable' }
  | { type: 'agent.trading.disable' }
  /** The first claim: `userId` becomes the claimant and the owner. */
  | { type: 'agent.claim'; userId: string; wallet: string; at: number }
  /** The claimant proves control again (taken only from them). */
  | { type: 'agent.claim.verify'; userId: string; at: number }
  | { type: 'agent.scopes.set'; maxScope: KeyScope }
  /** Lowers the cap to `maxScope`, never raises it: the cap a caller saw may be older than the stored one. */
  | { type: 'agent.scopes.lower'; maxScope: KeyScope };

export const agentMachine = setup({
  types: {
    context: {} as AgentContext,
    input: {} as AgentInput,
    events: {} as AgentEvent,
    emitted: {} as { type: 'agent.updated'; agentId: string; name: string; tradingEnabled: boolean },
  },
  actions: {
    rename: assign({ name: ({ event }) => (event.type === 'agent.rename' ? event.name : '') }),
    enableTrading: assign({ tradingEnabled: true }),
    disableTrading: assign({ tradingEnabled: false }),
    claim: assign(({ event }) =>
      event.type === 'agent.claim'
        ? { ownerId: event.userId, claim: { claimedBy: event.userId, wallet: event.wallet, claimedAt: event.at, verifiedAt: event.at } }
        : {},
    ),
    verifyClaim: assign(({ context, event }) =>
      event.type === 'agent.claim.verify' && context.claim ? { claim: { ...context.claim, verifiedAt: event.at } } : {},
    ),
    setScopes: assign(({ event }) => (event.type === 'agent.scopes.set' ? { maxScope: event.maxScope } : {})),
    // No cap acts as `manage`: the lower of the stored cap and the requested one.
    lowerScopes: assign(({ context, event }) =>
      event.type === 'agent.scopes.lower' && scopeCovers(context.maxScope ?? 'manage', event.maxScope) ? { maxScope: event.maxScope } : {},
    ),
    /**
     * `agent.updated` carries the fields a subscriber needs to refresh its view; the
     * runtime adds the resulting `state` when it publishes (an action cannot see it yet).
     */
    announce: emit(({ context }) => ({
      type: 'agent.updated' as const,
      agentId: context.agentId,
      name: context.name,
      tradingEnabled: context.tradingEnabled,
    })),
  },
  guards: {
    tradingDisabled: ({ context }) => !context.tradingEnabled,
    tradingEnabled: ({ context }) => context.tradingEnabled,
    nameChanges: ({ context, event }) => event.type === 'agent.rename' && event.name !== context.name,
    unclaimed: ({ context }) => context.claim === undefined,
    claimedBySender: ({ context, event }) => event.type === 'agent.claim.verify' && context.claim?.claimedBy === event.userId,
  },
}).createMachine({
  id: 'agent',
  initial: 'created',
  context: ({ input }) => ({ ...input, tradingEnabled: input.tradingEnabled ?? false }),
  // Settings can change in every state but archived; a no-op change is not accepted.
  on: {
    'agent.rename': { guard: 'nameChanges', actions: ['rename', 'announce'] },
    'agent.trading.enable': { guard: 'tradingDisabled', actions: ['enableTrading', 'announce'] },
    'agent.trading.disable': { guard: 'tradingEnabled', actions: ['disableTrading', 'announce'] },
    // The claim lives in the context beside the lifecycle (not a parallel region): the
    // lifecycle state stays the plain string every reader and the `state` index use.
    'agent.claim': { guard: 'unclaimed', actions: ['claim', 'announce'] },
    'agent.claim.verify': { guard: 'claimedBySender', actions: 'verifyClaim' },
    'agent.scopes.set': { actions: 'setScopes' },
    'agent.scopes.lower': { actions: 'lowerScopes' },
  },
  states: {
    created: {
      on: {
        'agent.activate': { target: 'active', actions: 'announce' },
        'agent.archive': { target: 'archived', actions: 'announce' },
      },
    },
    active: {
      on: {
        'agent.pause': { target: 'paused', actions: 'announce' },
        'agent.archive': { target: 'archived', actions: 'announce' },
      },
    },
    paused: {
      on: {
        'agent.resume': { target: 'active', actions: 'announce' },
        'agent.archive': { target: 'archived', actions: 'announce' },
      },
    },
    archived: {
      type: 'final',
    },
  },
});

export const agentDefinition: MachineDefinition<AgentContext, AgentEvent, AgentInput> = {
  type: 'agent',
  version: 2,
  machine: agentMachine,
  migrations: {
    // v2 adds the optional `claim` and `maxScope`: a v1 snapshot reads as unclaimed and
    // uncapped. Bumped so that a v1 build refuses a capped agent instead of ignoring its cap.
    1: (persisted) => persisted,
  },
  indexNames: ['ownerId', 'publicId', 'claimedAgentId'],
  indexes: (context) => ({
    ownerId: context.ownerId,
    publicId: context.publicId,
    // Claimed agents by the id operators name them with, whoever first made them: a claim by another operator finds them.
    ...(context.claim ? { claimedAgentId: chosenAgentId(context.agentId) } : {}),
  }),
  stream: (context) => `agent:${context.agentId}`,
};
