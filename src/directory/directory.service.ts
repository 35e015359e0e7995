/**
 * The public directory (interface 4.3; CONTRACT "Public directory and agent cards"): published
 * cards paged newest first, searched by words of their name and description, the verified
 * ones as the discovery feed, one card by publicId, and its snapshot when its owner offers it.
 * Every read goes through an index (`listed`, `feed`, the term entries, `publicId`); a card
 * whose agent is paused, archived or deleted stays indexed and is skipped as it is read.
 */
import { AppError } from '../errors/app-error.js';
import type { ClockPort } from '../ports/clock.port.js';
import type { IndexQuery, StoredDocument, StorePort } from '../ports/store.port.js';
import { queryWords, termRange } from './card-search.js';
import type { PublicCard, Snapshot } from './card.schemas.js';
import type { CardViews } from './card-views.js';
import type { CardSubjects } from './cards.service.js';
import { CARD_INDEX, CARD_TERMS, CARDS, TERM_INDEX, type CardRecord, type CardSubject, type CardTermRecord } from './card.records.js';
import { snapshotOf, type PortfolioSource } from './snapshot.js';

/** Index entries read for one page before answering with what was found (and a cursor to go on). */
const MAX_SCANNED = 1_000;

export interface DirectoryPage {
  items: PublicCard[];
  nextCursor?: string;
}

export interface DirectoryDeps {
  store: StorePort;
  clock: ClockPort;
  subjects: CardSubjects;
  views: CardViews;
  portfolio: PortfolioSource;
}

const notFound = () => AppError.notFound('Agent not found');

export class DirectoryService {
  constructor(private readonly deps: DirectoryDeps) {}

  /** `GET /api/public/erc8004/agents/page`: newest published first; with `q`, the cards holding every word of it. */
  page(input: { limit: number; cursor?: string | undefined; q?: string | undefined }): Promise<DirectoryPage> {
    const q = input.q?.trim();
    if (!q) return this.read(CARDS, { index: CARD_INDEX.listed, gte: '' }, input, (doc) => this.visible(doc as StoredDocument<CardRecord>));
    const [driver, ...rest] = queryWords(q);
    // Nothing searchable in `q` (only punctuation): nothing matches it.
    if (!driver) return Promise.resolve({ items: [] });
    return this.read(CARD_TERMS, { index: TERM_INDEX, ...termRange(driver) }, input, async (entry) => {
      const term = entry.data as CardTermRecord;
      const doc = await this.deps.store.get<CardRecord>(CARDS, term.card);
      const published = doc?.data.published;
      // The entry of an older publish cannot outlive it (one commit), but a read between two commits may see one.
      if (!doc || published?.gen !== term.gen) return null;
      if (rest.length > 0 && !rest.every((word) => published.terms.includes(word))) return null;
      return this.visible(doc);
    });
  }

  /** `GET /api/public/erc8004/discovery/feed`: verified published agents, newest first. */
  feed(input: { limit: number; cursor?: string | undefined }): Promise<DirectoryPage> {
    return this.read(CARDS, { index: CARD_INDEX.feed, gte: '' }, input, (doc) => this.visible(doc as StoredDocument<CardRecord>));
  }

  /** `GET /api/public/erc8004/agents/:publicId`. */
  async card(publicId: string): Promise<PublicCard> {
    const found = await this.published(publicId);
    return found.card;
  }

  /** `GET /api/public/erc8004/agents/:publicId/snapshot`: only when the owner published the card with `snapshot: true`. */
  async snapshot(publicId: string): Promise<Snapshot> {
    const { doc } = await this.published(publicId);
    if (!doc.data.snapshot) throw notFound();
    return snapshotOf(publicId, doc.data.subject, this.deps.portfolio, this.deps.clock.now());
  }

  private async published(publicId: string): Promise<{ doc: StoredDocument<CardRecord>; card: PublicCard }> {
    const { items } = await this.deps.store.find<CardRecord>(CARDS, { index: CARD_INDEX.publicId, eq: publicId }, { limit: 1 });
    const doc = items[0];
    const card = doc ? await this.visible(doc) : null;
    if (!doc || !card) throw notFound();
    return { doc, card };
  }

  /** The card as the directory shows it, or null: not published, or its agent or bot is not active. */
  private async visible(doc: StoredDocument<CardRecord>): Promise<PublicCard | null> {
    const card = this.deps.views.published(doc);
    if (!card) return null;
    return (await this.live(doc.data.subject)) ? card : null;
  }

  private async live(subject: CardSubject): Promise<boolean> {
    return (await this.deps.subjects.get(subject))?.live ?? false;
  }

  /**
   * Pages an index, keeping what `keep` renders. Reads only as many entries as are still
   * wanted, so the store's cursor after the last one read is where the next page starts,
   * however many were skipped; past MAX_SCANNED skipped entries the page is answered short.
   */
  private async read(
    collection: string,
    query: IndexQuery,
    input: { limit: number; cursor?: string | undefined },
    keep: (doc: StoredDocument) => Promise<PublicCard | null>,
  ): Promise<DirectoryPage> {
    const items: PublicCard[] = [];
    let cursor = input.cursor;
    let scanned = 0;
    do {
      const page = await this.deps.store.find(collection, query, { limit: input.limit - items.length, ...(cursor ? { cursor } : {}) });
      const kept = await Promise.all(page.items.map(keep));
      for (const card of kept) if (card) items.push(card);
      scanned += page.items.length;
      cursor = page.nextCursor;
    } while (cursor && items.length < input.limit && scanned < MAX_SCANNED);
    return { items, ...(cursor ? { nextCursor: cursor } : {}) };
  }
}
