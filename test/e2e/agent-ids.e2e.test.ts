/**
 * A caller-chosen agentId is scoped to its owner: creating an id another
 * user holds succeeds and tells nothing, and the two agents stay separate on every route
 * that names an agent (REST, keys, step-up, trading accounts, audit logs, MCP).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, Operator, rawRpc } from '../support/mcp-fixtures.js';
import { startTestService, type TestService } from '../support/test-service.js';

describe('agent ids scoped per owner (e2e)', () => {
  let svc: TestService;
  let alice: Operator;
  let bob: Operator;
  beforeAll(async () => {
    svc = await startTestService();
    alice = await Operator.signIn(svc);
    bob = await Operator.signIn(svc);
  });
  afterAll(() => svc.stop());

  const status = (publicId: string, secret: string) =>
    rawRpc(
      svc.url,
      publicId,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'agent_status', arguments: {} } },
      bearer(secret),
    );

  it("creating another user's agentId succeeds, and the two agents stay apart", async () => {
    const mine = await alice.client.post('/api/nest/agents', { name: 'Alice alpha', agentId: 'alpha' });
    expect(mine).toMatchObject({ status: 201, body: { agentId: 'alpha', name: 'Alice alpha' } });
    const theirs = await bob.client.post('/api/nest/agents', { name: 'Bob alpha', agentId: 'alpha' });
    expect(theirs).toMatchObject({ status: 201, body: { agentId: 'alpha', name: 'Bob alpha' } });
    expect(theirs.body.publicId).not.toBe(mine.body.publicId);
    // One's own id again is still a conflict.
    expect(await alice.client.post('/api/nest/agents', { name: 'again', agentId: 'alpha' })).toMatchObject({
      status: 409,
      body: { message: 'Agent already exists' },
    });

    expect((await alice.client.get('/api/nest/agents/alpha')).body).toMatchObject({
      agentId: 'alpha',
      name: 'Alice alpha',
      publicId: mine.body.publicId,
    });
    expect((await bob.client.get('/api/nest/agents/alpha')).body).toMatchObject({
      agentId: 'alpha',
      name: 'Bob alpha',
      publicId: theirs.body.publicId,
    });
    expect((await bob.client.get('/api/nest/agents')).body.items).toEqual([
      // His first agent is his default one, and the list says so.
      expect.objectContaining({ agentId: 'alpha', name: 'Bob alpha', isDefault: true }),
    ]);

    // Controls and keys act on the caller's own alpha.
    expect((await bob.client.post('/api/nest/agents/alpha/pause')).body).toMatchObject({ agentId: 'alpha', status: 'paused' });
    expect((await alice.client.get('/api/nest/agents/alpha')).body.status).toBe('active');
    const bobKey = await bob.agentKey('alpha', 'manage'); // step-up bound to Bob's alpha
    expect((await alice.client.get('/api/nest/agents/alpha/keys')).body.items).toEqual([]);
    expect((await status(theirs.body.publicId, bobKey.secret)).body.result.content[0].text).toContain('"agentId":"alpha"');
    expect((await status(mine.body.publicId, bobKey.secret)).status).toBe(404);

    // Trading accounts named by `agentId` are the caller's.
    const custodial = (userId: string) => `/api/nest/trading/wallets/custodial/${userId}?agentId=alpha`;
    expect((await bob.client.post(custodial(bob.userId), {}, { 'x-idempotency-key': randomUUID() })).status).toBe(201);
    expect((await alice.client.get(custodial(alice.userId))).body).toMatchObject({ exists: false, wallet: null });

    // Each owner's audit log holds their own calls only (entries are written in batches: poll).
    const operations = async (operator: Operator) =>
      ((await operator.client.get('/api/nest/agents/alpha/logs')).body.items as Array<{ operation: string }>).map((e) => e.operation);
    const bobs = ['agent_pause', 'step_up_issue', 'agent_keys_create', 'trading_wallet_custodial_ensure'];
    await expect.poll(() => operations(bob)).toEqual(expect.arrayContaining(bobs));
    await expect
      .poll(async () => (await operations(alice)).sort())
      .toEqual(['agent_get', 'agent_get', 'agent_keys_list', 'trading_wallet_custodial_get']);
  });

  it('agents created before ids were scoped are still found, and their ids are not revealed to others', async () => {
    const { runtime } = svc.service;
    await runtime.create('agent', 'legacy-agent', {
      agentId: 'legacy-agent',
      publicId: `pub_${randomUUID().replace(/-/g, '')}`,
      ownerId: alice.userId,
      name: 'Old',
      createdAt: Date.now(),
    });
    await runtime.send({ type: 'agent', id: 'legacy-agent' }, { type: 'agent.activate' });
    expect((await alice.client.get('/api/nest/agents/legacy-agent')).body).toMatchObject({ agentId: 'legacy-agent', name: 'Old' });
    expect((await alice.client.post('/api/nest/agents/legacy-agent/pause')).status).toBe(200);
    expect(await alice.client.post('/api/nest/agents', { name: 'dup', agentId: 'legacy-agent' })).toMatchObject({
      status: 409,
      body: { message: 'Agent already exists' },
    });
    expect((await bob.client.get('/api/nest/agents/legacy-agent')).status).toBe(404);
    expect(await bob.client.post('/api/nest/agents', { name: 'Bob legacy', agentId: 'legacy-agent' })).toMatchObject({
      status: 201,
      body: { agentId: 'legacy-agent' },
    });
    expect((await bob.client.get('/api/nest/agents/legacy-agent')).body.name).toBe('Bob legacy');
    expect((await alice.client.get('/api/nest/agents/legacy-agent')).body).toMatchObject({ name: 'Old', status: 'paused' });
  });
});
