import type { Logger } from 'pino';
import { AGENT_IDENTITIES, type AgentIdentityRecord } from '../identity/onboarding/agent-identity.records.js';
import type { StorePort } from '../../kernel/ports/store.port.js';
import { updateRecord } from '../../kernel/shared/record-update.js';
import { cardContentSchema } from './card.schemas.js';
import { DIRECTORY_META } from './card.records.js';
import type { CardsService } from './cards.service.js';

const MARK = 'card-drafts-v1';
const PAGE = 200;

/**
 * Before agent cards, onboarding kept the registration file it was sent on the agent's
 * identity record (`cardDraft`). Once per store, each such draft becomes its agent's card
 * draft (with the identity's verification) and leaves the identity record: one store of
 * cards. Safe to run twice or in two processes at once (a card's `onboarded` is a CAS update,
 * a draft already moved is gone from its identity record).
 */
export async function migrateCardDrafts(deps: {
  store: StorePort;
  cards: Pick<CardsService, 'onboarded'>;
  logger: Logger;
  now: () => number;
}): Promise<number> {
  const { store } = deps;
  if (await store.get(DIRECTORY_META, MARK)) return 0;
  let moved = 0;
  let cursor: string | undefined;
  do {
    const page = await store.list<AgentIdentityRecord>(AGENT_IDENTITIES, { limit: PAGE, ...(cursor ? { cursor } : {}) });
    for (const doc of page.items) {
      const { cardDraft, erc8004, verified } = doc.data;
      if (!cardDraft) continue;
      // `type` is the card's own; `registrations` come from the verified identity alone.
      const { type: _type, registrations: _claimed, ...fields } = cardDraft;
      const draft = cardContentSchema.safeParse(fields);
      // A draft the card rules refuse (control characters in its name) is dropped: its owner writes the card anew.
      if (draft.success) {
        await deps.cards.onboarded(doc.id, {
          verified,
          ...(erc8004 ? { registrations: [{ agentId: erc8004.agentId, agentRegistry: erc8004.registry }] } : {}),
          registration: draft.data,
        });
      } else deps.logger.warn({ agent: doc.id }, 'an onboarding registration was not moved to its card: it breaks the card rules');
      await updateRecord<AgentIdentityRecord>(store, { collection: AGENT_IDENTITIES, id: doc.id }, (current) => {
        if (!current?.data.cardDraft) return null;
        const { cardDraft: _moved, ...rest } = current.data;
        // Its other indexes stay (a verified agent's next ownership check).
        return { data: rest, indexes: { ...current.indexes } };
      });
      moved++;
    }
    cursor = page.nextCursor;
  } while (cursor);
  await updateRecord(store, { collection: DIRECTORY_META, id: MARK }, (current) => (current ? null : { data: { at: deps.now(), moved } }));
  if (moved > 0) deps.logger.info({ moved }, 'onboarding registrations moved to agent cards');
  return moved;
}
