import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../adapters/clock/manual-clock.adapter.js';
import { MemoryStore } from '../../adapters/memory/memory-store.adapter.js';
import { AUDIT_COLLECTIONS, AuditLog } from '../../src/operations/audit-log.js';
import type { AuditEntry } from '../../src/operations/audit.types.js';

const entry = (at: number, requestId: string): AuditEntry => ({
  at,
  surface: 'mcp',
  operation: 'ping',
  principal: { type: 'agent', id: 'agt_1' },
  subject: 'agent:agt_1',
  argsDigest: 'd',
  outcome: 'ok',
  latencyMs: 1,
  requestId,
  correlationId: requestId,
});

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
});
