/**
 * The chain head each AuditLog keeps between flushes: no head read per flush while this
 * process is the only writer of a subject, and one line per subject when two writers (two
 * stores on one LMDB directory, as two processes have) append to it at once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { LmdbStore } from '../../adapters/lmdb/lmdb-store.adapter.js';
import type { StorePort } from '../../kernel/ports/store.port.js';
import { walkChain } from '../../src/operations/audit-chain.js';
import { AUDIT_COLLECTIONS, AUDIT_HEADS, AUDIT_RETENTION_MS, AuditLog } from '../../src/operations/audit-log.js';
import type { AuditEntry } from '../../src/operations/audit.types.js';
import { ManualClock } from '../support/manual-clock.adapter.js';

const SUBJECT = 'agent:agt_shared';
const silent = pino({ level: 'silent' });
/** Signs with no key: the heads' signatures are not what these tests check, their writes are. */
const signer = { sign: async (payload: string) => `signed:${payload}` };

const entry = (at: number, requestId: string): AuditEntry => ({
  at,
  surface: 'rest',
  operation: 'agent_status',
  principal: { type: 'user', id: 'usr_1' },
  subject: SUBJECT,
  argsDigest: 'd',
  outcome: 'ok',
  latencyMs: 1,
  requestId,
  correlationId: requestId,
});

/** Counts `get`s of the chain heads made through `store`. */
function countHeadReads(store: StorePort): { reads: number } {
  const counter = { reads: 0 };
  const get = store.get.bind(store);
  store.get = ((collection: string, id: string) => {
    if (collection === AUDIT_HEADS) counter.reads += 1;
    return get(collection, id);
  }) as StorePort['get'];
  return counter;
}

describe('AuditLog chain heads kept between flushes', () => {
  const dirs: string[] = [];
  const stores: LmdbStore[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  async function openStore(dir: string, clock: ManualClock): Promise<LmdbStore> {
    const store = new LmdbStore({ path: dir, clock, sweepIntervalMs: 3_600_000 });
    stores.push(store);
    await store.init(AUDIT_COLLECTIONS);
    return store;
  }
  function tempDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'audit-heads-'));
    dirs.push(dir);
    return dir;
  }

  it('reads a subject’s head once, then writes on the head it committed', async () => {
    const clock = new ManualClock();
    const store = await openStore(tempDir(), clock);
    const counter = countHeadReads(store);
    const audit = new AuditLog(store, clock, silent);
    audit.startCheckpoints(signer, 10_000);
    for (let i = 0; i < 20; i++) {
      audit.record(entry(clock.now(), `r${i}`));
      await audit.flush();
      // Past the checkpoint interval now and then: heads signed on write and by the sweep.
      await clock.advance(i % 5 === 4 ? 10_000 : 100);
    }
    await audit.stopCheckpoints();
    expect(counter.reads).toBe(1);
    const { entries, head } = await audit.chainOf(SUBJECT);
    expect(walkChain(SUBJECT, entries, head, { now: clock.now(), retentionMs: AUDIT_RETENTION_MS })).toMatchObject({
      entries: 20,
      lastSeq: 20,
    });
  });

  it('keeps one verifiable chain with every entry when two writers on one store race on a subject', async () => {
    const clock = new ManualClock();
    const dir = tempDir();
    const [storeA, storeB] = [await openStore(dir, clock), await openStore(dir, clock)];
    const readsA = countHeadReads(storeA);
    const readsB = countHeadReads(storeB);
    const a = new AuditLog(storeA, clock, silent);
    const b = new AuditLog(storeB, clock, silent);
    a.startCheckpoints(signer, 1_000);
    b.startCheckpoints(signer, 1_000);
    const rounds = 40;
    const written: string[] = [];
    for (let round = 0; round < rounds; round++) {
      // Uneven batches, flushed at once: each writer's kept head is often one the other moved past.
      for (let i = 0; i <= round % 3; i++) {
        a.record(entry(clock.now(), `a${round}.${i}`));
        written.push(`a${round}.${i}`);
      }
      b.record(entry(clock.now(), `b${round}`));
      written.push(`b${round}`);
      await Promise.all([a.flush(), b.flush()]);
      // Sweeps of both sign heads now and then: one more writer of each head.
      await clock.advance(round % 4 === 3 ? 1_000 : 10);
    }
    await Promise.all([a.stopCheckpoints(), b.stopCheckpoints()]);
    await Promise.all([a.signPending(), b.signPending()]);

    const { entries, head } = await a.chainOf(SUBJECT);
    const walk = walkChain(SUBJECT, entries, head, { now: clock.now(), retentionMs: AUDIT_RETENTION_MS });
    expect(walk.break).toBeUndefined();
    expect(walk).toMatchObject({ entries: written.length, firstSeq: 1, lastSeq: written.length });
    expect(entries.map((stored) => stored.entry.requestId).sort()).toEqual([...written].sort());
    expect(head?.checkpoint?.seq).toBe(written.length);
    // Both lost races (and read the head again), and neither read it on every flush.
    expect(readsA.reads).toBeGreaterThan(1);
    expect(readsB.reads).toBeGreaterThan(1);
    expect(readsA.reads + readsB.reads).toBeLessThan(2 * rounds);
  });
});
