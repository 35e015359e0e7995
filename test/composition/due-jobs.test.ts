import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { DueJobs } from '../../src/composition/due-jobs.js';
import type { DueJobRoute } from '../../src/composition/feature-module.types.js';
import { AppError } from '../../kernel/errors/app-error.js';
import type { AuditEntry } from '../../src/operations/audit.types.js';
import { OperationCatalog } from '../../src/operations/operation-catalog.js';
import { defineUnboundOperation } from '../../src/operations/operation-definition.js';
import { OperationInvoker } from '../../src/operations/operation-invoker.js';
import type { PrincipalKind } from '../../src/operations/operation.types.js';
import type { DueJob } from '../../kernel/ports/scheduler.port.js';

/** An operation `name` for `principals` that records its input and throws `fail` when set. */
function operation(name: string, principals: PrincipalKind[], seen: unknown[], fail?: () => Error) {
  return defineUnboundOperation({
    name,
    description: 'test',
    family: 'ops',
    minScope: 'manage',
    principals,
    target: 'service',
    input: z.object({ id: z.string(), dueAt: z.number() }).strict(),
    handler: async (_ctx, input) => {
      seen.push(input);
      if (fail) throw fail();
      return {};
    },
  });
}

function setUp(routes: DueJobRoute<string>[], ...operations: ReturnType<typeof operation>[]) {
  const entries: AuditEntry[] = [];
  const logs: string[] = [];
  let flushes = 0;
  const catalog = new OperationCatalog().register(...operations);
  const invoker = new OperationInvoker(catalog, { record: (entry) => void entries.push(entry) }, new ManualClock(0), {
    settled: async () => void flushes++,
  });
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(line) });
  return { dueJobs: new DueJobs(routes, invoker, logger), catalog, entries, logs, flushes: () => flushes };
}

const route = (operationName: string, event = 'thing.due'): DueJobRoute<string> => ({
  type: 'thing',
  event,
  operation: operationName,
  input: (job) => ({ id: job.address.id, dueAt: job.dueAt }),
});
const job = (id: string, event = 'thing.due'): DueJob => ({
  id: `job:${id}`,
  kind: 'once',
  address: { type: 'thing', id },
  event: { type: event },
  dueAt: 42,
});

describe('DueJobs', () => {
  it('calls the routed system operation through the invoker: audited as system, durable before done', async () => {
    const seen: unknown[] = [];
    const { dueJobs, catalog, entries, flushes } = setUp([route('thing_due')], operation('thing_due', ['system'], seen));
    dueJobs.check(catalog);
    await dueJobs.deliver(job('a'));
    expect(seen).toEqual([{ id: 'a', dueAt: 42 }]);
    expect(flushes()).toBe(1);
    expect(entries).toEqual([
      expect.objectContaining({
        operation: 'thing_due',
        surface: 'system',
        principal: { type: 'system', id: 'job:a' },
        outcome: 'ok',
        requestId: 'job:a@42',
      }),
    ]);
  });

  it('refuses at start a route whose operation is missing or not callable by the system', () => {
    const seen: unknown[] = [];
    expect(() => setUp([route('nothing')]).dueJobs.check(new OperationCatalog())).toThrow(
      'names nothing, which the system cannot call (unknown)',
    );
    const opsOnly = setUp([route('ops_thing')], operation('ops_thing', ['ops'], seen));
    expect(() => opsOnly.dueJobs.check(opsOnly.catalog)).toThrow('names ops_thing, which the system cannot call (hidden)');
    expect(() => setUp([route('a'), route('b')])).toThrow('Due job thing thing.due routed twice');
  });

  it('drops a job for a missing actor (404) with a warning, and throws any other failure so the job is retried', async () => {
    const seen: unknown[] = [];
    const missing = setUp(
      [route('thing_due')],
      operation('thing_due', ['system'], seen, () => AppError.notFound('thing a not found')),
    );
    await missing.dueJobs.deliver(job('a'));
    expect(missing.logs.some((line) => line.includes('due job for a missing actor dropped'))).toBe(true);
    expect(missing.entries[0]).toMatchObject({ outcome: 'error', error: 'RESOURCE_NOT_FOUND' });

    const broken = setUp(
      [route('thing_due')],
      operation('thing_due', ['system'], seen, () => new Error('disk full')),
    );
    await expect(broken.dueJobs.deliver(job('b'))).rejects.toThrow('disk full');
  });

  it('drops a job no operation takes, with an error in the log', async () => {
    const seen: unknown[] = [];
    const { dueJobs, logs, entries } = setUp([route('thing_due')], operation('thing_due', ['system'], seen));
    await dueJobs.deliver(job('a', 'thing.other'));
    expect(seen).toEqual([]);
    expect(entries).toEqual([]);
    expect(logs.some((line) => line.includes('due job no operation takes dropped') && line.includes('thing.other'))).toBe(true);
  });
});
