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
import { queryWords, termKey, termRange } from './card-search.js';
import type { PublicCard, Snapshot } from './card.schemas.js';
import type { CardViews } from './card-views.js';
import type { CardSubjects } from './cards.service.js';
import { CARD_INDEX, CARD_TERMS, CARDS, TERM_INDEX, type CardRecord, type CardSubject, type CardTermRecord } from './card.records.js';
import { snapshotOf, type PortfolioSource } from './snapshot.js';

/** Index entries (or join steps) read for one page before answering with what was found and a cursor to go on. */
const MAX_SCANNED = 1_000;
/** Term entries read per store call of a multi-word search. */
const SEEK_PAGE = 64;
/** Store calls one page of a multi-word search makes before answering with a cursor to go on. */
const MAX_READS = 200;

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
    return snapshotOf(publicId, doc.data.subject, this.deps.portfolio, this.deps.clock.now());
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
   * Cards holding every word: a leapfrog join of the words' term ranges, which share one
   * order (newest-first key, then card id). Each step moves one word's range to the furthest
   * position any word reached (from its buffered entries, else by a fresh seek there), so
   * what is read is about the entries of the rarer words, and only cards matching every word
   * are read whole. The cursor is the last position served.
   */
  private async intersect(words: string[], input: { limit: number; cursor?: string | undefined }): Promise<DirectoryPage> {
    const items: PublicCard[] = [];
    const reads = { count: 0 };
    const streams = words.map((word) => new TermStream(this.deps.store, word, reads));
    let target: Position = input.cursor ? decodePosition(input.cursor) : { key: '', card: '', after: false };
    while (items.length < input.limit) {
      let agreed = 0;
      let gen = 0;
      for (let i = 0; agreed < streams.length; i = (i + 1) % streams.length) {
        if (reads.count >= MAX_READS) return { items, nextCursor: encodePosition(target) };
        const head = await streams[i]!.seek(target);
        if (!head) return { items };
        if (head.key === target.key && head.card === target.card && !target.after) agreed++;
        else {
          target = { key: head.key, card: head.card, after: false };
          agreed = 1;
        }
        gen = head.gen;
      }
      const card = await this.termCard(target.card, gen);
      if (card) items.push(card);
      target = { ...target, after: true };
    }
    return { items, nextCursor: encodePosition(target) };
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

/** 1 when `entry` is past `target`, 0 at it, -1 before it. */
function compare(entry: TermEntry, target: Position): number {
  if (entry.key !== target.key) return entry.key < target.key ? -1 : 1;
  return entry.card === target.card ? 0 : entry.card < target.card ? -1 : 1;
}

/** One word's term entries in index order, read a page at a time; `seek` moves to a position. */
class TermStream {
  private buffer: TermEntry[] = [];
  private at = 0;
  private next: string | undefined;
  private ended = false;

  constructor(
    private readonly store: StorePort,
    private readonly word: string,
    private readonly reads: { count: number },
  ) {}

  /** The first entry at `target` or past it (past it only, when `target.after`); null when there is none. */
  async seek(target: Position): Promise<TermEntry | null> {
    for (;;) {
      for (; this.at < this.buffer.length; this.at++) {
        const entry = this.buffer[this.at]!;
        const order = compare(entry, target);
        if (order > 0 || (order === 0 && !target.after)) return entry;
      }
      if (this.ended) return null;
      const last = this.buffer.at(-1);
      // Inside one key's run (cards published in the same millisecond) read on; otherwise jump to the target.
      await this.fill(last && last.key === target.key && this.next ? { cursor: this.next } : { from: target.key });
    }
  }

  private async fill(at: { cursor: string } | { from: string }): Promise<void> {
    const range = termRange(this.word);
    const gte = 'from' in at && at.from ? termKey(this.word, at.from) : range.gte;
    this.reads.count++;
    const page = await this.store.find<CardTermRecord>(
      CARD_TERMS,
      { index: TERM_INDEX, gte, lte: range.lte },
      { limit: SEEK_PAGE, ...('cursor' in at ? { cursor: at.cursor } : {}) },
    );
    this.buffer = page.items.map((entry) => {
      const value = String(entry.indexes[TERM_INDEX]);
      return { key: value.slice(value.lastIndexOf(' ') + 1), card: entry.data.card, gen: entry.data.gen };
    });
    this.at = 0;
    this.next = page.nextCursor;
    this.ended = page.nextCursor === undefined;
  }
}
