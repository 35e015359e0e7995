import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ManualClock } from '../support/manual-clock.adapter.js';
import { AppError, type ErrorCode } from '../../kernel/errors/app-error.js';
import type { CommitWrite, IndexQuery, IndexValue, PutInput, StoredDocument, StorePort } from '../../kernel/ports/store.port.js';

interface Subject {
  store: StorePort;
  clock: ManualClock;
  cleanup: () => Promise<void>;
}

/**
 * The behaviour every Store adapter must show. `factory` returns a fresh, empty store per
 * test. Its own TTL sweeper must not fire within an hour of ManualClock time: the suite
 * moves the clock by seconds and counts what `sweepExpired` removes.
 */
export function storeContract(name: string, factory: () => Promise<Subject>): void {
  describe(`Store contract: ${name}`, () => {
    let subject: Subject;
    let store: StorePort;
    let clock: ManualClock;
    let things: string;
    let others: string;

    beforeEach(async () => {
      subject = await factory();
      ({ store, clock } = subject);
      things = `things-${randomUUID()}`;
      others = `others-${randomUUID()}`;
      await store.init([
        { name: things, indexes: ['owner', 'score', 'label'] },
        { name: others, indexes: [] },
      ]);
    });
    afterEach(async () => subject.cleanup());

    const put = (id: string, input: Partial<PutInput> = {}, journal?: number) =>
      store.put(things, id, { data: { id }, expectedVersion: 0, ...input }, journal === undefined ? undefined : entry(journal));
    const entry = (n: number) => ({ event: { type: 'thing.changed', n }, state: { value: `s${n}` }, at: 1_000 + n });
    const ids = (docs: StoredDocument[]) => docs.map((doc) => doc.id);
    const findIds = async (query: Omit<IndexQuery, 'index'> & { index?: string }) =>
      ids((await store.find(things, { index: 'score', ...query }, { limit: 1000 })).items);

    /** Follows cursors to the end; returns the pages' ids. */
    async function pages(next: (cursor?: string) => Promise<{ items: StoredDocument[]; nextCursor?: string }>) {
      const out: string[][] = [];
      let cursor: string | undefined;
      do {
        const page = await next(cursor);
        out.push(ids(page.items));
        cursor = page.nextCursor;
      } while (cursor && out.length < 100);
      return out;
    }

    describe('collections', () => {
      it('refuses collections that init did not declare', async () => {
        const undeclared = `undeclared-${randomUUID()}`;
        await expectAppError(store.put(undeclared, 'a', { data: {}, expectedVersion: 0 }));
        await expectAppError(store.get(undeclared, 'a'));
        await expectAppError(store.list(undeclared, { limit: 10 }));
      });

      it('keeps the same id in two collections apart', async () => {
        await put('a', { data: { in: 'things' } });
        await store.put(others, 'a', { data: { in: 'others' }, expectedVersion: 0 });
        expect((await store.get(things, 'a'))?.data).toEqual({ in: 'things' });
        expect((await store.get(others, 'a'))?.data).toEqual({ in: 'others' });
        expect(ids((await store.list(others, { limit: 10 })).items)).toEqual(['a']);
      });

      it('answers ping', async () => {
        await expect(store.ping()).resolves.toBeUndefined();
      });
    });

    describe('versions and compare-and-set', () => {
      it('creates at version 1 with expectedVersion 0 and stamps updatedAt from the clock', async () => {
        expect(await store.get(things, 'a')).toBeNull();
        const created = await put('a', { data: { n: 1 }, indexes: { owner: 'alice' } });
        expect(created).toEqual({ id: 'a', version: 1, data: { n: 1 }, indexes: { owner: 'alice' }, updatedAt: clock.now() });
        expect(await store.get(things, 'a')).toEqual(created);
      });

      it('grows the version by exactly 1 per write', async () => {
        await put('a');
        for (let version = 1; version < 6; version++) {
          await clock.advance(1_000);
          const written = await put('a', { data: { version }, expectedVersion: version });
          expect(written).toMatchObject({ version: version + 1, updatedAt: clock.now() });
        }
        expect(await store.get(things, 'a')).toMatchObject({ version: 6, data: { version: 5 } });
      });

      it('refuses to create an id that exists, leaving it unchanged', async () => {
        await put('a', { data: { first: true } });
        const error = await expectAppError(put('a', { data: { first: false } }), 'VERSION_CONFLICT');
        expect(error).toMatchObject({ kind: 'conflict', retryable: true });
        expect(await store.get(things, 'a')).toMatchObject({ version: 1, data: { first: true } });
      });

      it('refuses a stale or future expectedVersion and an update of a missing id', async () => {
        await put('a', { data: { n: 1 } });
        await put('a', { data: { n: 2 }, expectedVersion: 1 });
        await expectAppError(put('a', { data: { n: 3 }, expectedVersion: 1 }), 'VERSION_CONFLICT');
        await expectAppError(put('a', { data: { n: 3 }, expectedVersion: 3 }), 'VERSION_CONFLICT');
        await expectAppError(put('missing', { expectedVersion: 1 }), 'VERSION_CONFLICT');
        expect(await store.get(things, 'a')).toMatchObject({ version: 2, data: { n: 2 } });
        expect(await store.get(things, 'missing')).toBeNull();
      });

      it('refuses a negative or fractional expectedVersion', async () => {
        await expectAppError(put('a', { expectedVersion: -1 }));
        await expectAppError(put('a', { expectedVersion: 0.5 }));
        expect(await store.get(things, 'a')).toBeNull();
      });
    });

    describe('journal', () => {
      it('writes the entry with the document: seq is the new version, absent when the put has none', async () => {
        await put('a', {}, 1);
        await put('a', { expectedVersion: 1 });
        await put('a', { expectedVersion: 2 }, 3);
        expect(await store.readJournal(things, 'a', { limit: 10 })).toEqual([
          { seq: 1, ...entry(1) },
          { seq: 3, ...entry(3) },
        ]);
      });

      it('writes no entry for a put that lost its compare-and-set', async () => {
        await put('a', {}, 1);
        await expectAppError(put('a', { expectedVersion: 0 }, 2), 'VERSION_CONFLICT');
        await expectAppError(put('a', { expectedVersion: 5 }, 6), 'VERSION_CONFLICT');
        expect((await store.readJournal(things, 'a', { limit: 10 })).map((e) => e.seq)).toEqual([1]);
      });

      it('reads in numeric seq order, paged by afterSeq and limit', async () => {
        for (let version = 0; version < 12; version++) await put('a', { expectedVersion: version }, version + 1);
        const seqs = async (afterSeq: number | undefined, limit: number) =>
          (await store.readJournal(things, 'a', { afterSeq, limit })).map((e) => e.seq);
        expect(await seqs(undefined, 100)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
        expect(await seqs(0, 5)).toEqual([1, 2, 3, 4, 5]);
        expect(await seqs(5, 5)).toEqual([6, 7, 8, 9, 10]);
        expect(await seqs(10, 5)).toEqual([11, 12]);
        expect(await seqs(12, 5)).toEqual([]);
        expect(await store.readJournal(things, 'never-written', { limit: 5 })).toEqual([]);
      });

      it('keeps the journals of ids sharing a prefix and of other collections apart', async () => {
        await put('a', {}, 1);
        await put('ab', {}, 1);
        await put('ab', { expectedVersion: 1 }, 2);
        await store.put(others, 'a', { data: {}, expectedVersion: 0 }, entry(7));
        expect((await store.readJournal(things, 'a', { limit: 10 })).map((e) => e.seq)).toEqual([1]);
        expect((await store.readJournal(things, 'ab', { limit: 10 })).map((e) => e.seq)).toEqual([1, 2]);
        expect(await store.readJournal(others, 'a', { limit: 10 })).toEqual([{ seq: 1, ...entry(7) }]);
      });

      it('keeps the journal of a deleted document', async () => {
        await put('a', {}, 1);
        await put('a', { expectedVersion: 1 }, 2);
        await store.delete(things, 'a', 2);
        expect((await store.readJournal(things, 'a', { limit: 10 })).map((e) => e.seq)).toEqual([1, 2]);
      });
    });

    describe('delete', () => {
      it('deletes with the current version, from get, list and find', async () => {
        await put('a', { indexes: { owner: 'alice' } });
        await store.delete(things, 'a', 1);
        expect(await store.get(things, 'a')).toBeNull();
        expect((await store.list(things, { limit: 10 })).items).toEqual([]);
        expect(await findIds({ index: 'owner', eq: 'alice' })).toEqual([]);
      });

      it('refuses a stale version and keeps the document', async () => {
        await put('a');
        await put('a', { expectedVersion: 1 });
        await expectAppError(store.delete(things, 'a', 1), 'VERSION_CONFLICT');
        expect(await store.get(things, 'a')).toMatchObject({ version: 2 });
      });

      it('lets a deleted id be created again from version 1', async () => {
        await put('a', { data: { life: 1 } });
        await store.delete(things, 'a', 1);
        expect(await put('a', { data: { life: 2 } })).toMatchObject({ version: 1, data: { life: 2 } });
      });
    });

    describe('find', () => {
      const seed = async (docs: Array<[string, Record<string, IndexValue>]>) => {
        for (const [id, indexes] of docs) await put(id, { indexes });
      };

      it('finds by eq, ordered by id within the value', async () => {
        await seed([
          ['c', { owner: 'alice' }],
          ['a', { owner: 'alice' }],
          ['d', { owner: 'bob' }],
          ['b', { owner: 'alice' }],
          ['e', {}],
        ]);
        expect(await findIds({ index: 'owner', eq: 'alice' })).toEqual(['a', 'b', 'c']);
        expect(await findIds({ index: 'owner', eq: 'carol' })).toEqual([]);
      });

      it('tells a number from a string with the same digits', async () => {
        await seed([
          ['n', { score: 5 }],
          ['s', { score: '5' }],
        ]);
        expect(await findIds({ eq: 5 })).toEqual(['n']);
        expect(await findIds({ eq: '5' })).toEqual(['s']);
      });

      it('finds numbers in inclusive gte/lte ranges ordered by (value, id)', async () => {
        const scores: Array<[string, number]> = [
          ['m', 100],
          ['k', 10],
          ['j', 2],
          ['i', 1],
          ['h', 1],
          ['g', 0],
          ['f', -1],
          ['e', -2.5],
        ];
        await seed(scores.map(([id, score]) => [id, { score }]));
        expect(await findIds({ gte: -1, lte: 10 })).toEqual(['f', 'g', 'h', 'i', 'j', 'k']);
        expect(await findIds({ gte: 1.5 })).toEqual(['j', 'k', 'm']);
        expect(await findIds({ lte: 0 })).toEqual(['e', 'f', 'g']);
        expect(await findIds({ gte: 3, lte: 9 })).toEqual([]);
      });

      it('finds strings in ranges ordered as JavaScript orders them', async () => {
        const labels = ['banana', 'b', 'Apple', 'apple', 'ba', 'cherry', 'bz', 'b z'];
        await seed(labels.map((label, i) => [`id${i}`, { label }]));
        const found = async (query: Omit<IndexQuery, 'index'>) =>
          (await store.find(things, { index: 'label', ...query }, { limit: 100 })).items.map((d) => d.indexes.label);
        expect(await found({})).toEqual([...labels].sort());
        expect(await found({ gte: 'b', lte: 'bz' })).toEqual(['b', 'b z', 'ba', 'banana', 'bz']);
        expect(await found({ gte: 'a' })).toEqual(['apple', 'b', 'b z', 'ba', 'banana', 'bz', 'cherry']);
      });

      it('orders numbers before strings when no bound separates them', async () => {
        await seed([
          ['a', { score: 'x' }],
          ['b', { score: 2 }],
          ['c', { score: '1' }],
          ['d', { score: -3 }],
        ]);
        expect(await findIds({})).toEqual(['d', 'b', 'c', 'a']);
      });

      it('follows a document whose index values change', async () => {
        await put('a', { indexes: { owner: 'alice', score: 1 } });
        await put('a', { expectedVersion: 1, indexes: { owner: 'bob', score: 1 } });
        expect(await findIds({ index: 'owner', eq: 'alice' })).toEqual([]);
        expect(await findIds({ index: 'owner', eq: 'bob' })).toEqual(['a']);
        expect(await findIds({ eq: 1 })).toEqual(['a']);
        await put('a', { expectedVersion: 2 });
        expect(await findIds({ index: 'owner', eq: 'bob' })).toEqual([]);
        expect(await findIds({})).toEqual([]);
      });

      it('pages with a cursor, returning every match exactly once in order', async () => {
        const docs = Array.from({ length: 23 }, (_, i) => [randomUUID(), i % 5] as const);
        await seed(docs.map(([id, score]) => [id, { score }]));
        const expected = [...docs].sort((x, y) => x[1] - y[1] || (x[0] < y[0] ? -1 : 1)).map(([id]) => id);
        const seen = await pages((cursor) => store.find(things, { index: 'score', gte: 0 }, { limit: 4, cursor }));
        expect(seen.every((page) => page.length <= 4)).toBe(true);
        expect(seen.flat()).toEqual(expected);
      });

      it('resumes after the cursor even when documents are written between pages', async () => {
        await seed([
          ['b', { score: 1 }],
          ['d', { score: 1 }],
          ['f', { score: 2 }],
        ]);
        const first = await store.find(things, { index: 'score' }, { limit: 2 });
        expect(ids(first.items)).toEqual(['b', 'd']);
        await seed([
          ['a', { score: 1 }],
          ['e', { score: 1 }],
        ]);
        const rest = await pages((cursor) => store.find(things, { index: 'score' }, { limit: 2, cursor: cursor ?? first.nextCursor }));
        expect(rest.flat()).toEqual(['e', 'f']);
      });

      it('refuses an invalid cursor with VALIDATION_ERROR', async () => {
        await seed([['a', { score: 1 }]]);
        for (const cursor of ['not a cursor!', Buffer.from('{"x":1}').toString('base64url'), Buffer.from('[]').toString('base64url')]) {
          await expectAppError(store.find(things, { index: 'score' }, { limit: 5, cursor }), 'VALIDATION_ERROR');
          await expectAppError(store.list(things, { limit: 5, cursor }), 'VALIDATION_ERROR');
        }
      });

      it('refuses indexes the collection did not declare, for find and put', async () => {
        await expectAppError(store.find(things, { index: 'undeclared', eq: 1 }, { limit: 5 }));
        await expectAppError(put('a', { indexes: { undeclared: 1 } }));
        expect(await store.get(things, 'a')).toBeNull();
      });
    });

    describe('list', () => {
      it('lists by id across pages, each document once', async () => {
        const all = ['m', 'a', 'a/b', 'ab', 'B', 'z', 'a b', 'k', 'é', 'c', 'aa'];
        for (const id of all) await put(id);
        const seen = await pages((cursor) => store.list(things, { limit: 3, cursor }));
        expect(seen.every((page) => page.length <= 3)).toBe(true);
        expect(seen.flat()).toEqual([...all].sort());
      });
    });

    describe('TTL', () => {
      it('hides a document from get once expiresAt is reached', async () => {
        await put('a', { expiresAt: clock.now() + 1_000 });
        await clock.advance(999);
        expect(await store.get(things, 'a')).toMatchObject({ id: 'a', expiresAt: clock.now() + 1 });
        await clock.advance(1);
        expect(await store.get(things, 'a')).toBeNull();
      });

      it('skips expired documents in find and list', async () => {
        await put('short', { indexes: { owner: 'o' }, expiresAt: clock.now() + 1_000 });
        await put('long', { indexes: { owner: 'o' }, expiresAt: clock.now() + 60_000 });
        await put('forever', { indexes: { owner: 'o' } });
        await clock.advance(5_000);
        expect(await findIds({ index: 'owner', eq: 'o' })).toEqual(['forever', 'long']);
        expect(ids((await store.list(things, { limit: 10 })).items)).toEqual(['forever', 'long']);
      });

      it('sweepExpired removes expired documents of every collection and returns how many', async () => {
        await put('a', { expiresAt: clock.now() + 1_000 });
        await put('b', { indexes: { score: 1 }, expiresAt: clock.now() + 2_000 });
        await put('c', { expiresAt: clock.now() + 60_000 });
        await put('d');
        await store.put(others, 'x', { data: {}, expectedVersion: 0, expiresAt: clock.now() + 1_000 });
        await clock.advance(2_000);
        expect(await store.sweepExpired()).toBe(3);
        expect(await store.sweepExpired()).toBe(0);
        expect(ids((await store.list(things, { limit: 10 })).items)).toEqual(['c', 'd']);
        expect(await findIds({})).toEqual([]);
      });

      it('lets an expired id be created again with expectedVersion 0, before or after a sweep', async () => {
        await put('a', { data: { life: 1 }, expiresAt: clock.now() + 1_000 });
        await put('b', { data: { life: 1 }, expiresAt: clock.now() + 1_000 });
        await put('a', { data: { life: 1 }, expectedVersion: 1, expiresAt: clock.now() + 1_000 });
        await clock.advance(1_000);
        await expectAppError(put('a', { expectedVersion: 2 }), 'VERSION_CONFLICT');
        expect(await put('a', { data: { life: 2 } })).toMatchObject({ version: 1, data: { life: 2 } });
        await store.sweepExpired();
        expect(await put('b', { data: { life: 2 } })).toMatchObject({ version: 1, data: { life: 2 } });
        expect(await store.get(things, 'a')).toMatchObject({ version: 1, data: { life: 2 } });
      });

      it('sweeps a document rewritten with the same expiry, once', async () => {
        const expiresAt = clock.now() + 1_000;
        await put('claimed', { data: { state: 'running' }, expiresAt });
        await put('claimed', { data: { state: 'done' }, expectedVersion: 1, expiresAt });
        await put('claimed', { data: { state: 'done again' }, expectedVersion: 2, expiresAt });
        await clock.advance(1_000);
        expect(await store.sweepExpired()).toBe(1);
        expect(await store.sweepExpired()).toBe(0);
        expect(ids((await store.list(things, { limit: 10 })).items)).toEqual([]);
      });

      it('keeps a document whose TTL a later write removed or extended', async () => {
        await put('dropped', { expiresAt: clock.now() + 1_000 });
        await put('dropped', { expectedVersion: 1 });
        await put('extended', { expiresAt: clock.now() + 1_000 });
        await put('extended', { expectedVersion: 1, expiresAt: clock.now() + 10_000 });
        await clock.advance(2_000);
        expect(await store.sweepExpired()).toBe(0);
        expect(ids((await store.list(things, { limit: 10 })).items)).toEqual(['dropped', 'extended']);
        await clock.advance(8_000);
        expect(await store.sweepExpired()).toBe(1);
        expect(await store.get(things, 'dropped')).toMatchObject({ version: 2 });
      });
    });

    describe('concurrency', () => {
      it('accepts many concurrent writes to different ids', async () => {
        const all = Array.from({ length: 200 }, () => randomUUID());
        const written = await Promise.all(all.map((id, i) => put(id, { indexes: { score: i } }, 1)));
        expect(written.every((doc) => doc.version === 1)).toBe(true);
        expect(ids((await store.list(things, { limit: 1000 })).items)).toEqual([...all].sort());
        expect(await store.readJournal(things, all[123]!, { limit: 5 })).toEqual([{ seq: 1, ...entry(1) }]);
      });

      it('lets exactly one of many concurrent writers with the same expectedVersion win', async () => {
        await put('a', {}, 1);
        const writes = Array.from({ length: 25 }, (_, writer) => put('a', { data: { writer }, expectedVersion: 1 }, 100 + writer));
        const settled = await Promise.allSettled(writes);
        const won = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
        const lost = settled.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
        expect(won).toHaveLength(1);
        expect(lost.every((e) => e instanceof AppError && e.code === 'VERSION_CONFLICT')).toBe(true);
        const winner = (won[0]!.data as { writer: number }).writer;
        expect(await store.get(things, 'a')).toMatchObject({ version: 2, data: { writer: winner } });
        expect(await store.readJournal(things, 'a', { limit: 10 })).toEqual([
          { seq: 1, ...entry(1) },
          { seq: 2, ...entry(100 + winner) },
        ]);
      });

      it('loses no update when concurrent read-modify-write loops retry on conflict', async () => {
        await put('counter', { data: { n: 0 } });
        const increment = async () => {
          for (;;) {
            const current = (await store.get<{ n: number }>(things, 'counter'))!;
            try {
              return await put('counter', { data: { n: current.data.n + 1 }, expectedVersion: current.version });
            } catch (error) {
              if (!(error instanceof AppError && error.code === 'VERSION_CONFLICT')) throw error;
            }
          }
        };
        await Promise.all(
          Array.from({ length: 8 }, async () => {
            for (let i = 0; i < 5; i++) await increment();
          }),
        );
        expect(await store.get(things, 'counter')).toMatchObject({ version: 41, data: { n: 40 } });
      });
    });

    describe('commit (atomic units of work)', () => {
      const putOf = (collection: string, id: string, input: Partial<PutInput> = {}, journal?: number): CommitWrite => ({
        op: 'put',
        collection,
        id,
        input: { data: { id }, expectedVersion: 0, ...input },
        ...(journal === undefined ? {} : { journal: entry(journal) }),
      });
      const deleteOf = (collection: string, id: string, expectedVersion: number): CommitWrite => ({
        op: 'delete',
        collection,
        id,
        expectedVersion,
      });

      it('creates, updates and deletes across two collections in one commit, with their journal entries', async () => {
        await put('updated', { data: { n: 1 }, indexes: { owner: 'alice' } }, 1);
        await put('deleted', {}, 1);
        await store.put(others, 'other-updated', { data: { n: 1 }, expectedVersion: 0 });
        // Read first, so that a store caching what it read must show the commit instead.
        for (const id of ['updated', 'deleted', 'created']) await store.get(things, id);
        await clock.advance(1_000);
        const result = await store.commit([
          putOf(things, 'created', { data: { n: 0 }, indexes: { owner: 'bob' } }, 10),
          putOf(things, 'updated', { data: { n: 2 }, expectedVersion: 1, indexes: { owner: 'bob' } }, 11),
          deleteOf(things, 'deleted', 1),
          putOf(others, 'other-updated', { data: { n: 2 }, expectedVersion: 1 }),
          putOf(others, 'other-created', { data: { n: 0 } }, 12),
        ]);
        expect(result).toEqual([
          { id: 'created', version: 1, data: { n: 0 }, indexes: { owner: 'bob' }, updatedAt: clock.now() },
          { id: 'updated', version: 2, data: { n: 2 }, indexes: { owner: 'bob' }, updatedAt: clock.now() },
          null,
          { id: 'other-updated', version: 2, data: { n: 2 }, indexes: {}, updatedAt: clock.now() },
          { id: 'other-created', version: 1, data: { n: 0 }, indexes: {}, updatedAt: clock.now() },
        ]);
        expect(await store.get(things, 'created')).toEqual(result[0]);
        expect(await store.get(things, 'updated')).toEqual(result[1]);
        expect(await store.get(things, 'deleted')).toBeNull();
        expect(await store.get(others, 'other-updated')).toEqual(result[3]);
        expect(ids((await store.list(others, { limit: 10 })).items)).toEqual(['other-created', 'other-updated']);
        expect(await store.readJournal(things, 'created', { limit: 5 })).toEqual([{ seq: 1, ...entry(10) }]);
        expect(await store.readJournal(things, 'updated', { limit: 5 })).toEqual([
          { seq: 1, ...entry(1) },
          { seq: 2, ...entry(11) },
        ]);
        expect(await store.readJournal(things, 'deleted', { limit: 5 })).toEqual([{ seq: 1, ...entry(1) }]);
        expect(await store.readJournal(others, 'other-updated', { limit: 5 })).toEqual([]);
        expect(await store.readJournal(others, 'other-created', { limit: 5 })).toEqual([{ seq: 1, ...entry(12) }]);
        // Returned documents are frozen, as every other read.
        expect(() => ((result[0]!.data as { n: number }).n = 9)).toThrow(TypeError);
      });

      it('writes nothing when a compare-and-set in the middle of the batch fails, and names that document', async () => {
        await put('a', { data: { n: 1 }, indexes: { owner: 'alice' } }, 1);
        await put('b', { data: { n: 1 } }, 1);
        await put('c', { data: { n: 1 } }, 1);
        await store.put(others, 'x', { data: { n: 1 }, expectedVersion: 0 });
        for (const id of ['a', 'b', 'c']) await store.get(things, id);
        const error = await expectAppError(
          store.commit([
            putOf(things, 'a', { data: { n: 2 }, expectedVersion: 1, indexes: { owner: 'bob' } }, 2),
            putOf(things, 'new', { data: { n: 0 }, indexes: { owner: 'bob' } }, 3),
            putOf(things, 'b', { data: { n: 2 }, expectedVersion: 7 }, 4), // stale: b is at 1
            deleteOf(things, 'c', 1),
            putOf(others, 'x', { data: { n: 2 }, expectedVersion: 1 }),
          ]),
          'VERSION_CONFLICT',
        );
        expect(error).toMatchObject({
          kind: 'conflict',
          retryable: true,
          details: { collection: things, id: 'b', expected: 7, actual: 1 },
        });
        expect(error.message).toBe(`Version conflict on ${things}/b: expected 7, found 1`);
        expect(await store.get(things, 'a')).toMatchObject({ version: 1, data: { n: 1 }, indexes: { owner: 'alice' } });
        expect(await store.get(things, 'new')).toBeNull();
        expect(await store.get(things, 'b')).toMatchObject({ version: 1, data: { n: 1 } });
        expect(await store.get(things, 'c')).toMatchObject({ version: 1 });
        expect(await store.get(others, 'x')).toMatchObject({ version: 1, data: { n: 1 } });
        // Journal entries go only with their documents.
        expect(await store.readJournal(things, 'a', { limit: 5 })).toEqual([{ seq: 1, ...entry(1) }]);
        expect(await store.readJournal(things, 'new', { limit: 5 })).toEqual([]);
        expect(await store.readJournal(things, 'b', { limit: 5 })).toEqual([{ seq: 1, ...entry(1) }]);
        // Index entries too: the refused index value finds nothing, the kept one finds a.
        expect(ids((await store.find(things, { index: 'owner', eq: 'bob' }, { limit: 10 })).items)).toEqual([]);
        expect(ids((await store.find(things, { index: 'owner', eq: 'alice' }, { limit: 10 })).items)).toEqual(['a']);
      });

      it('fails as a whole on the last write, on a create of an existing id and on a stale delete', async () => {
        await put('a', {}, 1);
        await put('b', {}, 1);
        const attempts: CommitWrite[][] = [
          [putOf(things, 'fresh', {}, 5), putOf(things, 'a', {}, 5)], // create of an existing id, last
          [putOf(things, 'fresh', {}, 5), deleteOf(things, 'b', 2)], // stale delete
          [deleteOf(things, 'b', 1), putOf(things, 'missing', { expectedVersion: 1 })], // update of a missing id
        ];
        for (const writes of attempts) await expectAppError(store.commit(writes), 'VERSION_CONFLICT');
        expect(await store.get(things, 'fresh')).toBeNull();
        expect(await store.readJournal(things, 'fresh', { limit: 5 })).toEqual([]);
        expect(await store.get(things, 'b')).toMatchObject({ version: 1 });
        expect(await store.get(things, 'missing')).toBeNull();
      });

      it('refuses a document twice, an undeclared collection or index, and bad versions, writing nothing', async () => {
        await expectAppError(store.commit([putOf(things, 'a'), putOf(things, 'a', { expectedVersion: 1 })]), 'INTERNAL_SERVICE_ERROR');
        await expectAppError(store.commit([putOf(things, 'a'), deleteOf(things, 'a', 1)]), 'INTERNAL_SERVICE_ERROR');
        await expectAppError(store.commit([putOf(things, 'a'), putOf(`undeclared-${randomUUID()}`, 'b')]));
        await expectAppError(store.commit([putOf(things, 'a'), putOf(others, 'b', { indexes: { owner: 'x' } })]));
        await expectAppError(store.commit([putOf(things, 'a'), deleteOf(others, 'b', -1)]));
        await expectAppError(store.commit([putOf(things, 'a'), putOf(others, 'b', { expectedVersion: 0.5 })]));
        expect(await store.get(things, 'a')).toBeNull();
        expect(await store.commit([])).toEqual([]);
        // The same id in two collections is two documents.
        expect(await store.commit([putOf(things, 'a'), putOf(others, 'a')])).toHaveLength(2);
      });

      it('keeps indexes and TTL as put does', async () => {
        await put('moved', { data: { n: 1 }, indexes: { owner: 'alice', score: 1 } });
        await put('gone', { indexes: { owner: 'alice' }, expiresAt: clock.now() + 1_000 });
        await store.commit([
          putOf(things, 'moved', { data: { n: 2 }, expectedVersion: 1, indexes: { owner: 'bob', score: 1 } }),
          putOf(things, 'short', { indexes: { owner: 'bob', score: 2 }, expiresAt: clock.now() + 5_000 }),
          putOf(things, 'long', { indexes: { owner: 'bob', score: 3 }, expiresAt: clock.now() + 60_000 }),
          putOf(things, 'gone', { expectedVersion: 1, indexes: { owner: 'bob' } }), // its TTL dropped
        ]);
        expect(ids((await store.find(things, { index: 'owner', eq: 'alice' }, { limit: 10 })).items)).toEqual([]);
        expect(ids((await store.find(things, { index: 'owner', eq: 'bob' }, { limit: 10 })).items)).toEqual([
          'gone',
          'long',
          'moved',
          'short',
        ]);
        expect(await findIds({ gte: 1, lte: 3 })).toEqual(['moved', 'short', 'long']);
        await clock.advance(5_000);
        expect(await store.get(things, 'short')).toBeNull();
        expect(await store.get(things, 'gone')).toMatchObject({ version: 2 });
        expect(await store.sweepExpired()).toBe(1);
        expect(ids((await store.find(things, { index: 'owner', eq: 'bob' }, { limit: 10 })).items)).toEqual(['gone', 'long', 'moved']);
        // An expired document is created again with expectedVersion 0 in a commit too, with a fresh journal.
        await put('ttl', { expiresAt: clock.now() + 1_000 }, 1);
        await clock.advance(1_000);
        const [again] = await store.commit([putOf(things, 'ttl', { indexes: { owner: 'carol' } }, 9), deleteOf(things, 'long', 1)]);
        expect(again).toMatchObject({ version: 1 });
        expect(await store.readJournal(things, 'ttl', { limit: 5 })).toEqual([{ seq: 1, ...entry(9) }]);
        expect(ids((await store.find(things, { index: 'owner', eq: 'bob' }, { limit: 10 })).items)).toEqual(['gone', 'moved']);
        expect(await findIds({ gte: 1, lte: 3 })).toEqual(['moved']);
      });

      it('stores copies of the inputs, taken when commit is called', async () => {
        const data = { list: [1] };
        const event = { type: 'thing.changed', n: 1 };
        const pending = store.commit([
          { op: 'put', collection: things, id: 'a', input: { data, expectedVersion: 0 }, journal: { event, state: 's', at: 1 } },
        ]);
        data.list.push(2);
        event.n = 2;
        await pending;
        expect((await store.get(things, 'a'))?.data).toEqual({ list: [1] });
        expect((await store.readJournal(things, 'a', { limit: 5 }))[0]?.event).toEqual({ type: 'thing.changed', n: 1 });
      });

      it('serialises concurrent commits over the same documents: one wins, the others conflict', async () => {
        for (let round = 0; round < 5; round++) {
          const [a, b] = [`a${round}`, `b${round}`];
          await put(a, { data: { writer: -1 } });
          await put(b, { data: { writer: -1 } });
          const commits = Array.from({ length: 10 }, (_, writer) => {
            const both = [
              putOf(things, a, { data: { writer }, expectedVersion: 1 }, 100 + writer),
              putOf(things, b, { data: { writer }, expectedVersion: 1 }, 100 + writer),
            ];
            // Half of them name the documents in the other order.
            return store.commit(writer % 2 === 0 ? both : [...both].reverse());
          });
          // A single put racing the commits on one of their documents.
          const single = put(b, { data: { writer: 'single' }, expectedVersion: 1 }, 99);
          const settled = await Promise.allSettled([...commits, single]);
          const won = settled.filter((r) => r.status === 'fulfilled');
          const lost = settled.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
          expect(won).toHaveLength(1);
          expect(lost.every((e) => e instanceof AppError && e.code === 'VERSION_CONFLICT')).toBe(true);
          const [docA, docB] = [await store.get<{ writer: unknown }>(things, a), await store.get<{ writer: unknown }>(things, b)];
          expect(docB).toMatchObject({ version: 2 });
          if (docB!.data.writer === 'single') {
            expect(docA).toMatchObject({ version: 1, data: { writer: -1 } });
          } else {
            expect(docA).toMatchObject({ version: 2, data: { writer: docB!.data.writer } });
            const writer = docB!.data.writer as number;
            expect((await store.readJournal(things, a, { limit: 5 })).map((e) => e.seq)).toEqual([2]);
            expect(await store.readJournal(things, b, { limit: 5 })).toEqual([{ seq: 2, ...entry(100 + writer) }]);
          }
        }
      });

      it('loses no update when concurrent commits of two counters retry on conflict', async () => {
        await put('left', { data: { n: 0 } });
        await store.put(others, 'right', { data: { n: 0 }, expectedVersion: 0 });
        const transfer = async () => {
          for (;;) {
            const [left, right] = [(await store.get<{ n: number }>(things, 'left'))!, (await store.get<{ n: number }>(others, 'right'))!];
            try {
              return await store.commit([
                putOf(things, 'left', { data: { n: left.data.n - 1 }, expectedVersion: left.version }),
                putOf(others, 'right', { data: { n: right.data.n + 1 }, expectedVersion: right.version }),
              ]);
            } catch (error) {
              if (!(error instanceof AppError && error.code === 'VERSION_CONFLICT')) throw error;
            }
          }
        };
        await Promise.all(
          Array.from({ length: 6 }, async () => {
            for (let i = 0; i < 5; i++) await transfer();
          }),
        );
        expect(await store.get(things, 'left')).toMatchObject({ version: 31, data: { n: -30 } });
        expect(await store.get(others, 'right')).toMatchObject({ version: 31, data: { n: 30 } });
      });
    });

    describe('data', () => {
      const sample = () => ({
        text: 'plain',
        unicode: ['日本語', 'emoji 😀👍🏽', 'e\u0301', 'שלום', 'tab\tquote"backslash\\', 'nul\u0000byte', ''],
        numbers: [0, -1, 2.71, -2.5e-8, 1e21, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER],
        flags: [true, false, null],
        nested: { deeper: { deepest: [[1, [2, [3]]], { k: 'v' }], empty: {} }, list: [] as unknown[] },
        'ключ ✓': { 'spaced key': 1 },
      });

      it('round-trips nested objects, arrays, unicode and numbers through every read', async () => {
        const written = await put('a', { data: sample(), indexes: { owner: 'ünïcødé 😀' } }, 1);
        expect(written.data).toEqual(sample());
        expect((await store.get(things, 'a'))?.data).toEqual(sample());
        expect((await store.list(things, { limit: 5 })).items[0]?.data).toEqual(sample());
        const [found] = (await store.find(things, { index: 'owner', eq: 'ünïcødé 😀' }, { limit: 5 })).items;
        expect(found).toEqual(written);
        const [journaled] = await store.readJournal(things, 'a', { limit: 5 });
        expect(journaled).toEqual({ seq: 1, ...entry(1) });
      });

      it('round-trips ids with unicode, spaces and separators', async () => {
        const odd = ['ünï/cødé 😀', 'with space', 'slash/and:colon', 'pipe|and,comma', '名前'];
        for (const id of odd) await put(id, { data: { id } });
        for (const id of odd) expect(await store.get(things, id)).toMatchObject({ id, data: { id } });
        expect(ids((await store.list(things, { limit: 10 })).items)).toEqual([...odd].sort());
      });

      it('finds no document under an id or index value longer than any it could have stored', async () => {
        // A client may send any id in a path: reads answer "absent" whatever the adapter's key limit.
        const long = 'x'.repeat(5_000);
        await put('a', { data: { n: 1 }, indexes: { owner: 'u1' } });
        expect(await store.get(things, long)).toBeNull();
        expect((await store.find(things, { index: 'owner', eq: long }, { limit: 5 })).items).toEqual([]);
      });

      it('stores a copy of the input, taken when put is called', async () => {
        const data = sample();
        const event = { type: 'thing.changed', payload: { n: 1 } };
        const pending = store.put(things, 'a', { data, expectedVersion: 0 }, { event, state: 's', at: 1 });
        (data.nested.deeper.deepest as unknown[]).push('before the write resolved');
        event.payload.n = 2;
        await pending;
        data.text = 'after the write';
        data.numbers.push(42);
        event.payload.n = 3;
        expect((await store.get(things, 'a'))?.data).toEqual(sample());
        expect((await store.readJournal(things, 'a', { limit: 5 }))[0]?.event).toEqual({ type: 'thing.changed', payload: { n: 1 } });
      });

      it('hands out frozen documents (shared, so a mutation throws) and journal entries as copies', async () => {
        const written = await put('a', { data: sample(), indexes: { owner: 'o' } }, 1);
        const read = (await store.get<ReturnType<typeof sample>>(things, 'a'))!;
        const listed = (await store.list<ReturnType<typeof sample>>(things, { limit: 5 })).items[0]!;
        const found = (await store.find<ReturnType<typeof sample>>(things, { index: 'owner', eq: 'o' }, { limit: 5 })).items[0]!;
        // ESM is strict mode: writing to a frozen object throws instead of failing silently.
        expect(() => (written.data as ReturnType<typeof sample>).nested.list.push('x')).toThrow(TypeError);
        expect(() => (written.indexes.owner = 'mutated')).toThrow(TypeError);
        expect(() => (read.data.text = 'mutated')).toThrow(TypeError);
        expect(() => listed.data.flags.push(true)).toThrow(TypeError);
        expect(() => (found.data.numbers.length = 0)).toThrow(TypeError);
        const [journaled] = await store.readJournal(things, 'a', { limit: 5 });
        (journaled!.event as { n: number }).n = 99;
        expect(await store.get(things, 'a')).toMatchObject({ data: sample(), indexes: { owner: 'o' } });
        expect(await store.readJournal(things, 'a', { limit: 5 })).toEqual([{ seq: 1, ...entry(1) }]);
      });

      it('reads the latest write, however often the earlier version was read', async () => {
        await put('a', { data: sample() }, 1);
        for (let i = 0; i < 3; i++) expect((await store.get<ReturnType<typeof sample>>(things, 'a'))?.data.text).toBe(sample().text);
        await store.put(things, 'a', { data: { ...sample(), text: 'second' }, expectedVersion: 1 });
        expect((await store.get<ReturnType<typeof sample>>(things, 'a'))?.data.text).toBe('second');
      });
    });
  });
}

/** Awaits a rejection and checks it is an AppError (with `code` when given). */
async function expectAppError(promise: Promise<unknown>, code?: ErrorCode): Promise<AppError> {
  const error = await promise.then(
    () => expect.fail(`expected a rejection${code ? ` with ${code}` : ''}`),
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(AppError);
  if (code) expect((error as AppError).code).toBe(code);
  return error as AppError;
}
