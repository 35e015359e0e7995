import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DueJobRoute } from '../../src/composition/feature-module.types.js';
import { assertBindingsResolve, type RestBinding } from '../../src/http/routes/operation.routes.js';
import { COMMAND_OPERATIONS } from '../../src/operations/command-gate.js';
import type { OperationName } from '../../src/operations/operation-names.js';
import { startTestService, type TestService } from '../support/test-service.js';

// Compile time (`npm run typecheck` checks this file): an operation is referred to by a name
// the catalog defines. Each `@ts-expect-error` fails the typecheck if its line compiles.
const bound: RestBinding = { method: 'get', path: '/api/nest/agents/:agentId/status', operation: 'agent_status' };
const misspelled: RestBinding = {
  method: 'get',
  path: '/api/nest/agents/:agentId/status',
  // @ts-expect-error `agent_stauts` is no operation: the binding does not compile (it once mounted a route answering 404).
  operation: 'agent_stauts',
};
const dueJob: Pick<DueJobRoute, 'operation'> = { operation: 'dca_tick' };
// @ts-expect-error a due job routed to an operation that does not exist does not compile either.
const misroutedDueJob: Pick<DueJobRoute, 'operation'> = { operation: 'dca_tock' };
// Every operation a chat command stands for is one the catalog defines (the gate itself cannot import the names: a cycle).
const commandOperations: Readonly<Record<string, OperationName>> = COMMAND_OPERATIONS;
// @ts-expect-error nor does a command mapped to a misspelled one.
const misnamed: OperationName = 'trading_comand';

describe('operations bound by a name the catalog has', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(() => svc.stop());

  it('every REST binding, due-job route and chat command of the running service names a registered operation', () => {
    const { catalog, bindings } = svc.service.operations;
    expect(bindings.length).toBeGreaterThan(50);
    expect(bindings.filter((binding) => catalog.get(binding.operation) === undefined)).toEqual([]);
    const dueJobs = svc.service.modules.flatMap((module) => module.dueJobs);
    expect(dueJobs.length).toBeGreaterThan(3);
    expect(dueJobs.filter((route) => catalog.get(route.operation) === undefined)).toEqual([]);
    expect(Object.values(commandOperations).filter((name) => catalog.get(name) === undefined)).toEqual([]);
  });

  it('refuses to mount a binding whose operation the catalog lacks, naming it, instead of skipping it', () => {
    const { catalog } = svc.service.operations;
    expect(() => assertBindingsResolve(catalog, [bound, misspelled])).toThrow(
      'REST bindings name operations the catalog does not have: GET /api/nest/agents/:agentId/status -> agent_stauts',
    );
    expect(() => assertBindingsResolve(catalog, [bound])).not.toThrow();
    expect(catalog.get(dueJob.operation)).toBeDefined();
    expect([misroutedDueJob.operation, misnamed].map((name) => catalog.get(name))).toEqual([undefined, undefined]);
  });
});
