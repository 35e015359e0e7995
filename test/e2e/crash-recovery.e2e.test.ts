import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../kernel/ports/store.port.js';
import type { ActorView } from '../../src/runtime/actor-inspector.js';
import { ServiceProcess } from '../support/service-process.js';

const ACTORS = 100;
const EVENTS = 1000;

/** Every journal entry of an actor, through the ops routes, following the pages. */
async function journalOf(service: ServiceProcess, id: string): Promise<JournalEntry[]> {
  const entries: JournalEntry[] = [];
  let after = 0;
  for (;;) {
    const page = await service.ops<{ items: JournalEntry[]; nextAfterSeq?: number }>(
      `/actors/counter/${id}/journal?afterSeq=${after}&limit=200`,
    );
    entries.push(...page.items);
    if (page.nextAfterSeq === undefined) return entries;
    after = page.nextAfterSeq;
  }
}

describe('crash recovery on the embedded store', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'crash-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps every acknowledged event exactly once after SIGKILL mid-burst', async () => {
    const first = await ServiceProcess.start({ DATA_DIR: dataDir });
    const ids = Array.from({ length: ACTORS }, (_, i) => `c${i}`);
    await Promise.all(ids.map((id) => first.request({ op: 'create', id })));

    // 1,000 events at once, 10 per actor; kill the process once a third are acknowledged.
    const acked = new Map<string, string[]>(ids.map((id) => [id, []]));
    let ackCount = 0;
    const killAt = Math.floor(EVENTS / 3);
    for (let i = 0; i < EVENTS; i++) {
      const id = ids[i % ACTORS]!;
      const tag = `e${i}`;
      void first.request({ op: 'send', id, tag }).then((ack) => {
        if (!ack.ok) return;
        acked.get(id)!.push(tag);
        // Kill at the threshold; and should everything be acknowledged first, still end the process.
        if (++ackCount === killAt || ackCount === EVENTS) void first.kill();
      });
    }
    await first.exited;
    expect(ackCount).toBeGreaterThanOrEqual(killAt);
    expect(ackCount).toBeLessThan(EVENTS); // the kill really happened mid-burst

    const second = await ServiceProcess.start({ DATA_DIR: dataDir });
    try {
      let recovered = 0;
      for (const id of ids) {
        const view = await second.ops<ActorView & { context: { n: number; seen: string[] } }>(`/actors/counter/${id}`);
        const journal = await journalOf(second, id);
        const journalTags = journal.slice(1).map((entry) => (entry.event as { tag: string }).tag);

        // Every acknowledged event is in the snapshot and in the journal ...
        for (const tag of acked.get(id)!) {
          expect(view.context.seen).toContain(tag);
          expect(journalTags).toContain(tag);
        }
        // ... none twice, and snapshot, journal and version tell the same story.
        expect(new Set(view.context.seen).size).toBe(view.context.seen.length);
        expect(journalTags).toEqual(view.context.seen);
        expect(journal.map((entry) => entry.seq)).toEqual(Array.from({ length: view.version }, (_, i) => i + 1));
        expect(view.version).toBe(view.context.n + 1);
        recovered += view.context.n;
      }
      expect(recovered).toBeGreaterThanOrEqual(ackCount);

      // The restarted service takes new events on the recovered actors.
      const ack = await second.request({ op: 'send', id: 'c0', tag: 'after-restart' });
      expect(ack).toMatchObject({ ok: true });
    } finally {
      await second.stop();
    }
  }, 120_000);
});
