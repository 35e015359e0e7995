import { createHash } from 'node:crypto';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import type { AuditEntry } from '../../src/operations/audit.types.js';
import { OperationCatalog, parseOperationInput } from '../../src/operations/operation-catalog.js';
import { OperationInvoker, digestArguments } from '../../src/operations/operation-invoker.js';
import type { OperationContext } from '../../src/operations/operation.types.js';
import { defineOperation } from '../../src/operations/operation-definition.js';

const echo = (
  name: string,
  minScope: 'read' | 'trade' | 'manage',
  family: 'portfolio' | 'trading' | 'keys',
  principals: Array<'agent' | 'bot' | 'operator'>,
) =>
  defineOperation({
    name,
    description: name,
    family,
    minScope,
    principals,
    input: z.object({ order_id: z.string(), note: z.string().optional() }).strict(),
    handler: async (_ctx, input) => ({ echoed: input.order_id }),
  });

function catalog() {
  return new OperationCatalog().register(
    echo('read_tool', 'read', 'portfolio', ['agent', 'bot']),
    echo('trade_tool', 'trade', 'trading', ['agent']),
    echo('manage_tool', 'manage', 'keys', ['agent', 'operator']),
  );
}

const ctx: OperationContext = {
  principal: { type: 'agent-key', keyId: 'key_1', scope: 'read', ownerId: 'agt_1', prefix: 'mcpk_abcdefgh', expiresAt: 0 },
  scope: 'read',
  subject: { type: 'agent', id: 'agt_1' },
  requestId: 'r',
  correlationId: 'c',
  surface: 'mcp',
};

describe('operation catalog', () => {
  it('shows each viewer only what its scope and principal kind allow', () => {
    const names = (kind: 'agent' | 'bot' | 'operator', scope: 'read' | 'trade' | 'manage') =>
      catalog()
        .visibleTo({ kind, scope })
        .map((op) => op.name);
    expect(names('agent', 'read')).toEqual(['read_tool']);
    expect(names('agent', 'trade')).toEqual(['read_tool', 'trade_tool']);
    expect(names('agent', 'manage')).toEqual(['manage_tool', 'read_tool', 'trade_tool']);
    expect(names('bot', 'manage')).toEqual(['read_tool']);
    expect(names('operator', 'manage')).toEqual(['manage_tool']);
  });

  it('follows runtime configuration and per-subject switches', () => {
    const c = catalog();
    const before = c.version;
    c.configure({ disabledFamilies: ['trading'], disabledOperations: ['read_tool'] });
    expect(c.version).toBeGreaterThan(before);
    expect(c.visibleTo({ kind: 'agent', scope: 'manage' }).map((op) => op.name)).toEqual(['manage_tool']);
    c.configure({ disabledFamilies: [], disabledOperations: [] });
    expect(c.visibleTo({ kind: 'agent', scope: 'manage', disabledFamilies: ['keys'] }).map((op) => op.name)).toEqual([
      'read_tool',
      'trade_tool',
    ]);
  });

  it('tells why a call is refused: unknown, hidden, or scope', () => {
    const c = catalog();
    expect(c.refusal('nope', { kind: 'agent', scope: 'manage' })).toBe('unknown');
    expect(c.refusal('trade_tool', { kind: 'bot', scope: 'manage' })).toBe('hidden');
    expect(c.refusal('trade_tool', { kind: 'agent', scope: 'read' })).toBe('scope');
    expect(c.refusal('trade_tool', { kind: 'agent', scope: 'trade' })).toBeUndefined();
  });

  it('words validation failures per field', () => {
    const schema = z.object({ order_id: z.string(), amount: z.number() }).strict();
    const fail = (raw: unknown) => {
      try {
        parseOperationInput(schema, raw);
      } catch (error) {
        return (error as { messages: string[] }).messages;
      }
      return [];
    };
    expect(fail({ amount: 1 })).toEqual(['order_id is required']);
    expect(fail({ order_id: 7, amount: 1 })).toEqual(['order_id must be string']);
    expect(fail({ order_id: 'o', amount: 1, extra: true })).toEqual(['extra is not a known field']);
  });
});

describe('operation invoker', () => {
  function invoker() {
    const entries: AuditEntry[] = [];
    return { entries, invoker: new OperationInvoker(catalog(), { record: (entry) => entries.push(entry) }, new ManualClock()) };
  }

  it('runs the handler and audits the call without its arguments', async () => {
    const { invoker: inv, entries } = invoker();
    const result = await inv.invoke({ name: 'read_tool', input: { order_id: 'o-1' }, ctx, viewer: { kind: 'agent', scope: 'read' } });
    expect(result).toEqual({ echoed: 'o-1' });
    expect(entries).toEqual([
      expect.objectContaining({
        operation: 'read_tool',
        surface: 'mcp',
        outcome: 'ok',
        principal: { type: 'agent-key', id: 'key_1' },
        credentialPrefix: 'mcpk_abcdefgh',
        subject: 'agent:agt_1',
        argsDigest: digestArguments({ order_id: 'o-1' }),
      }),
    ]);
    expect(JSON.stringify(entries)).not.toContain('o-1');
  });

  it('refuses hidden, unknown and under-scoped calls, and audits the refusal', async () => {
    const { invoker: inv, entries } = invoker();
    const viewer = { kind: 'agent' as const, scope: 'read' as const };
    await expect(inv.invoke({ name: 'ghost', input: {}, ctx, viewer })).rejects.toMatchObject({
      kind: 'not_found',
      message: 'Tool not found: ghost',
    });
    await expect(inv.invoke({ name: 'trade_tool', input: { order_id: 'x' }, ctx, viewer })).rejects.toMatchObject({
      kind: 'forbidden',
      message: 'Scope insufficient: required trade, got read',
    });
    await expect(inv.invoke({ name: 'read_tool', input: {}, ctx, viewer })).rejects.toMatchObject({
      kind: 'invalid',
      messages: ['order_id is required'],
    });
    expect(entries.map((e) => [e.outcome, e.error])).toEqual([
      ['error', 'RESOURCE_NOT_FOUND'],
      ['error', 'AUTHORIZATION_FAILED'],
      ['error', 'VALIDATION_ERROR'],
    ]);
  });

  it('digests arguments canonically and without secret fields', () => {
    expect(digestArguments({ a: 1, b: 2 })).toBe(digestArguments({ b: 2, a: 1 }));
    const emptyDigest = createHash('sha256').update('{}').digest('hex');
    expect([digestArguments({}), digestArguments(undefined), digestArguments({ code: '123456' })]).toEqual([
      emptyDigest,
      emptyDigest,
      emptyDigest,
    ]);
    expect(digestArguments({ a: 1, stepUpToken: 'x' })).toBe(digestArguments({ a: 1, stepUpToken: 'y' }));
    expect(digestArguments({ a: 1 })).not.toBe(digestArguments({ a: 2 }));
  });
});
