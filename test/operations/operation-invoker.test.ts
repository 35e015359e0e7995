import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { AppError } from '../../kernel/errors/app-error.js';
import type { AuditEntry } from '../../src/operations/audit.types.js';
import { OperationCatalog } from '../../src/operations/operation-catalog.js';
import { OperationInvoker } from '../../src/operations/operation-invoker.js';
import type { OperationContext } from '../../src/operations/operation.types.js';
import { defineOperation } from '../../src/operations/operation-definition.js';

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
  const ctx: OperationContext = {
    principal: { type: 'agent-key', keyId: 'k1', scope: 'read', ownerId: 'u1', prefix: 'mcpk_abcdefgh', expiresAt: Date.now() + 1e9 },
    scope: 'read',
    subject: { type: 'agent', id: 'a1' },
    userId: 'u1',
    requestId: 'r1',
    correlationId: 'c1',
    surface: 'mcp',
  };
  const call = (name: string) => invoker.invoke({ name, input: {}, ctx, viewer: { kind: 'agent', scope: 'read' } });
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
