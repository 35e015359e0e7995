import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { TradingSubject } from '../../../agents/portfolio/portfolio.types.js';
import type { PositionRecord } from '../../../agents/portfolio/positions.service.js';
import { VALUE_HISTORY, VALUE_HISTORY_COLLECTIONS, type ValuePoint } from '../../../agents/portfolio/value-history.records.js';
import { ValueHistory } from '../../../agents/portfolio/value-history.service.js';
import { Thinning, withPoint } from '../../../agents/portfolio/value-points.js';
import { ManualClock } from '../../support/manual-clock.adapter.js';
import { MemoryStore } from '../../support/memory-store.adapter.js';

const agent: TradingSubject = { type: 'agent', id: 'agt_1' };
const other: TradingSubject = { type: 'bot', id: 'bot_1' };
const MINUTE = 60_000;
const INTERVAL = 15 * MINUTE;

/** A book held in memory: `hold` sets what an account holds (whole tokens of SOL), priced by `prices`. */
async function setup(options: { retentionDays?: number } = {}) {
  const clock = new ManualClock(Date.UTC(2026, 10, 27, 10));
  const store = new MemoryStore(clock);
  await store.init(VALUE_HISTORY_COLLECTIONS);
  const books = new Map<string, PositionRecord[]>();
  const prices = { SOL: 100 };
  const ended = new Set<string>();
  const hold = (subject: TradingSubject, sol: number, realizedPnlUsd = 0) =>
    books.set(`${subject.type}:${subject.id}`, [
      {
        subject: `${subject.type}:${subject.id}`,
        chain: 'solana',
        token: 'SOL',
        symbol: 'SOL',
        decimals: 9,
        amount: String(sol),
        amountBase: String(BigInt(Math.round(sol * 1e9))),
        costBasisUsd: sol * 90,
        realizedPnlUsd,
        appliedRing: '',
        updatedAt: 0,
      },
    ]);
  const make = () =>
    new ValueHistory({
      store,
      clock,
      logger: pino({ level: 'silent' }),
      positions: { list: async (subject) => books.get(`${subject.type}:${subject.id}`) ?? [] },
      price: async (_chain, token) => (token === 'SOL' ? prices.SOL : null),
      intervalMs: INTERVAL,
      retentionDays: options.retentionDays ?? 400,
      ended: async (subject) => ended.has(`${subject.type}:${subject.id}`),
    });
  const history = make();
  // The last 30 days at up to 1,000 points: slices under an hour, so the minute series.
  const all = (subject = agent) => history.read(subject, { from: clock.now() - 30 * 24 * 60 * MINUTE, to: clock.now(), maxPoints: 1000 });
  return { clock, store, books, prices, ended, hold, history, make, all };
}

describe('ValueHistory', () => {
  it('takes one reading after a change settles, however many position updates the change made', async () => {
    const { clock, hold, history, all } = await setup();
    hold(agent, 2);
    history.changed(agent);
    history.changed(agent); // the fill's second leg
    expect(await all()).toEqual([]);
    await clock.advance(1_000);
    await history.stop(); // waits for the reading under way
    const points = await all();
    expect(points).toEqual([
      {
        at: clock.now(),
        valueUsd: '200.00',
        costBasisUsd: '180.00',
        realizedPnlUsd: '0.00',
        unrealizedPnlUsd: '20.00',
        reason: 'change',
      },
    ]);
  });

  it('reads an account trading many times a minute once more at the end of the minute, not once per fill', async () => {
    const { clock, hold, history, all } = await setup();
    hold(agent, 1);
    history.changed(agent);
    await clock.advance(1_000);
    for (let fill = 2; fill <= 10; fill++) {
      hold(agent, fill);
      history.changed(agent);
      await clock.advance(5_000);
    }
    expect((await all()).map((p) => p.valueUsd)).toEqual(['100.00']);
    await clock.advance(20_000); // the end of the gap: one reading for the nine fills
    await clock.advance(0);
    await expect.poll(async () => (await all()).map((p) => p.valueUsd)).toEqual(['100.00', '1000.00']);
    await clock.advance(10 * MINUTE); // no change since: nothing more
    await history.stop();
    expect(await all()).toHaveLength(2);
  });

  it('reads an account periodically while it holds something, at the price of the moment, and stops once it is empty', async () => {
    const { clock, hold, books, prices, history, all } = await setup();
    hold(agent, 1);
    await history.sample(agent, 'change');
    expect((await history.sweep()).sampled).toBe(0); // not due yet

    await clock.advance(INTERVAL);
    prices.SOL = 150;
    expect(await history.sweep()).toEqual({ sampled: 1, failed: 0 });
    expect(await history.sweep()).toEqual({ sampled: 0, failed: 0 }); // a sweep delivered twice reads nothing twice
    expect((await all()).map((p) => [p.valueUsd, p.reason])).toEqual([
      ['100.00', 'change'],
      ['150.00', 'periodic'],
    ]);

    books.set('agent:agt_1', []); // everything withdrawn
    await clock.advance(INTERVAL);
    expect((await history.sweep()).sampled).toBe(0);
    expect(await all()).toHaveLength(2);
  });

  it('keeps one reading per clock minute: the later one wins, an earlier one never replaces it', () => {
    const point = (at: number, valueUsd: string): ValuePoint => ({
      at,
      valueUsd,
      costBasisUsd: '0.00',
      realizedPnlUsd: '0.00',
      unrealizedPnlUsd: '0.00',
      reason: 'change',
    });
    const base = Date.UTC(2026, 10, 27, 10);
    const one = withPoint([], point(base + 1_000, '1.00'), MINUTE) ?? [];
    const replaced = withPoint(one, point(base + 30_000, '2.00'), MINUTE) ?? [];
    expect(replaced.map((p) => p.valueUsd)).toEqual(['2.00']);
    expect(withPoint(replaced, point(base + 10_000, '9.00'), MINUTE)).toBeNull();
    const next = withPoint(replaced, point(base + MINUTE, '3.00'), MINUTE) ?? [];
    expect(next.map((p) => p.valueUsd)).toEqual(['2.00', '3.00']);
    // A reading that was valued before another one committed still lands in time order.
    const late = withPoint(next, point(base + 2 * MINUTE + 5, '5.00'), MINUTE) ?? [];
    expect(withPoint(late, point(base - MINUTE, '0.50'), MINUTE)?.map((p) => p.valueUsd)).toEqual(['0.50', '2.00', '3.00', '5.00']);
  });

  it('answers a range across days, only its own account, thinned to the last reading of each slice', async () => {
    const { clock, hold, history } = await setup();
    hold(agent, 1);
    hold(other, 5);
    const start = clock.now();
    for (let hour = 0; hour < 48; hour++) {
      await history.sample(agent, 'change');
      await history.sample(other, 'change');
      await clock.advance(60 * MINUTE);
    }
    const whole = await history.read(agent, { from: start, to: clock.now(), maxPoints: 1000 });
    expect(whole).toHaveLength(48);
    expect(new Set(whole.map((p) => p.valueUsd))).toEqual(new Set(['100.00']));
    const dayTwo = await history.read(agent, { from: start + 24 * 60 * MINUTE, to: clock.now(), maxPoints: 1000 });
    expect(dayTwo.map((p) => p.at)).toEqual(whole.slice(24).map((p) => p.at));

    const thinned = await history.read(agent, { from: start, to: start + 48 * 60 * MINUTE - 1, maxPoints: 4 });
    expect(thinned.map((p) => p.at)).toEqual([11, 23, 35, 47].map((hour) => start + hour * 60 * MINUTE));
    const thinned47 = new Thinning(47, clock.now());
    for (const point of whole) thinned47.add(point);
    expect(thinned47.points()).toHaveLength(47);
    expect(thinned47.points().at(-1)).toEqual(whole.at(-1));
    expect(await history.read(agent, { from: start, to: clock.now(), maxPoints: 48 })).toEqual(whole);
    // Another account's readings never show.
    expect((await history.read(other, { from: start, to: clock.now(), maxPoints: 1000 })).map((p) => p.valueUsd)).toEqual(
      Array(48).fill('500.00'),
    );
  });

  it('a long range reads the hourly series: the last reading of each hour, from month documents', async () => {
    const { clock, store, hold, history } = await setup();
    hold(agent, 1);
    const start = clock.now();
    for (let quarter = 0; quarter < 8 * 4; quarter++) {
      await history.sample(agent, 'change');
      await clock.advance(15 * MINUTE);
    }
    const reads: string[] = [];
    const find = store.find.bind(store);
    store.find = (collection, query, page) => {
      reads.push(collection);
      return find(collection, query, page);
    };
    // Eight hours in eight points: one-hour slices.
    const hourly = await history.read(agent, { from: start, to: start + 8 * 60 * MINUTE, maxPoints: 8 });
    expect(hourly.map((p) => (p.at - start) / MINUTE)).toEqual([45, 105, 165, 225, 285, 345, 405, 465]);
    expect(reads).toEqual([VALUE_HISTORY.months]);
    // Finer slices: every reading, from the day documents.
    reads.length = 0;
    expect(await history.read(agent, { from: start, to: start + 8 * 60 * MINUTE - 1, maxPoints: 100 })).toHaveLength(32);
    expect(reads).toEqual([VALUE_HISTORY.days]);
    // A long range where few hours hold readings: the hourly series says too little, the minute series follows.
    reads.length = 0;
    const week = await history.read(agent, { from: start - 7 * 24 * 60 * MINUTE, to: clock.now(), maxPoints: 100 });
    expect(week).toHaveLength(32);
    expect(reads).toEqual([VALUE_HISTORY.months, VALUE_HISTORY.days]);
  });

  it('a long range with gaps stays on the hourly series when it holds enough readings', async () => {
    const { clock, store, hold, books, history } = await setup();
    hold(agent, 1);
    const start = clock.now();
    for (const stretch of [0, 1]) {
      for (let hour = 0; hour < 20; hour++) {
        await history.sample(agent, 'change');
        await clock.advance(60 * MINUTE);
      }
      if (stretch === 0) {
        books.set('agent:agt_1', []);
        await clock.advance(100 * 60 * MINUTE); // emptied for a while: no readings
        hold(agent, 1);
      }
    }
    const reads: string[] = [];
    const find = store.find.bind(store);
    store.find = (collection, query, page) => {
      reads.push(collection);
      return find(collection, query, page);
    };
    const points = await history.read(agent, { from: start, to: clock.now(), maxPoints: 30 });
    expect(points.length).toBeLessThan(30); // slices across the gap hold nothing
    expect(reads).toEqual([VALUE_HISTORY.months]); // 40 hourly readings: enough, no day documents read
  });

  it('never answers a reading older than the retention, though its hourly copy is still stored', async () => {
    const { clock, hold, history } = await setup({ retentionDays: 2 });
    hold(agent, 1);
    await history.sample(agent, 'change');
    await clock.advance(60 * MINUTE);
    await history.sample(agent, 'change');
    await clock.advance(3 * 24 * 60 * MINUTE);
    await history.sample(agent, 'change');
    const year = await history.read(agent, { from: clock.now() - 366 * 24 * 60 * MINUTE, to: clock.now(), maxPoints: 200 });
    expect(year.map((p) => p.at)).toEqual([clock.now()]);
  });

  it('forgets readings after the retention', async () => {
    const { clock, hold, history, all } = await setup({ retentionDays: 2 });
    hold(agent, 1);
    await history.sample(agent, 'change');
    await clock.advance(2 * 24 * 60 * MINUTE);
    expect(await all()).toHaveLength(1);
    await clock.advance(24 * 60 * MINUTE);
    expect(await all()).toHaveLength(0);
  });

  it('two processes sweeping at once take one reading of each account', async () => {
    const { clock, hold, make, history, all } = await setup();
    for (const id of ['agt_1', 'agt_2', 'agt_3']) {
      hold({ type: 'agent', id }, 1);
      await history.sample({ type: 'agent', id }, 'change');
    }
    await clock.advance(INTERVAL);
    const results = await Promise.all([history.sweep(), make().sweep()]);
    expect(results.reduce((sum, result) => sum + result.sampled, 0)).toBe(3);
    for (const id of ['agt_1', 'agt_2', 'agt_3']) expect(await all({ type: 'agent', id })).toHaveLength(2);
  });

  it('stops the periodic readings of an ended agent, before pricing anything', async () => {
    const { clock, hold, ended, store, history, all } = await setup();
    hold(agent, 1);
    await history.sample(agent, 'change');
    ended.add('agent:agt_1');
    await clock.advance(INTERVAL);
    expect(await history.sweep()).toEqual({ sampled: 0, failed: 0 });
    expect(await store.get(VALUE_HISTORY.sampling, 'agent:agt_1')).toBeNull();
    expect(await all()).toHaveLength(1); // its history stays
  });

  it('takes no reading after it stopped', async () => {
    const { clock, hold, history, all } = await setup();
    hold(agent, 1);
    history.changed(agent);
    await history.stop();
    await clock.advance(5_000);
    history.changed(agent);
    await clock.advance(5_000);
    expect(await all()).toEqual([]);
  });

  it('stops sampling an empty account and starts again at its next change', async () => {
    const { clock, hold, books, store, history } = await setup();
    hold(agent, 1);
    await history.sample(agent, 'change');
    expect(await store.get(VALUE_HISTORY.sampling, 'agent:agt_1')).not.toBeNull();
    books.set('agent:agt_1', []);
    await clock.advance(INTERVAL);
    await history.sweep();
    expect(await store.get(VALUE_HISTORY.sampling, 'agent:agt_1')).toBeNull();
    hold(agent, 3);
    await history.sample(agent, 'change');
    expect((await store.get<{ nextSampleAt: number }>(VALUE_HISTORY.sampling, 'agent:agt_1'))?.data.nextSampleAt).toBe(
      clock.now() + INTERVAL,
    );
  });
});
