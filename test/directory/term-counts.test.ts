/**
 * The search index's term counts and withdrawal (DECISIONS "Public directory and agent
 * cards"): counts move with the entries in the card's commit, a multi-word search starts
 * from the rarest word, and a paused agent's card leaves the index until it is resumed.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { CardViews } from '../../src/directory/card-views.js';
import {
  CARD_TERMS,
  CARDS,
  DIRECTORY_COLLECTIONS,
  TERM_COUNTS,
  TERM_INDEX,
  type CardRecord,
  type CardTermRecord,
} from '../../src/directory/card.records.js';
import { CardsService, type CardSubjects } from '../../src/directory/cards.service.js';
import { DirectoryService } from '../../src/directory/directory.service.js';
import { migrateTermCounts } from '../../src/directory/term-counts.migration.js';
import { createLogger } from '../../src/observability/logger.js';
import type { IndexQuery, PageRequest } from '../../kernel/ports/store.port.js';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { MemoryStore } from '../support/memory-store.adapter.js';

let clock: ManualClock;
let store: MemoryStore;
let cards: CardsService;
let directory: DirectoryService;
/** Agents not in it are active. */
let paused: Set<string>;
/** Term ranges the directory read (`find` on the term index), by term. */
let termReads: string[];

beforeEach(async () => {
  clock = new ManualClock();
  store = new MemoryStore(clock);
  await store.init(DIRECTORY_COLLECTIONS);
  paused = new Set();
  termReads = [];
  const subjects: CardSubjects = {
    get: async ({ id }) => ({ publicId: `pub_${id}`, name: id, createdAt: 0, live: !paused.has(id) }),
  };
  const views = new CardViews('http://test');
  cards = new CardsService({ store, clock, subjects, views });
  const watched = Object.create(store) as MemoryStore;
  watched.find = <T>(collection: string, query: IndexQuery, page: PageRequest) => {
    if (collection === CARD_TERMS) termReads.push(String(query.gte).split(' ')[0]!);
    return store.find<T>(collection, query, page);
  };
  const portfolio = { portfolio: async () => ({ positions: [], openOrders: 0 }), change24hPct: async () => null };
  directory = new DirectoryService({ store: watched, clock, subjects, views, portfolio });
});

async function publish(id: string, name: string, description: string) {
  await clock.advance(1_000);
  const subject = { type: 'agent' as const, id };
  await cards.edit(subject, { name, description, services: [], active: true });
  await cards.publish(subject, { snapshot: false });
}

/** Every stored count, by term. */
async function counts(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const { items } = await store.list<{ cards: number }>(TERM_COUNTS, { limit: 10_000 });
  for (const doc of items) out[doc.id] = doc.data.cards;
  return out;
}

/** The counts as the term entries say they should be. */
async function recount(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const { items } = await store.find<CardTermRecord>(CARD_TERMS, { index: TERM_INDEX, gte: '', lte: '\uffff' }, { limit: 10_000 });
  for (const doc of items) {
    const term = String(doc.indexes[TERM_INDEX]).split(' ')[0]!;
    out[term] = (out[term] ?? 0) + 1;
  }
  return out;
}

/** Public ids of every page of a search, `limit` a page. */
async function search(q: string, limit = 2): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await directory.page({ limit, q, ...(cursor ? { cursor } : {}) });
    ids.push(...page.items.map((card) => card.publicId));
    cursor = page.nextCursor;
  } while (cursor);
  return ids;
}

async function entriesOf(id: string): Promise<number> {
  const { items } = await store.find<CardTermRecord>(CARD_TERMS, { index: TERM_INDEX, gte: '', lte: '\uffff' }, { limit: 10_000 });
  return items.filter((doc) => doc.data.card === `agent:${id}`).length;
}

describe('directory term counts', () => {
  it('a two-word query whose first word is common: exactly the cards holding both, newest first, read from the rare word', async () => {
    // "frequently" is the longer word, so the query's first: 12 cards hold it, 3 of them "owl" too, 2 others "owl" alone.
    for (let i = 0; i < 12; i++) await publish(`c${i}`, i % 4 === 0 ? `Owl ${i}` : `Bot ${i}`, 'frequently trades');
    await publish('o1', 'Owl one', 'rarely');
    await publish('o2', 'Night owl', 'seldom');
    expect(await search('frequently owl')).toEqual(['pub_c8', 'pub_c4', 'pub_c0']);
    expect(await search('owl frequently', 1)).toEqual(['pub_c8', 'pub_c4', 'pub_c0']);
    expect(await search('frequently owl', 50)).toEqual(['pub_c8', 'pub_c4', 'pub_c0']);
    // The common word's range was never walked.
    expect(termReads.length).toBeGreaterThan(0);
    expect(termReads.every((term) => term === 'owl')).toBe(true);
    expect(await search('frequently bot nothing')).toEqual([]);
    expect(await search('owl')).toEqual(['pub_o2', 'pub_o1', 'pub_c8', 'pub_c4', 'pub_c0']);
  });

  it('counts follow publish, re-publish, edits and revoke, in the commit of the entries', async () => {
    await publish('a', 'Alpha Fox', 'hunts');
    await publish('b', 'Alpha Bear', 'hunts fish');
    expect(await counts()).toEqual(await recount());
    expect((await counts()).alpha).toBe(2);
    expect((await counts()).hunts).toBe(2);
    expect((await counts()).fox).toBe(1);

    const before = await counts();
    await cards.publish({ type: 'agent', id: 'a' }, { snapshot: false });
    await cards.publish({ type: 'agent', id: 'a' }, { snapshot: true });
    expect(await counts()).toEqual(before);

    await publish('a', 'Alpha Fox', 'sleeps');
    expect((await counts()).hunts).toBe(1);
    expect((await counts()).sleeps).toBe(1);
    expect(await counts()).toEqual(await recount());

    await cards.revoke({ type: 'agent', id: 'b' });
    await cards.revoke({ type: 'agent', id: 'b' });
    expect(await counts()).toEqual(await recount());
    expect((await counts()).alpha).toBe(1);
    expect(await counts()).not.toHaveProperty('bear');
    expect(await counts()).not.toHaveProperty('hunts');

    await cards.publish({ type: 'agent', id: 'b' }, { snapshot: false });
    expect((await counts()).alpha).toBe(2);
    expect(await counts()).toEqual(await recount());
  });

  it("a paused agent's card leaves the index (entries, counts, page) and comes back on resume", async () => {
    await publish('s', 'Sleepy Owl', 'naps');
    await publish('t', 'Tired Owl', 'naps');
    const subject = { type: 'agent' as const, id: 's' };
    paused.add('s');
    await cards.subjectChanged(subject);
    expect(await entriesOf('s')).toBe(0);
    expect(await counts()).toEqual(await recount());
    expect((await counts()).owl).toBe(1);
    expect(await counts()).not.toHaveProperty('sleepy');
    expect((await directory.page({ limit: 10 })).items.map((card) => card.publicId)).toEqual(['pub_t']);
    expect((await store.get<CardRecord>(CARDS, 'agent:s'))?.data.status).toBe('published');
    // Told twice, or published while paused: still nothing in the index.
    await cards.subjectChanged(subject);
    await cards.publish(subject, { snapshot: false });
    expect(await entriesOf('s')).toBe(0);
    expect(await counts()).toEqual(await recount());

    paused.delete('s');
    await cards.subjectChanged(subject);
    expect(await search('sleepy')).toEqual(['pub_s']);
    expect(await search('owl naps')).toEqual(['pub_s', 'pub_t']);
    expect((await counts()).owl).toBe(2);
    expect(await counts()).toEqual(await recount());

    // Revoked while paused, then resumed: nothing comes back.
    paused.add('s');
    await cards.subjectChanged(subject);
    await cards.revoke(subject);
    paused.delete('s');
    await cards.subjectChanged(subject);
    expect(await entriesOf('s')).toBe(0);
    expect(await search('sleepy')).toEqual([]);
    expect(await counts()).toEqual(await recount());
    // An agent without a card gets none.
    await cards.subjectChanged({ type: 'agent', id: 'nobody' });
    expect(await store.get(CARDS, 'agent:nobody')).toBeNull();
  });

  it('stored cards from before the counts: counted once (a paused one withdrawn), safe to run twice', async () => {
    await publish('a', 'Alpha Fox', 'hunts');
    await publish('b', 'Alpha Bear', 'hunts');
    await publish('p', 'Paused Alpha', 'hunts');
    // As an older version left them: entries written, no `index` state, no counts.
    for (const id of ['agent:a', 'agent:b', 'agent:p']) {
      const doc = (await store.get<CardRecord>(CARDS, id))!;
      const { index: _none, ...published } = doc.data.published!;
      await store.put(CARDS, id, { data: { ...doc.data, published }, expectedVersion: doc.version, indexes: doc.indexes });
    }
    for (const term of Object.keys(await counts())) await store.delete(TERM_COUNTS, term, (await store.get(TERM_COUNTS, term))!.version);
    paused.add('p');
    expect(await search('alpha hunts')).toEqual(['pub_b', 'pub_a']);

    const deps = { store, cards, logger: createLogger({ level: 'silent' }), now: () => clock.now() };
    expect(await migrateTermCounts(deps)).toBe(3);
    expect(await migrateTermCounts(deps)).toBe(0);
    expect(await entriesOf('p')).toBe(0);
    expect((await counts()).alpha).toBe(2);
    expect(await counts()).toEqual(await recount());
    expect(await search('alpha hunts')).toEqual(['pub_b', 'pub_a']);
  });
});
