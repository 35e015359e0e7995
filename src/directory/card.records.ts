import type { CollectionSpec } from '../../kernel/ports/store.port.js';

/** One card per agent or legacy bot (`agent:<actorId>`, `bot:<actorId>`): the one store of cards. */
export const CARDS = 'directory.cards';
/** The search index: one entry per term of a published card (card-search.ts). */
export const CARD_TERMS = 'directory.card-terms';
/** How many cards hold each term (document frequency): one record per term, written in the commit of its entries. */
export const TERM_COUNTS = 'directory.term-counts';
/** Marks one-time migrations of this module as done. */
export const DIRECTORY_META = 'directory.meta';

/** `publicId` finds a card; `listed` (published) and `feed` (published and verified) order the directory, newest first. */
export const CARD_INDEX = { publicId: 'publicId', listed: 'listed', feed: 'feed' } as const;
export const TERM_INDEX = 'term';

export const DIRECTORY_COLLECTIONS: CollectionSpec[] = [
  { name: CARDS, indexes: Object.values(CARD_INDEX) },
  { name: CARD_TERMS, indexes: [TERM_INDEX] },
  { name: TERM_COUNTS, indexes: [] },
  { name: DIRECTORY_META, indexes: [] },
];

export interface CardService {
  name: string;
  endpoint: string;
  version?: string;
}

/** The owner-written part of a card. */
export interface CardContent {
  name: string;
  description: string;
  image?: string;
  services: CardService[];
  active: boolean;
  supportedTrust?: string[];
}

export interface CardSubject {
  type: 'agent' | 'bot';
  /** Actor id. */
  id: string;
}

export interface CardRecord {
  subject: CardSubject;
  publicId: string;
  /** The card as it will next be published (an onboarding's registration starts it). */
  draft: CardContent;
  /** The agent proved its ERC-8004 identity on chain; `registrations` then names it. */
  verified: boolean;
  registrations?: Array<{ agentId: string; agentRegistry: string }>;
  status: 'draft' | 'published' | 'revoked';
  /** The owner offers the portfolio snapshot (chosen at the last publish). */
  snapshot: boolean;
  /** What the directory shows: present exactly while `status` is `published`; its index entries exist then unless withdrawn. */
  published?: {
    content: CardContent;
    /** Epoch ms. */
    at: number;
    /** Publish generation: its term entries' ids carry it, so a new publish never reuses one. */
    gen: number;
    terms: string[];
    /**
     * Its index entries (term entries, `listed`, `feed`): `counted` — present and in the term
     * counts; `withdrawn` — absent, its agent or bot not active (card-index.ts); absent — present,
     * written before term counts existed (term-counts.migration.ts counts them).
     */
    index?: 'counted' | 'withdrawn';
  };
  /** Publishes so far (the next one's generation). */
  publishes: number;
  /** Epoch ms of the last edit of the draft. */
  editedAt: number;
  updatedAt: number;
}

/** A term entry of the search index. */
export interface CardTermRecord {
  card: string;
  gen: number;
}

/** The id of a card's term entry: a search checks a card for a word by this id alone. */
export const termEntryId = (cardId: string, gen: number, term: string) => `${cardId}#${gen}#${term}`;

/** The cards whose term entries hold `term` (its record's id is the term). */
export interface TermCountRecord {
  cards: number;
}

export const cardIdOf = (subject: CardSubject) => `${subject.type}:${subject.id}`;

// Newest first in an ascending index: the time's distance to the far future, fixed width.
const FAR_FUTURE = 99_999_999_999_999;
export function newestFirstKey(at: number): string {
  return String(FAR_FUTURE - at).padStart(15, '0');
}

/** The card's own index values: always `publicId`; `listed`/`feed` while published and not withdrawn (verified ones in the feed). */
export function cardIndexes(record: CardRecord): Record<string, string> {
  const published = record.status === 'published' && record.published?.index !== 'withdrawn' && record.published;
  const key = published ? newestFirstKey(published.at) : undefined;
  return {
    [CARD_INDEX.publicId]: record.publicId,
    ...(key ? { [CARD_INDEX.listed]: key } : {}),
    ...(key && record.verified ? { [CARD_INDEX.feed]: key } : {}),
  };
}
