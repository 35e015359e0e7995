import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { MemoryStore } from '../support/memory-store.adapter.js';
import { AUDIT_COLLECTIONS, AuditLog } from '../../src/operations/audit-log.js';
import type { AuditEntry } from '../../src/operations/audit.types.js';

const entry = (at: number, requestId: string, subject = 'agent:agt_1'): AuditEntry => ({
  at,
  surface: 'mcp',
  operation: 'ping',
  principal: { type: 'agent', id: 'agt_1' },
  subject,
  argsDigest: 'd',
  outcome: 'ok',
  latencyMs: 1,
  requestId,
  correlationId: requestId,
});

async function setup() {
  const clock = new ManualClock();
  const store = new MemoryStore(clock);
  await store.init(AUDIT_COLLECTIONS);
  return { clock, store, audit: new AuditLog(store, clock, pino({ level: 'silent' })) };
}

/** Every entry of `subject`, read in pages of `limit`. */
async function readAll(audit: AuditLog, subject: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 1_000; pages++) {
    const page = await audit.list(subject, { limit, ...(cursor ? { cursor } : {}) });
    expect(page.items.length).toBeLessThanOrEqual(limit);
    ids.push(...page.items.map((e) => e.requestId));
    cursor = page.nextCursor;
    if (!cursor) return ids;
  }
  throw new Error('paging did not end');
}

describe('AuditLog', () => {
  it('pages a subject newest first, calls of one millisecond included', async () => {
    const clock = new ManualClock();
    const store = new MemoryStore(clock);
    await store.init(AUDIT_COLLECTIONS);
    const audit = new AuditLog(store, clock, pino({ level: 'silent' }));
    const at = clock.now();
    for (const id of ['r0', 'r1', 'r2']) audit.record(entry(at, id));
    await audit.flush();
    audit.record(entry(at, 'r3'));
    audit.record(entry(at + 1, 'r4'));
    await audit.flush();
    const first = await audit.list('agent:agt_1', { limit: 3 });
    expect(first.items.map((e) => e.requestId)).toEqual(['r4', 'r3', 'r2']);
    const rest = await audit.list('agent:agt_1', { limit: 3, cursor: first.nextCursor! });
    expect(rest.items.map((e) => e.requestId)).toEqual(['r1', 'r0']);
  });

  it('stores one segment per subject and flush, and pages through segments at any page size', async () => {
    const { clock, store, audit } = await setup();
    const expected: string[] = [];
    let at = clock.now();
    // Three flushes of 5, 1 and 300 entries (the last over one segment's 256), two subjects interleaved.
    for (const size of [5, 1, 300]) {
      for (let i = 0; i < size; i++) {
        const id = `r${expected.length}`;
        // Times move on without the clock, whose advance would fire the flush timer.
        audit.record(entry(at, id));
        audit.record(entry(at, `other-${id}`, 'agent:agt_2'));
        expected.unshift(id);
        at++;
      }
      await audit.flush();
    }
    const docs = await store.find('audit', { index: 'subject', eq: 'agent:agt_1' }, { limit: 200 });
    expect(docs.items).toHaveLength(4); // 5 | 1 | 256 + 44
    for (const limit of [1, 2, 3, 5, 6, 7, 50, 200]) expect(await readAll(audit, 'agent:agt_1', limit)).toEqual(expected);
    expect((await readAll(audit, 'agent:agt_2', 200)).length).toBe(306);
  });

  it('keeps the order of more calls of one millisecond than a segment holds', async () => {
    const { clock, audit } = await setup();
    const ids = Array.from({ length: 600 }, (_, i) => `r${i}`);
    for (const id of ids) audit.record(entry(clock.now(), id));
    await audit.flush();
    expect(await readAll(audit, 'agent:agt_1', 100)).toEqual([...ids].reverse());
  });

  it('reads records of one entry each, as written before segments', async () => {
    const { clock, store, audit } = await setup();
    const at = clock.now();
    await store.put('audit', `${9_999_999_999_999 - at}-legacy`, {
      data: entry(at, 'old'),
      expectedVersion: 0,
      indexes: { subject: 'agent:agt_1' },
    });
    clock.advance(5);
    audit.record(entry(clock.now(), 'new1'));
    audit.record(entry(clock.now(), 'new2'));
    await audit.flush();
    expect(await readAll(audit, 'agent:agt_1', 1)).toEqual(['new2', 'new1', 'old']);
  });

  it('refuses a cursor it did not write, and restarts a swept segment from its successor', async () => {
    const { clock, audit } = await setup();
    await expect(audit.list('agent:agt_1', { limit: 1, cursor: 'bm90LWpzb24' })).rejects.toMatchObject({
      kind: 'invalid',
      messages: ['cursor is invalid'],
    });
    await expect(
      audit.list('agent:agt_1', { limit: 1, cursor: Buffer.from('{"within":{"id":"x","served":-1}}').toString('base64url') }),
    ).rejects.toMatchObject({ kind: 'invalid' });
    for (const id of ['a', 'b']) audit.record(entry(clock.now(), id));
    await audit.flush();
    const stale = Buffer.from(JSON.stringify({ within: { id: 'gone', served: 1 } })).toString('base64url');
    expect((await audit.list('agent:agt_1', { limit: 5, cursor: stale })).items.map((e) => e.requestId)).toEqual(['b', 'a']);
  });
});
