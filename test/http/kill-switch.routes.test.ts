import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { MemoryStore } from '../support/memory-store.adapter.js';
import { KILL_SWITCH_CACHE_MS, KILL_SWITCH_COLLECTIONS, StoreKillSwitch } from '../../agents/config/kill-switch.service.js';
import { openApiProblems } from '../support/openapi-lint.js';
import { buildOpenApiDocument } from '../../src/http/openapi/openapi-document.js';
import { catalogRouteDocs } from '../../src/http/openapi/catalog-routes.doc.js';
import { KILL_SWITCH_BINDINGS, KILL_SWITCH_PATH } from '../../src/http/routes/kill-switch.bindings.js';
import { createOperationRoutes } from '../../src/http/routes/operation.routes.js';
import type { AuditEntry } from '../../src/operations/audit.types.js';
import { killSwitchOperations } from '../../src/operations/definitions/kill-switch.ops.js';
import { OperationCatalog } from '../../src/operations/operation-catalog.js';
import { OperationInvoker } from '../../src/operations/operation-invoker.js';
import { OPS_TOKEN, createTestApp } from '../support/http-harness.js';

const AUTH = `Bearer ${OPS_TOKEN}`;

/** Two service processes on one store, each with the ops router and the kill-switch routes (configured: solana). */
async function setup() {
  const clock = new ManualClock(Date.UTC(2026, 2, 1, 12));
  const store = new MemoryStore(clock);
  await store.init(KILL_SWITCH_COLLECTIONS);
  const node = () => {
    const killSwitch = new StoreKillSwitch({ store, clock, configured: ['solana'] });
    const warnings: unknown[] = [];
    const audit: AuditEntry[] = [];
    const catalog = new OperationCatalog().register(...killSwitchOperations(killSwitch, { warn: (details) => warnings.push(details) }));
    const invoker = new OperationInvoker(catalog, { record: (entry) => audit.push(entry) }, clock);
    const none = {} as never;
    const routes = createOperationRoutes({ auth: none, invoker, accounts: none, bindings: KILL_SWITCH_BINDINGS, opsToken: OPS_TOKEN });
    const { app } = createTestApp({ routers: [routes] });
    return { app, killSwitch, warnings, audit, catalog };
  };
  return { clock, one: node(), two: node() };
}

describe('kill-switch ops routes', () => {
  it('answer 401 without the ops token, or with a wrong one, and change nothing', async () => {
    const { one } = await setup();
    for (const header of [undefined, 'Bearer nope', `Basic ${OPS_TOKEN}`]) {
      const get = request(one.app).get(KILL_SWITCH_PATH);
      const put = request(one.app).put(KILL_SWITCH_PATH).send({ chain: 'base', active: true });
      for (const res of await Promise.all(
        header === undefined ? [get, put] : [get.set('Authorization', header), put.set('Authorization', header)],
      )) {
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ statusCode: 401, message: 'Unauthorized', error: 'Unauthorized' });
      }
    }
    expect(await one.killSwitch.isActive('base')).toBe(false);
  });

  it('shows every chain, switches one for every process, and logs the act', async () => {
    const { one, two, clock } = await setup();
    const before = await request(one.app).get(KILL_SWITCH_PATH).set('Authorization', AUTH);
    expect(before.status).toBe(200);
    expect(before.body.active).toEqual(['solana']);
    expect(await two.killSwitch.isActive('base')).toBe(false);

    const put = await request(one.app).put(KILL_SWITCH_PATH).set('Authorization', AUTH).send({ chain: 'base', active: true });
    expect(put.status).toBe(200);
    expect(put.body.active).toEqual(['solana', 'base']);
    expect(put.body.chains[2]).toEqual({ chain: 'base', active: true, source: 'operator', since: new Date(clock.now()).toISOString() });
    expect(one.warnings).toEqual([expect.objectContaining({ chain: 'base', active: true, requestId: expect.any(String) })]);
    // One road: the act is in the audit trail as the ops token's call of the operation.
    expect(one.audit.map(({ operation, principal, outcome }) => ({ operation, principal, outcome }))).toEqual([
      { operation: 'ops_kill_switch_get', principal: { type: 'ops', id: 'ops-token' }, outcome: 'ok' },
      { operation: 'ops_kill_switch_set', principal: { type: 'ops', id: 'ops-token' }, outcome: 'ok' },
    ]);

    await clock.advance(KILL_SWITCH_CACHE_MS);
    expect(await two.killSwitch.isActive('base')).toBe(true);
    expect((await request(two.app).get(KILL_SWITCH_PATH).set('Authorization', AUTH)).body.active).toEqual(['solana', 'base']);
  });

  it('refuses bad bodies with every problem listed, and 409s switching off a configured chain', async () => {
    const { one } = await setup();
    const bad = await request(one.app)
      .put(KILL_SWITCH_PATH)
      .set('Authorization', AUTH)
      .send({ chain: 'dogechain', active: 'yes', extra: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    expect(bad.body.message).toHaveLength(3);
    expect(bad.body.message).toEqual(expect.arrayContaining(['active must be boolean', 'extra is not a known field']));
    const conflict = await request(one.app).put(KILL_SWITCH_PATH).set('Authorization', AUTH).send({ chain: 'solana', active: false });
    expect(conflict.status).toBe(409);
    expect(conflict.body.message).toBe('Kill switch for solana is set by configuration (TRADING_KILL_SWITCH); change it there and restart');
  });

  it('has route docs that make a valid OpenAPI document, which the catalog settings never hide', async () => {
    const { one } = await setup();
    // Switching every family off hides what agents and operators are offered, never the kill switch.
    one.catalog.configure({ disabledFamilies: ['ops'], disabledOperations: ['ops_kill_switch_set'] });
    const routes = catalogRouteDocs(one.catalog, KILL_SWITCH_BINDINGS);
    expect(routes.map((route) => [route.method, route.auth])).toEqual([
      ['get', ['ops']],
      ['put', ['ops']],
    ]);
    const document = buildOpenApiDocument({
      title: 't',
      version: '1',
      description: 'd',
      tags: [{ name: 'Ops', description: 'ops' }],
      routes: () => routes,
    });
    expect(openApiProblems(document)).toEqual([]);
    expect((await request(one.app).put(KILL_SWITCH_PATH).set('Authorization', AUTH).send({ chain: 'base', active: true })).status).toBe(
      200,
    );
  });
});
