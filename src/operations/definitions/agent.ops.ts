import { z } from 'zod';
import type { AgentContext, AgentEvent } from '../../../machines/agent.machine.js';
import { agentSummarySchema, toSummary } from '../../accounts/agents.service.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import type { ActorCollection } from '../../../kernel/ports/actor-collection.port.js';
import type { OperationContext } from '../operation.types.js';
import { defineOperation } from '../operation-definition.js';

/** The one agent shape (accounts' `agentSummarySchema`), as every agent operation answers. */
const agentSummary = agentSummarySchema;

/** Agent status and runtime control, for the agent's own keys and its operator. */
export function agentOperations(agents: ActorCollection<AgentContext, AgentEvent>) {
  const agentOf = (ctx: OperationContext) => {
    if (ctx.subject.type !== 'agent') throw AppError.notFound('Agent not found');
    return ctx.subject.id;
  };
  /** Sends a control event; an event the agent's state does not take is a 409 saying why. */
  const control = async (ctx: OperationContext, type: 'agent.pause' | 'agent.resume', refusal: string) => {
    const { accepted, view } = await agents.send(agentOf(ctx), { type });
    if (!accepted) throw AppError.conflict(`${refusal} (agent is ${String(view.state)})`);
    return toSummary(view);
  };

  return [
    defineOperation({
      name: 'agent_status',
      description: 'Status of the agent this credential operates: lifecycle state, whether trading is enabled, identifiers.',
      family: 'agents',
      minScope: 'read',
      principals: ['agent', 'operator'],
      input: z.object({}).strict(),
      output: agentSummary,
      annotations: { readOnly: true, idempotent: true },
      handler: async (ctx) => {
        const view = await agents.get(agentOf(ctx));
        if (!view) throw AppError.notFound('Agent not found');
        return toSummary(view);
      },
    }),
    defineOperation({
      name: 'agent_pause',
      description: 'Pause the agent: it stops taking trading actions until resumed.',
      family: 'agents',
      minScope: 'manage',
      principals: ['agent', 'operator'],
      input: z.object({}).strict(),
      output: agentSummary,
      annotations: { destructive: false, idempotent: false },
      handler: (ctx) => control(ctx, 'agent.pause', 'Agent cannot be paused'),
    }),
    defineOperation({
      name: 'agent_resume',
      description: 'Resume a paused agent.',
      family: 'agents',
      minScope: 'manage',
      principals: ['agent', 'operator'],
      input: z.object({}).strict(),
      output: agentSummary,
      handler: (ctx) => control(ctx, 'agent.resume', 'Agent cannot be resumed'),
    }),
    defineOperation({
      name: 'agent_trading_set',
      description: 'Enable or disable trading for the agent.',
      family: 'agents',
      minScope: 'manage',
      principals: ['agent', 'operator'],
      input: z
        .object({
          enabled: z
            .boolean()
            .describe('true: the agent may trade (every trade still passes the safety path); false: every trade is refused.'),
        })
        .strict(),
      output: agentSummary,
      handler: async (ctx, input) => {
        const { view } = await agents.send(agentOf(ctx), { type: input.enabled ? 'agent.trading.enable' : 'agent.trading.disable' });
        if (view.context.tradingEnabled !== input.enabled) throw AppError.conflict(`Agent is ${String(view.state)}; trading cannot change`);
        return toSummary(view);
      },
    }),
  ];
}
