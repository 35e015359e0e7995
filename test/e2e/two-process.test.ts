import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/ports/store.port.js';
import type { ActorView } from '../../src/runtime/actor-inspector.js';
import { TEST_REDIS_URL, deleteRedisKeys } from '../support/redis.js';
import { ServiceProcess } from '../support/service-process.js';

const PER_PROCESS = 200;

describe('two service processes on one store and one Redis', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'two-proc-'));
  const prefix = `test-${randomUUID()}`;
  afterAll(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    await deleteRedisKeys(prefix);
  });

  it('loses no update when both send to the same actor at once', async () => {
    const env = { DATA_DIR: dataDir, REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix };
    const [a, b] = await Promise.all([ServiceProcess.start(env), ServiceProcess.start(env)]);
    try {
      expect(await a.request({ op: 'create', id: 'shared' })).toMatchObject({ ok: true, version: 1 });
      const sends = Array.from({ length: PER_PROCESS }, (_, i) => [
        a.request({ op: 'send', id: 'shared', tag: `a${i}` }),
        b.request({ op: 'send', id: 'shared', tag: `b${i}` }),
      ]).flat();
      const acks = await Promise.all(sends);
      expect(acks.filter((ack) => !ack.ok)).toEqual([]);

      const view = await b.ops<ActorView & { context: { n: number; seen: string[] } }>('/actors/counter/shared');
      expect(view.version).toBe(1 + 2 * PER_PROCESS);
      expect(view.context.n).toBe(2 * PER_PROCESS);
      expect(new Set(view.context.seen).size).toBe(2 * PER_PROCESS);
      // Each process saw its own events in the order it sent them.
      expect(view.context.seen.filter((t) => t.startsWith('a'))).toEqual(Array.from({ length: PER_PROCESS }, (_, i) => `a${i}`));

      const journal = await a.ops<{ items: JournalEntry[] }>('/actors/counter/shared/journal?limit=200');
      expect(journal.items.map((e) => e.seq)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  }, 120_000);
});
