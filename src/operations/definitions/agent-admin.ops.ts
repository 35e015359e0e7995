import { z } from 'zod';
import {
  agentListItemSchema,
  agentSummarySchema,
  createAgentSchema,
  toSummary,
  type AgentsService,
} from '../../accounts/agents.service.js';
import { defineOperation, defineUnboundOperation } from '../operation-definition.js';
import { pageFields, pageSchema } from './list-paging.js';
import { emptyInput, pageOf, userOf } from './operator-paging.js';

/**
 * Operators' agents: create, list, get, and the default of `:userId` trading routes
 * (the agent wallet and control-plane routes). Operator-only: an agent's own key does not manage the set of agents.
 */
export function agentAdminOperations(agents: AgentsService) {
  return [
    defineUnboundOperation({
      name: 'agent_create',
      description: 'Create an agent. It starts active with trading off; your first agent becomes your default one.',
      family: 'agents',
      minScope: 'manage',
      principals: ['operator'],
      target: 'owner',
      input: createAgentSchema,
      output: agentSummarySchema,
      annotations: { destructive: false, idempotent: false },
      handler: (ctx, input) => agents.create(userOf(ctx), input),
    }),
    defineUnboundOperation({
      name: 'agent_list',
      description: 'List your agents.',
      family: 'agents',
      minScope: 'read',
      principals: ['operator'],
      target: 'owner',
      input: z.object(pageFields).strict(),
      output: pageSchema(agentListItemSchema),
      annotations: { readOnly: true, idempotent: true },
      handler: (ctx, input) => agents.list(userOf(ctx), pageOf(input)),
    }),
    defineOperation({
      name: 'agent_get',
      description: 'Get one of your agents.',
      family: 'agents',
      minScope: 'read',
      principals: ['operator'],
      input: emptyInput,
      output: agentSummarySchema,
      annotations: { readOnly: true, idempotent: true },
      handler: (ctx) => agents.getOwned(userOf(ctx), ctx.subject.id),
    }),
    defineOperation({
      name: 'agent_default_set',
      description: 'Make this agent the default of `:userId` trading routes.',
      family: 'agents',
      minScope: 'manage',
      principals: ['operator'],
      input: emptyInput,
      output: agentSummarySchema,
      annotations: { destructive: false, idempotent: true },
      handler: async (ctx) => toSummary(await agents.setDefault(userOf(ctx), ctx.subject.id)),
    }),
  ];
}
