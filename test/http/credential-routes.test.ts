/**
 * Routes an agent calls with its own credential (`caller: 'agent'`) go through the same
 * handler as the operator's: every binding field holds for them too (`deprecated`,
 * `createdStatus`, `inputFirst`), and the call acts on the credential's agent as its owner.
 */
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InProcessRateLimiter } from '../../adapters/rate-limit/in-process-rate-limiter.adapter.js';
import type { KeyPrincipal } from '../../src/auth/credentials/key-authenticator.js';
import { createOperationRoutes, type RestBinding } from '../../src/http/routes/operation.routes.js';
import type { AuditEntry } from '../../src/operations/audit.types.js';
import { OperationCatalog } from '../../src/operations/operation-catalog.js';
import { defineOperation } from '../../src/operations/operation-definition.js';
import { OperationInvoker } from '../../src/operations/operation-invoker.js';
import type { OperationContext } from '../../src/operations/operation.types.js';
import { createTestApp } from '../support/http-harness.js';
import { ManualClock } from '../support/manual-clock.adapter.js';

const KEY: KeyPrincipal = { type: 'agent-key', keyId: 'key_1', scope: 'trade', ownerId: 'agt_1', prefix: 'mcpk_ab12', expiresAt: 0 };
const AUTH = 'Bearer mcpk_test';

function setup() {
  const clock = new ManualClock();
  const calls: { ctx: OperationContext; input: unknown }[] = [];
  const owners: string[] = [];
  const audit: AuditEntry[] = [];
  const ensure = defineOperation({
    name: 'test_ensure',
    description: 'Creates the thing unless it is there.',
    family: 'wallet',
    minScope: 'trade',
    principals: ['agent'],
    input: z.object({ name: z.string().max(10), fresh: z.boolean().optional() }).strict(),
    handler: async (ctx, input) => {
      calls.push({ ctx, input });
      if (input.fresh) ctx.created?.();
      return { name: input.name };
    },
  });
  const catalog = new OperationCatalog().register(ensure);
  const invoker = new OperationInvoker(catalog, { record: (entry) => audit.push(entry) }, clock);
  const bindings: RestBinding<string>[] = [
    { method: 'post', path: '/api/nest/agents/test/ensure', operation: 'test_ensure', caller: 'agent', status: 200, createdStatus: 201 },
    {
      method: 'post',
      path: '/api/nest/agents/test/legacy',
      operation: 'test_ensure',
      caller: 'agent',
      deprecated: true,
      inputFirst: true,
    },
  ];
  const routes = createOperationRoutes({
    auth: {
      resolver: {
        resolveWithAgent: async (header: string | undefined) => (header === AUTH ? { principal: KEY } : Promise.reject(new Error('no'))),
      } as never,
      csrf: {} as never,
      limiter: new InProcessRateLimiter({ clock }),
      publicLimit: (_req, _res, next) => next(),
    },
    invoker,
    accounts: {
      agent: async () => Promise.reject(new Error('not an operator route')),
      bot: async () => Promise.reject(new Error('not an operator route')),
      agentOwner: async (agentId) => {
        owners.push(agentId);
        return { ownerId: 'usr_owner' };
      },
      agentOwnerOf: () => {
        throw new Error('the credential resolver read no agent here');
      },
    },
    bindings,
  });
  return { app: createTestApp({ routers: [routes] }).app, calls, owners, audit };
}

describe("REST routes called with an agent's own credential", () => {
  it('act on the credential’s agent, as its owner, with its scope', async () => {
    const { app, calls } = setup();
    const res = await request(app).post('/api/nest/agents/test/ensure').set('Authorization', AUTH).send({ name: 'a' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: 'a' });
    expect(calls[0]?.ctx).toMatchObject({ subject: { type: 'agent', id: 'agt_1' }, userId: 'usr_owner', scope: 'trade', principal: KEY });
  });

  it('answer `createdStatus` when the handler created what it answers with, `status` when it was there', async () => {
    const { app } = setup();
    const created = await request(app).post('/api/nest/agents/test/ensure').set('Authorization', AUTH).send({ name: 'a', fresh: true });
    expect(created.status).toBe(201);
    const found = await request(app).post('/api/nest/agents/test/ensure').set('Authorization', AUTH).send({ name: 'a' });
    expect(found.status).toBe(200);
  });

  it('say they are deprecated and where the successor lives', async () => {
    const { app } = setup();
    const res = await request(app).post('/api/nest/agents/test/legacy').set('Authorization', AUTH).send({ name: 'a' });
    expect(res.status).toBe(200);
    expect(res.headers.deprecation).toBe('true');
    expect(res.headers.link).toBe('</api/nest/agents>; rel="successor-version"');
  });

  it('with `inputFirst`, refuse a malformed body before anything is looked up, audited without a subject', async () => {
    const { app, owners, calls, audit } = setup();
    const res = await request(app).post('/api/nest/agents/test/legacy').set('Authorization', AUTH).send({ name: 'much too long a name' });
    expect(res.status).toBe(400);
    expect(res.body.message).toEqual([expect.stringMatching(/^name: /)]);
    expect(owners).toEqual([]);
    expect(calls).toEqual([]);
    expect(audit).toEqual([expect.objectContaining({ operation: 'test_ensure', outcome: 'error', error: 'VALIDATION_ERROR' })]);
    expect(audit[0]).not.toHaveProperty('subject');
  });
});
