import { z } from 'zod';
import { DCA_TYPE, END_EVENT, TICK_EVENT, endJobIdOf, scheduleIdOf } from '../../../agents/dca/dca-ticks.js';
import type { DcaService } from '../../../agents/dca/dca.service.js';
import type { ApiKeyContext, ApiKeyEvent } from '../../../machines/api-key.machine.js';
import type { IdentityTokenContext, IdentityTokenEvent } from '../../../machines/identity-token.machine.js';
import type { OrderContext, OrderEvent } from '../../../machines/order.machine.js';
import type { Erc8004Ownership } from '../../identity/onboarding/erc8004-ownership.service.js';
import type { ActorCollection } from '../../../kernel/ports/actor-collection.port.js';
import { defineUnboundOperation } from '../operation-definition.js';

/**
 * The service's own operations, run when a scheduled job falls due: the
 * scheduler's delivery calls them through the invoker like any surface, so each due job is
 * durable before it is done and leaves an audit entry (principal `system`, the job's id).
 * Only the `system` principal sees them: no REST binding, no MCP tool, not callable by a
 * session, a key or the ops token (the catalog hides an operation from a principal kind it
 * does not list). The actor and event each one takes are routed in src/composition/due-jobs.ts.
 */
const system = { minScope: 'manage', principals: ['system'], target: 'service' } as const;

const dueAt = z.number().int().nonnegative().describe('Epoch ms the job was due (not when it was delivered).');
const eventAt = z.number().int().nonnegative().describe('Epoch ms the event stands for, as scheduled (the expiry time).');
const accepted = z.object({
  accepted: z.boolean().describe('False when the actor was no longer in a state that takes the event (nothing was written).'),
});

/** `key_expire`: the api-key actor's scheduled expiry (90 days after creation). */
export function keyDueOperations(keys: Pick<ActorCollection<ApiKeyContext, ApiKeyEvent>, 'send'>) {
  return [
    defineUnboundOperation({
      ...system,
      name: 'key_expire',
      description: 'Expires an API key at its scheduled time (due job).',
      family: 'keys',
      input: z.object({ keyId: z.string().min(1).describe('The key actor id.'), at: eventAt, dueAt }).strict(),
      output: accepted,
      annotations: { idempotent: true },
      handler: async (_ctx, input) => {
        // `dueAt` rides along as it always did: the actor's journal shows when the job was due.
        const event = { type: 'key.expire' as const, at: input.at, dueAt: input.dueAt };
        return { accepted: (await keys.send(input.keyId, event)).accepted };
      },
    }),
  ];
}

/** `order_expire`: the end of an order's approval window. */
export function orderDueOperations(orders: Pick<ActorCollection<OrderContext, OrderEvent>, 'send'>) {
  return [
    defineUnboundOperation({
      ...system,
      name: 'order_expire',
      description: 'Expires an order still waiting for approval at the end of its approval window (due job).',
      family: 'trading',
      input: z.object({ orderId: z.string().min(1).describe('The order id.'), at: eventAt, dueAt }).strict(),
      output: accepted,
      annotations: { idempotent: true },
      handler: async (_ctx, input) => {
        const event = { type: 'order.expire' as const, at: input.at, dueAt: input.dueAt };
        return { accepted: (await orders.send(input.orderId, event)).accepted };
      },
    }),
  ];
}

/**
 * `dca_tick` (a strategy's repeating buy) and `dca_end` (the one-off job at its `endAt`): both
 * run in the strategies service, which buys through the pipeline and safety path and tells
 * the strategy; a tick refused by the kill switch or the policy is recorded there as today.
 */
export function dcaDueOperations(dca: Pick<DcaService, 'onTick'>) {
  const strategyId = z.string().min(1).describe('The strategy id.');
  return [
    defineUnboundOperation({
      ...system,
      name: 'dca_tick',
      description: 'Runs one due tick of a DCA strategy: one buy per (strategy, due time), however often it is delivered (due job).',
      family: 'strategy',
      input: z.object({ strategyId, dueAt }).strict(),
      annotations: { idempotent: true },
      handler: async (_ctx, input) => {
        const address = { type: DCA_TYPE, id: input.strategyId };
        await dca.onTick({ id: scheduleIdOf(input.strategyId), kind: 'repeat', address, event: { type: TICK_EVENT }, dueAt: input.dueAt });
        return {};
      },
    }),
    defineUnboundOperation({
      ...system,
      name: 'dca_end',
      description: 'Completes a DCA strategy at its end time (due job).',
      family: 'strategy',
      input: z.object({ strategyId, dueAt }).strict(),
      annotations: { idempotent: true },
      handler: async (_ctx, input) => {
        const address = { type: DCA_TYPE, id: input.strategyId };
        await dca.onTick({ id: endJobIdOf(input.strategyId), kind: 'once', address, event: { type: END_EVENT }, dueAt: input.dueAt });
        return {};
      },
    }),
  ];
}

/** `identity_token_expire`: an identity access token's scheduled expiry (its `exp`). */
export function identityTokenDueOperations(tokens: Pick<ActorCollection<IdentityTokenContext, IdentityTokenEvent>, 'send'>) {
  return [
    defineUnboundOperation({
      ...system,
      name: 'identity_token_expire',
      description: 'Expires an identity access token at its `exp` (due job).',
      family: 'keys',
      input: z.object({ jti: z.string().min(1).describe('The token id (jti).'), at: eventAt, dueAt }).strict(),
      output: accepted,
      annotations: { idempotent: true },
      handler: async (_ctx, input) => ({ accepted: (await tokens.send(input.jti, { type: 'token.expire', at: input.at })).accepted }),
    }),
  ];
}

/**
 * `erc8004_ownership_check`: the repeating sweep that asks each registry, for every verified
 * agent whose check is due, whether its wallet still owns the ERC-8004 identity.
 */
export function erc8004OwnershipDueOperations(ownership: Pick<Erc8004Ownership, 'sweep'>) {
  return [
    defineUnboundOperation({
      ...system,
      name: 'erc8004_ownership_check',
      description:
        'Asks the ERC-8004 registry whether each verified agent whose check is due still belongs to its wallet; one that does not loses `verified` and its identity tokens (due job).',
      family: 'keys',
      input: z.object({ dueAt }).strict(),
      output: z.object({
        checked: z.number().int().describe('Agents still owned by their wallet.'),
        unverified: z.number().int().describe('Agents that lost `verified` on this run.'),
        failed: z.number().int().describe('Agents the registry could not be asked about (left due).'),
        unserved: z
          .number()
          .int()
          .describe('Agents of a registry the configuration no longer serves: not asked, still verified (left due).'),
        malformed: z.number().int().describe('Stored records that could not be read: taken out of the sweep.'),
      }),
      annotations: { idempotent: true },
      handler: () => ownership.sweep(),
    }),
  ];
}
