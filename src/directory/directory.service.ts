/**
 * The public directory (the public onboarding and directory routes; public directory and agent cards): published
 * cards paged newest first, searched by words of their name and description, the verified
 * ones as the discovery feed, one card by publicId, and its snapshot when its owner offers it.
 * Every read goes through an index (`listed`, `feed`, the term entries, `publicId`). A card
 * whose agent is paused, archived or deleted has its entries withdrawn (CardsService
 * `subjectChanged`); each read still checks the agent, for the moment between its change
 * and the withdrawal.
 */
import { AppError } from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { IndexQuery, StoredDocument, StorePort } from '../../kernel/ports/store.port.js';
import { queryWords, termKey, termRange } from './card-search.js';
import type { PublicCard, Snapshot } from './card.schemas.js';
import type { CardViews } from './card-views.js';
import type { CardSubjects } from './cards.service.js';
import {
  CARD_INDEX,
  CARD_TERMS,
  CARDS,
  TERM_COUNTS,
  TERM_INDEX,
  termEntryId,
  type CardRecord,
  type CardSubject,
  type CardTermRecord,
  type TermCountRecord,
} from './card.records.js';
import { SnapshotDates, snapshotOf, type PortfolioSource } from './snapshot.js';

/** Index entries (or join steps) read for one page before answering with what was found and a cursor to go on. */
const MAX_SCANNED = 1_000;
/** Entries of the rarest word read per store call of a multi-word search. */
const SEEK_PAGE = 64;

/** A place in the shared order of term entries: newest-first key, card id; `after`: just past it. */
interface Position {
  key: string;
  card: string;
  after: boolean;
}

function encodePosition(position: Position): string {
  return Buffer.from(JSON.stringify({ k: position.key, c: position.card, a: position.after })).toString('base64url');
}

function decodePosition(cursor: string): Position {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (parsed && typeof parsed === 'object') {
      const { k, c, a } = parsed as Record<string, unknown>;
      if (typeof k === 'string' && /^\d{15}$/.test(k) && typeof c === 'string' && c.length <= 300 && typeof a === 'boolean')
        return { key: k, card: c, after: a };
    }
  } catch {
    // answered below
  }
  throw AppError.validation(['cursor is invalid']);
}

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
  private readonly snapshotDates = new SnapshotDates();

  constructor(private readonly deps: DirectoryDeps) {}

  /** `GET /api/public/erc8004/agents/page`: newest published first; with `q`, the cards holding every word of it. */
  page(input: { limit: number; cursor?: string | undefined; q?: string | undefined }): Promise<DirectoryPage> {
    const q = input.q?.trim();
    if (!q) return this.read(CARDS, { index: CARD_INDEX.listed, gte: '' }, input, (doc) => this.visible(doc as StoredDocument<CardRecord>));
    const words = queryWords(q);
    // Nothing searchable in `q` (only punctuation): nothing matches it.
    if (words.length === 0) return Promise.resolve({ items: [] });
    if (words.length > 1) return this.intersect(words, input);
    return this.read(CARD_TERMS, { index: TERM_INDEX, ...termRange(words[0]!) }, input, async (entry) => {
      const term = entry.data as CardTermRecord;
      return this.termCard(term.card, term.gen);
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
    const figures = await snapshotOf(publicId, doc.data.subject, this.deps.portfolio);
    return this.snapshotDates.dated(figures, this.deps.clock.now());
  }

  private async published(publicId: string): Promise<{ doc: StoredDocument<CardRecord>; card: PublicCard }> {
    const { items } = await this.deps.store.find<CardRecord>(CARDS, { index: CARD_INDEX.publicId, eq: publicId }, { limit: 1 });
    const doc = items[0];
    const card = doc ? await this.visible(doc) : null;
    if (!doc || !card) throw notFound();
    return { doc, card };
  }

  /** The published card a term entry of generation `gen` points at, if still that publish and visible. */
  private async termCard(cardId: string, gen: number): Promise<PublicCard | null> {
    const doc = await this.deps.store.get<CardRecord>(CARDS, cardId);
    // The entry of an older publish cannot outlive it (one commit), but a read between two commits may see one.
    if (!doc || doc.data.published?.gen !== gen) return null;
    return this.visible(doc);
  }

  /**
   * Cards holding every word: the rarest word's term range (by the term counts) is read in
   * its order, which every word's range shares (newest-first key, then card id), and each
   * of its cards is checked for the other words by their entries' ids; only cards holding
   * every word are read whole. The counts choose the work, not the answer: a stale count
   * reads more entries, never other cards. The cursor is the last position looked at.
   */
  private async intersect(words: string[], input: { limit: number; cursor?: string | undefined }): Promise<DirectoryPage> {
    const counts = await Promise.all(words.map((word) => this.deps.store.get<TermCountRecord>(TERM_COUNTS, word)));
    // Fewest cards first; a stable sort keeps queryWords' order (longest first) between equal counts.
    const [driver, ...others] = words
      .map((word, i) => ({ word, cards: counts[i]?.data.cards ?? 0 }))
      .sort((a, b) => a.cards - b.cards)
      .map(({ word }) => word);
    const from = input.cursor ? decodePosition(input.cursor) : undefined;
    const range = termRange(driver!);
    const query = { index: TERM_INDEX, gte: from ? termKey(driver!, from.key) : range.gte, lte: range.lte };
    const items: PublicCard[] = [];
    let cursor: string | undefined;
    let scanned = 0;
    let last: Position | undefined;
    do {
      const page = await this.deps.store.find<CardTermRecord>(CARD_TERMS, query, { limit: SEEK_PAGE, ...(cursor ? { cursor } : {}) });
      const entries = page.items.map(termEntryOf).filter((entry) => !from || isPast(entry, from));
      const found = await Promise.all(entries.map((entry) => this.holdingAll(entry, others)));
      for (const [i, entry] of entries.entries()) {
        last = { key: entry.key, card: entry.card, after: true };
        const card = found[i];
        if (card) items.push(card);
        if (items.length === input.limit) return { items, nextCursor: encodePosition(last) };
      }
      // Entries up to the cursor's position (its key's run) are not counted: the page must move past it.
      scanned += entries.length;
      cursor = page.nextCursor;
    } while (cursor && scanned < MAX_SCANNED);
    return { items, ...(cursor && last ? { nextCursor: encodePosition(last) } : {}) };
  }

  /** The card of a term entry, when it holds every one of `others` too (same publish) and is visible. */
  private async holdingAll(entry: TermEntry, others: string[]): Promise<PublicCard | null> {
    const held = await Promise.all(others.map((word) => this.deps.store.get(CARD_TERMS, termEntryId(entry.card, entry.gen, word))));
    return held.every((doc) => doc !== null) ? this.termCard(entry.card, entry.gen) : null;
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

interface TermEntry {
  key: string;
  card: string;
  gen: number;
}

function termEntryOf(doc: StoredDocument<CardTermRecord>): TermEntry {
  const value = String(doc.indexes[TERM_INDEX]);
  return { key: value.slice(value.lastIndexOf(' ') + 1), card: doc.data.card, gen: doc.data.gen };
}

/**
 * Whether `entry` comes after the cursor's position (or at it, unless `after`). Cards of one
 * key sort as their entries' ids do (`<card>#...`), whichever word they are read by.
 */
function isPast(entry: TermEntry, position: Position): boolean {
  if (entry.key !== position.key) return entry.key > position.key;
  const a = `${entry.card}#`;
  const b = `${position.card}#`;
  return a > b || (a === b && !position.after);
}
