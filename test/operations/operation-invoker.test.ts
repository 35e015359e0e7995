import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { AppError } from '../../kernel/errors/app-error.js';
import type { AuditEntry } from '../../src/operations/audit.types.js';
import { OperationCatalog } from '../../src/operations/operation-catalog.js';
import { OperationInvoker } from '../../src/operations/operation-invoker.js';
import type { OperationContext } from '../../src/operations/operation.types.js';
import { defineOperation } from '../../src/operations/operation-definition.js';
import { IdempotencyGuard } from '../../src/operations/idempotency-guard.js';
import { MemoryStore } from '../support/memory-store.adapter.js';

/** An agent key's call over MCP. */
const agentCall: OperationContext = {
  principal: { type: 'agent-key', keyId: 'k1', scope: 'read', ownerId: 'u1', prefix: 'mcpk_abcdefgh', expiresAt: Date.now() + 1e9 },
  scope: 'read',
  subject: { type: 'agent', id: 'a1' },
  userId: 'u1',
  requestId: 'r1',
  correlationId: 'c1',
  surface: 'mcp',
};

const base = { family: 'chat', minScope: 'read', principals: ['agent'], input: z.object({}) } as const;

function setup(settled: () => Promise<void>) {
  const timeline: string[] = [];
  const catalog = new OperationCatalog().register(
    defineOperation({
      ...base,
      name: 'x_write',
      description: 'writes',
      handler: async () => {
        timeline.push('handler');
        return { ok: true };
      },
    }),
    defineOperation({
      ...base,
      name: 'x_read',
      description: 'reads',
      annotations: { readOnly: true },
      handler: async () => {
        timeline.push('handler');
        return { ok: true };
      },
    }),
    defineOperation({
      ...base,
      name: 'x_fail',
      description: 'writes, then fails',
      handler: async () => {
        timeline.push('handler');
        throw AppError.validation(['no']);
      },
    }),
  );
  const audit: AuditEntry[] = [];
  const invoker = new OperationInvoker(catalog, { record: (entry) => void audit.push(entry) }, new ManualClock(), {
    settled: () => {
      timeline.push('settled');
      return settled();
    },
  });
  const call = (name: string) => invoker.invoke({ name, input: {}, ctx: agentCall, viewer: { kind: 'agent', scope: 'read' } });
  return { call, timeline, audit };
}

describe('operation invoker: answers wait until what the call wrote is durable', () => {
  it('settles a call that may write before answering, success or failure; a read-only call does not wait', async () => {
    const { call, timeline } = setup(async () => undefined);
    await expect(call('x_write')).resolves.toEqual({ ok: true });
    expect(timeline.splice(0)).toEqual(['handler', 'settled']);
    await expect(call('x_fail')).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(timeline.splice(0)).toEqual(['handler', 'settled']);
    await expect(call('x_read')).resolves.toEqual({ ok: true });
    expect(timeline.splice(0)).toEqual(['handler']);
  });

  it('a store that cannot flush fails the call instead of answering it, and the audit entry is still written', async () => {
    const { call, audit } = setup(async () => {
      throw new Error('EIO');
    });
    await expect(call('x_write')).rejects.toThrow('EIO');
    expect(audit).toEqual([expect.objectContaining({ operation: 'x_write', outcome: 'error', error: 'INTERNAL_SERVICE_ERROR' })]);
  });
});

describe('operation invoker: a guarded call waits for one flush', () => {
  /** A guarded operation over an idempotency guard whose record writes show on the timeline beside the flushes. */
  async function guarded(outcome: 'ok' | 'fail') {
    const timeline: string[] = [];
    const clock = new ManualClock();
    const store = new MemoryStore(clock);
    await store.init([{ name: 'idempotency', indexes: [] }]);
    const put = store.put.bind(store);
    // Only writes that happened: a replay's claim tries a create that finds the record and writes nothing.
    store.put = async (collection, id, input, journal) => {
      const written = await put(collection, id, input, journal);
      timeline.push(`record ${(input.data as { state: string }).state}`);
      return written;
    };
    const catalog = new OperationCatalog().register(
      defineOperation({
        ...base,
        input: z.object({ idempotencyKey: z.string() }),
        name: 'x_keyed',
        description: 'writes once per key',
        handler: async () => {
          timeline.push('handler');
          if (outcome === 'fail') throw AppError.validation(['no']);
          return { ok: true };
        },
      }),
    );
    const invoker = new OperationInvoker(catalog, { record: () => undefined }, clock, {
      idempotency: new IdempotencyGuard(store, clock),
      settled: async () => void timeline.push('settled'),
    });
    const ctx: OperationContext = { ...agentCall, idempotencyKey: 'key-1' };
    const call = () =>
      invoker.invoke({ name: 'x_keyed', input: { idempotencyKey: 'key-1' }, ctx, viewer: { kind: 'agent', scope: 'read' } });
    return { call, timeline };
  }

  it("flushes the handler's writes before its outcome is recorded, and not again after", async () => {
    const { call, timeline } = await guarded('ok');
    await expect(call()).resolves.toEqual({ ok: true });
    expect(timeline.splice(0)).toEqual(['record running', 'handler', 'settled', 'record done']);
    // A replay writes nothing of its own and answers after a flush (of what may still be in flight).
    await expect(call()).resolves.toEqual({ ok: true });
    expect(timeline.splice(0)).toEqual(['settled']);
  });

  it('a definite failure is recorded, then flushed before the answer', async () => {
    const { call, timeline } = await guarded('fail');
    await expect(call()).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(timeline).toEqual(['record running', 'handler', 'record done', 'settled']);
  });
});
