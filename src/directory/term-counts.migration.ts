import type { Logger } from 'pino';
import type { StorePort } from '../../kernel/ports/store.port.js';
import { updateRecord } from '../../kernel/shared/record-update.js';
import { CARDS, DIRECTORY_META, type CardRecord } from './card.records.js';
import type { CardsService } from './cards.service.js';

const MARK = 'term-counts-v1';
const PAGE = 200;

/**
 * Before term counts, a published card's term entries were written uncounted, and stayed
 * while its agent was paused, archived or deleted. Once per store, each such card is
 * reindexed (`subjectChanged`): counted when its agent or bot is active, its entries
 * withdrawn otherwise, the card and its counts in one commit. Safe to run twice or in two
 * processes at once (a card once reindexed carries its `index` state; each commit is a
 * compare-and-set), and while the directory serves: searches never depend on the counts.
 */
export async function migrateTermCounts(deps: {
  store: StorePort;
  cards: Pick<CardsService, 'subjectChanged'>;
  logger: Logger;
  now: () => number;
  /** Asked between pages: true stops the walk (the service is stopping); the next start goes on. */
  stopping?: () => boolean;
}): Promise<number> {
  const { store } = deps;
  if (await store.get(DIRECTORY_META, MARK)) return 0;
  let reindexed = 0;
  let cursor: string | undefined;
  do {
    if (deps.stopping?.()) return reindexed;
    const page = await store.list<CardRecord>(CARDS, { limit: PAGE, ...(cursor ? { cursor } : {}) });
    for (const doc of page.items) {
      if (!doc.data.published || doc.data.published.index !== undefined) continue;
      await deps.cards.subjectChanged(doc.data.subject);
      reindexed++;
    }
    cursor = page.nextCursor;
  } while (cursor);
  await updateRecord(store, { collection: DIRECTORY_META, id: MARK }, (current) =>
    current ? null : { data: { at: deps.now(), reindexed } },
  );
  if (reindexed > 0) deps.logger.info({ reindexed }, 'published cards counted in the search index');
  return reindexed;
}
