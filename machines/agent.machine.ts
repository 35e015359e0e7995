import { assign, emit, setup } from 'xstate';
import type { MachineDefinition } from './machine-definition.types.js';

/** One always-on trading agent owned by an operator. */
export interface AgentContext {
  agentId: string;
  publicId: string;
  ownerId: string;
  name: string;
  tradingEnabled: boolean;
  /** Epoch ms. */
  createdAt: number;
}

export type AgentInput = Omit<AgentContext, 'tradingEnabled'> & { tradingEnabled?: boolean };

export type AgentEvent =
  | { type: 'agent.activate' }
  | { type: 'agent.pause' }
  | { type: 'agent.resume' }
  | { type: 'agent.archive' }
  | { type: 'agent.rename'; name: string }
  | { type: 'agent.trading.enable' }
  | { type: 'agent.trading.disable' };

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
  version: 1,
  machine: agentMachine,
  indexNames: ['ownerId', 'publicId'],
  indexes: (context) => ({ ownerId: context.ownerId, publicId: context.publicId }),
  stream: (context) => `agent:${context.agentId}`,
};
