import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { afterEach, describe, expect, it } from 'vitest';
import { LmdbEventHistory, type LmdbEventHistoryOptions } from '../../adapters/lmdb/lmdb-event-history.adapter.js';
import { tupleKey } from '../../adapters/lmdb/lmdb-record.codec.js';
import type { BusEvent } from '../../kernel/ports/event-bus.port.js';
import { ManualClock } from '../support/manual-clock.adapter.js';

const dirs: string[] = [];
const histories: LmdbEventHistory[] = [];

async function history(logger?: (message: string, context: Record<string, unknown>) => void) {
  const dir = await mkdtemp(join(tmpdir(), 'event-history-'));
  dirs.push(dir);
  const made = new LmdbEventHistory({ path: dir, ...(logger ? { logger } : {}) });
  histories.push(made);
  return { history: made, dir };
}

function events(stream: string, from: number, to: number, at = (id: number) => id * 1_000): BusEvent[] {
  const out: BusEvent[] = [];
  for (let id = from; id <= to; id += 1) out.push({ stream, id, type: 'order.updated', data: { id }, at: at(id) });
  return out;
}

const ids = (list: BusEvent[]) => list.map((event) => event.id);

/** A history whose flushes wait for `clock.advance` (or a full batch, or close). */
async function driven(options: Partial<LmdbEventHistoryOptions> = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'event-history-'));
  dirs.push(dir);
  const clock = new ManualClock();
  const made = new LmdbEventHistory({ path: dir, clock, flushMs: 20, ...options });
  histories.push(made);
  return { history: made, dir, clock };
}

/** The environment's last committed transaction id: what counts the commits (a white-box look). */
function lastTxnId(log: LmdbEventHistory): number {
  return (log as unknown as { root: { getStats(): { lastTxnId: number } } }).root.getStats().lastTxnId;
}

/** Settles the promises given so far (each to 'ok' or its error's message), without awaiting them. */
function track(promises: Promise<void>[]) {
  const outcomes: string[] = [];
  for (const promise of promises)
    promise.then(
      () => void outcomes.push('ok'),
      (error: Error) => void outcomes.push(error.message),
    );
  return outcomes;
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

afterEach(async () => {
  await Promise.all(histories.splice(0).map((made) => made.close()));
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('LmdbEventHistory', () => {
  it('reads a stream back in id order between bounds, apart from other streams whose names it prefixes', async () => {
    const { history: log } = await history();
    await log.append('agent:1', events('agent:1', 1, 5));
    await log.append('agent:10', events('agent:10', 1, 3));
    await log.append('agent:1', events('agent:1', 6, 7));
    expect(log.read('agent:1', 0, Number.POSITIVE_INFINITY, 100)).toEqual(events('agent:1', 1, 7));
    expect(ids(log.read('agent:1', 2, 6, 100))).toEqual([3, 4, 5]);
    expect(ids(log.read('agent:1', 0, Number.POSITIVE_INFINITY, 2))).toEqual([1, 2]);
    expect(log.read('agent:1', 7, Number.POSITIVE_INFINITY, 100)).toEqual([]);
    expect(log.lastId('agent:1')).toBe(7);
    expect(log.lastId('agent:10')).toBe(3);
    expect(log.lastId('agent:')).toBe(0);
  });

  it('lets go only of events beyond the latest keepLatest below beforeId and older than the cutoff, stopping at a recent one', async () => {
    const { history: log } = await history();
    // ids 1..10 at 1 s .. 10 s, except 4, which is recent.
    await log.append(
      's',
      events('s', 1, 10, (id) => (id === 4 ? 60_000 : id * 1_000)),
    );
    expect(log.trimmable('s', Number.POSITIVE_INFINITY, 3, 50_000, 100)).toBe(3);
    // Below beforeId 6, keeping the latest 4 of 1..5 leaves only 1.
    expect(log.trimmable('s', 6, 4, 50_000, 100)).toBe(1);
    expect(log.trimmable('s', Number.POSITIVE_INFINITY, 20, 50_000, 100)).toBe(0);
    expect(log.trimmable('s', Number.POSITIVE_INFINITY, 3, 50_000, 2)).toBe(2);
    await log.remove('s', 3);
    expect(ids(log.read('s', 0, Number.POSITIVE_INFINITY, 100))).toEqual([4, 5, 6, 7, 8, 9, 10]);
  });

  it('skips and reports an entry that does not read as an event', async () => {
    const logged: string[] = [];
    const { history: log, dir } = await history((message) => logged.push(message));
    await log.append('s', events('s', 1, 3));
    await log.close();
    histories.splice(0);
    const raw = open({ path: dir });
    const db = raw.openDB<Buffer, Buffer>({ name: 'events', keyEncoding: 'binary', encoding: 'binary' });
    await db.put(tupleKey(['s', 2]), Buffer.from('not an event'));
    await raw.close();
    const reopened = new LmdbEventHistory({ path: dir, logger: (message) => logged.push(message) });
    histories.push(reopened);
    expect(ids(reopened.read('s', 0, Number.POSITIVE_INFINITY, 100))).toEqual([1, 3]);
    expect(logged).toEqual(['event history entry unreadable, skipped']);
  });

  it('commits the appends and removals of one window in one transaction, in the order given, once the window ends', async () => {
    const { history: log, clock } = await driven();
    await Promise.all([log.append('a', events('a', 1, 4)), clock.advance(20)]);
    const before = lastTxnId(log);
    const outcomes = track([
      log.append('a', events('a', 5, 6)),
      log.append('b', events('b', 1, 2)),
      log.remove('a', 2),
      log.append('a', events('a', 7, 7)),
    ]);
    for (let i = 0; i < 5; i += 1) await turn();
    await clock.advance(19);
    // Nothing written yet: a reader of the history sees the last commit only.
    expect(outcomes).toEqual([]);
    expect(ids(log.read('a', 0, Number.POSITIVE_INFINITY, 100))).toEqual([1, 2, 3, 4]);
    await clock.advance(1);
    await turn();
    expect(outcomes).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(lastTxnId(log)).toBe(before + 1);
    expect(ids(log.read('a', 0, Number.POSITIVE_INFINITY, 100))).toEqual([3, 4, 5, 6, 7]);
    expect(ids(log.read('b', 0, Number.POSITIVE_INFINITY, 100))).toEqual([1, 2]);
  });

  it('commits at once when maxBatch writes are waiting, without waiting for the window', async () => {
    const { history: log } = await driven({ maxBatch: 5 });
    const before = lastTxnId(log);
    const outcomes = track([log.append('s', events('s', 1, 3)), log.append('s', events('s', 4, 4))]);
    await turn();
    expect(outcomes).toEqual([]);
    await log.append('s', events('s', 5, 6));
    expect(outcomes).toEqual(['ok', 'ok']);
    expect(lastTxnId(log)).toBe(before + 1);
    expect(log.lastId('s')).toBe(6);
  });

  it('writes what is queued when it closes, so the next run reads it, and refuses writes after', async () => {
    const { history: log, dir } = await driven();
    const outcomes = track([log.append('s', events('s', 1, 3)), log.remove('t', 1)]);
    await log.close();
    await turn();
    expect(outcomes).toEqual(['ok', 'ok']);
    await expect(log.append('s', events('s', 4, 4))).rejects.toThrow('The event history is closed');
    histories.splice(0);
    const reopened = new LmdbEventHistory({ path: dir });
    histories.push(reopened);
    expect(ids(reopened.read('s', 0, Number.POSITIVE_INFINITY, 100))).toEqual([1, 2, 3]);
  });

  it('fails every write of a batch that could not be committed, and writes none of it', async () => {
    const { history: log, clock } = await driven();
    const db = (log as unknown as { events: { putSync(key: Buffer, value: Buffer): void } }).events;
    const putSync = db.putSync.bind(db);
    let puts = 0;
    db.putSync = (key, value) => {
      puts += 1;
      if (puts === 3) throw new Error('disk full');
      putSync(key, value);
    };
    const outcomes = track([log.append('a', events('a', 1, 2)), log.append('b', events('b', 1, 2))]);
    await clock.advance(20);
    expect(outcomes).toEqual(['disk full', 'disk full']);
    expect(log.lastId('a')).toBe(0);
    // The next batch is a batch of its own.
    await Promise.all([log.append('c', events('c', 1, 1)), clock.advance(20)]);
    expect(log.lastId('c')).toBe(1);
  });

  it('starts empty, and says so, when the machine stopped while it was open; keeps what a killed process left', async () => {
    const logged: string[] = [];
    const { history: log, dir } = await driven({ bootId: 'boot-a' });
    const appended = log.append('s', events('s', 1, 2));
    await log.close();
    await appended;
    histories.splice(0);
    // As a process stopped without closing leaves it: its boot's mark.
    writeFileSync(join(dir, 'open-in-boot'), 'boot-a');
    const sameBoot = new LmdbEventHistory({ path: dir, bootId: 'boot-a', logger: (message) => logged.push(message) });
    expect(sameBoot.lastId('s')).toBe(2);
    await sameBoot.close();
    writeFileSync(join(dir, 'open-in-boot'), 'boot-a');
    const nextBoot = new LmdbEventHistory({ path: dir, bootId: 'boot-b', logger: (message) => logged.push(message) });
    histories.push(nextBoot);
    expect(nextBoot.lastId('s')).toBe(0);
    expect(logged).toEqual(['event history discarded: the machine stopped while it was open']);
  });
});
