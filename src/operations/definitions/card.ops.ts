import { z } from 'zod';
import { cardContentSchema, ownerCardSchema, publishSchema } from '../../directory/card.schemas.js';
import type { CardsService } from '../../directory/cards.service.js';
import { defineOperation } from '../operation-definition.js';
import type { OperationContext } from '../operation.types.js';
import { emptyInput } from './operator-paging.js';

/**
 * The agent card of the agent (or legacy bot) the call acts on (public directory and agent cards): its owner reads, edits, publishes and revokes it. One model behind the
 * agent routes (`/api/nest/agents/:agentId/card`) and the legacy `agent-card` routes.
 */
export function cardOperations(cards: CardsService) {
  const subject = (ctx: OperationContext) => ({ type: ctx.subject.type, id: ctx.subject.id });
  return [
    defineOperation({
      name: 'agent_card_get',
      description:
        'Get the agent card: the ERC-8004 registration file as it will next be published, its status (draft, published, revoked) and whether it offers a snapshot.',
      family: 'agents',
      minScope: 'read',
      principals: ['operator'],
      input: emptyInput,
      output: ownerCardSchema,
      annotations: { readOnly: true, idempotent: true },
      handler: (ctx) => cards.get(subject(ctx)),
    }),
    defineOperation({
      name: 'agent_card_update',
      description:
        'Replace the agent card (name, description, image, services, active, supportedTrust). A published card shows the change once published again.',
      family: 'agents',
      minScope: 'manage',
      principals: ['operator'],
      input: cardContentSchema,
      output: ownerCardSchema,
      annotations: { destructive: false, idempotent: true },
      handler: (ctx, input) => cards.edit(subject(ctx), input),
    }),
    defineOperation({
      name: 'agent_card_publish',
      description:
        'Publish the agent card to the public directory (newest first), with its live portfolio snapshot when `snapshot` is true.',
      family: 'agents',
      minScope: 'manage',
      principals: ['operator'],
      input: publishSchema,
      output: ownerCardSchema,
      annotations: { destructive: false, idempotent: false },
      handler: (ctx, input) => cards.publish(subject(ctx), input),
    }),
    defineOperation({
      name: 'agent_card_revoke',
      description: 'Take the agent card off the public directory at once; it stays as a draft to publish again.',
      family: 'agents',
      minScope: 'manage',
      principals: ['operator'],
      input: z.object({}).strict(),
      output: ownerCardSchema,
      annotations: { destructive: true, idempotent: true },
      handler: (ctx) => cards.revoke(subject(ctx)),
    }),
  ];
}
