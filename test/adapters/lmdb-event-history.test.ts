import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { afterEach, describe, expect, it } from 'vitest';
import { LmdbEventHistory } from '../../adapters/lmdb/lmdb-event-history.adapter.js';
import { tupleKey } from '../../adapters/lmdb/lmdb-record.codec.js';
import type { BusEvent } from '../../kernel/ports/event-bus.port.js';

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
});
