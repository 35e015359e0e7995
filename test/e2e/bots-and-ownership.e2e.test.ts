import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { Client, signInSolana, startTestService, type TestService } from '../support/test-service.js';
import { codeAt } from '../support/totp-codes.js';

describe('legacy bots (e2e)', () => {
  let svc: TestService;
  let alice: Client;
  beforeAll(async () => {
    svc = await startTestService();
    alice = new Client(svc.url);
    await signInSolana(alice);
  });
  afterAll(() => svc.stop());

  it('create, list, simplified list, get, patch, put, delete — each marked deprecated', async () => {
    const created = await alice.post('/api/nest/bots', { name: 'Studio bot' });
    expect(created).toMatchObject({ status: 201, body: { name: 'Studio bot', description: '', tradingEnabled: false, status: 'active' } });
    expect(created.headers.get('deprecation')).toBe('true');
    expect(created.headers.get('link')).toBe('</api/nest/agents>; rel="successor-version"');
    const id = created.body.id;

    expect((await alice.get('/api/nest/bots')).body.items).toEqual([created.body]);
    expect((await alice.get('/api/nest/bots/list')).body.items).toEqual([{ id, name: 'Studio bot', status: 'active' }]);
    expect((await alice.get(`/api/nest/bots/${id}`)).body).toEqual(created.body);

    const patched = await alice.patch(`/api/nest/bots/${id}`, { description: 'trades SOL' });
    expect(patched.body).toMatchObject({ name: 'Studio bot', description: 'trades SOL' });
    expect((await alice.patch(`/api/nest/bots/${id}`, {})).status).toBe(400);
    expect((await alice.put(`/api/nest/bots/${id}`, { name: 'Renamed' })).status).toBe(400);
    const replaced = await alice.put(`/api/nest/bots/${id}`, { name: 'Renamed', description: '', tradingEnabled: true });
    expect(replaced.body).toMatchObject({ name: 'Renamed', description: '', tradingEnabled: true });

    expect((await alice.delete(`/api/nest/bots/${id}`)).body).toEqual({ id, deleted: true });
    expect((await alice.get(`/api/nest/bots/${id}`)).status).toBe(404);
    expect((await alice.get('/api/nest/bots')).body.items).toEqual([]);
  });

  it('bot MCP config, keys and token rotation', async () => {
    const { body: bot } = await alice.post('/api/nest/bots', { name: 'MCP bot' });
    const config = await alice.get(`/api/nest/bots/${bot.id}/mcp`);
    expect(config.body).toEqual({ config: { enabled: true, granularErrors: false, disabledCategories: [] }, keys: [] });
    const updated = await alice.put(`/api/nest/bots/${bot.id}/mcp`, { granularErrors: true });
    expect(updated.body.config.granularErrors).toBe(true);

    const key = await alice.post(`/api/nest/bots/${bot.id}/mcp/keys`, { name: 'reader', scope: 'read' });
    expect(key).toMatchObject({ status: 201, body: { secret: expect.stringMatching(/^mcpk_/), scope: 'read' } });

    // Every field is optional: no body at all is no fields, as `{}` is.
    const first = await alice.request('POST', `/api/nest/bots/${bot.id}/mcp/token`);
    expect(first).toMatchObject({ status: 201, body: { secret: expect.stringMatching(/^mcpk_/), scope: 'read' } });
    const second = await alice.post(`/api/nest/bots/${bot.id}/mcp/token`);
    expect(second.body.revokedKeyId).toBe(first.body.keyId);
    const verify = (secret: string) => {
      const client = new Client(svc.url);
      client.bearer = secret;
      return client.post('/api/nest/auth/verify');
    };
    expect((await verify(first.body.secret)).status).toBe(401);
    expect(await verify(second.body.secret)).toMatchObject({ status: 200, body: { principal: { type: 'bot-key', botId: bot.id } } });

    const keys = (await alice.get(`/api/nest/bots/${bot.id}/mcp`)).body.keys;
    expect(keys.map((k: { status: string }) => k.status).sort()).toEqual(['active', 'active', 'revoked']);
    expect((await alice.delete(`/api/nest/bots/${bot.id}/mcp/keys/${key.body.keyId}`)).body.status).toBe('revoked');
  });

  it('the MCP key list pages like every list: limit, cursor and nextCursor, with the config on every page', async () => {
    const { body: bot } = await alice.post('/api/nest/bots', { name: 'Many keys' });
    const created: string[] = [];
    for (const name of ['k1', 'k2', 'k3'])
      created.push((await alice.post(`/api/nest/bots/${bot.id}/mcp/keys`, { name, scope: 'read' })).body.keyId);
    const first = await alice.get(`/api/nest/bots/${bot.id}/mcp?limit=2`);
    expect(first).toMatchObject({
      status: 200,
      body: { config: { enabled: true }, keys: [expect.anything(), expect.anything()], nextCursor: expect.any(String) },
    });
    const second = await alice.get(`/api/nest/bots/${bot.id}/mcp?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(second.body).toMatchObject({ config: { enabled: true }, keys: [expect.anything()] });
    expect(second.body).not.toHaveProperty('nextCursor');
    const seen = [...first.body.keys, ...second.body.keys].map((k: { keyId: string }) => k.keyId);
    expect(seen.sort()).toEqual(created.sort());
    // A key past the first page can be revoked like any other.
    const last = second.body.keys[0].keyId;
    expect((await alice.delete(`/api/nest/bots/${bot.id}/mcp/keys/${last}`)).body).toMatchObject({ keyId: last, status: 'revoked' });
    expect(await alice.get(`/api/nest/bots/${bot.id}/mcp?limit=0`)).toMatchObject({
      status: 400,
      body: { message: [expect.stringMatching(/^limit: /)] },
    });
  });

  it('deleting a bot revokes its keys: none of them authenticates any more', async () => {
    const { body: bot } = await alice.post('/api/nest/bots', { name: 'Doomed' });
    const key = (await alice.post(`/api/nest/bots/${bot.id}/mcp/keys`, { name: 'reader', scope: 'read' })).body;
    const token = (await alice.request('POST', `/api/nest/bots/${bot.id}/mcp/token`)).body;
    const verify = (secret: string) => {
      const client = new Client(svc.url);
      client.bearer = secret;
      return client.post('/api/nest/auth/verify');
    };
    expect((await verify(key.secret)).status).toBe(200);
    expect((await verify(token.secret)).status).toBe(200);
    expect((await alice.delete(`/api/nest/bots/${bot.id}`)).body).toEqual({ id: bot.id, deleted: true });
    expect((await verify(key.secret)).status).toBe(401);
    expect((await verify(token.secret)).status).toBe(401);

    // A key that escaped the revocation (a bot deleted before deletes revoked keys) is refused too.
    const { body: old } = await alice.post('/api/nest/bots', { name: 'Deleted long ago' });
    const escaped = (await alice.post(`/api/nest/bots/${old.id}/mcp/keys`, { name: 'reader', scope: 'read' })).body;
    await svc.service.runtime.send({ type: 'bot', id: old.id }, { type: 'bot.delete', at: Date.now() });
    expect((await verify(escaped.secret)).status).toBe(401);
  });
});

describe('ownership: another user never reaches someone else’s agents, bots or keys', () => {
  const clock = new ManualClock(Date.now());
  let svc: TestService;
  const alice = { client: undefined as unknown as Client, agentId: '', agentKeyId: '', agentKeySecret: '', botId: '', botKeyId: '' };
  let bob: Client;
  let bobAgentId: string;

  beforeAll(async () => {
    svc = await startTestService({ clock });
    alice.client = new Client(svc.url);
    await signInSolana(alice.client);
    alice.agentId = (await alice.client.post('/api/nest/agents', { name: 'Alice agent' })).body.agentId;
    const key = await alice.client.post(`/api/nest/agents/${alice.agentId}/keys`, { name: 'k', scope: 'trade' });
    alice.agentKeyId = key.body.keyId;
    alice.agentKeySecret = key.body.secret;
    alice.botId = (await alice.client.post('/api/nest/bots', { name: 'Alice bot' })).body.id;
    alice.botKeyId = (await alice.client.post(`/api/nest/bots/${alice.botId}/mcp/keys`, { name: 'k', scope: 'read' })).body.keyId;

    bob = new Client(svc.url);
    await signInSolana(bob);
    bobAgentId = (await bob.post('/api/nest/agents', { name: 'Bob agent' })).body.agentId;
    // Bob has TOTP too, so a step-up attempt fails on ownership, not on enrolment.
    const { body } = await bob.post('/api/nest/auth/totp/enroll');
    await bob.post('/api/nest/auth/totp/activate', { code: await codeAt(body.secret, clock) });
  });
  afterAll(() => svc.stop());

  const routes = (): Array<[string, string, unknown?]> => [
    ['GET', `/api/nest/agents/${alice.agentId}`],
    ['PUT', `/api/nest/agents/${alice.agentId}/default`, {}],
    ['POST', `/api/nest/agents/${alice.agentId}/keys`, { name: 'x', scope: 'read' }],
    ['GET', `/api/nest/agents/${alice.agentId}/keys`],
    ['DELETE', `/api/nest/agents/${alice.agentId}/keys/${alice.agentKeyId}`],
    ['DELETE', `/api/nest/agents/${bobAgentId}/keys/${alice.agentKeyId}`],
    ['POST', `/api/nest/agents/${alice.agentId}/control/mcp/step-up`, { code: '123456' }],
    ['GET', `/api/nest/bots/${alice.botId}`],
    ['PATCH', `/api/nest/bots/${alice.botId}`, { name: 'mine now' }],
    ['PUT', `/api/nest/bots/${alice.botId}`, { name: 'mine', description: '', tradingEnabled: true }],
    ['DELETE', `/api/nest/bots/${alice.botId}`],
    ['GET', `/api/nest/bots/${alice.botId}/mcp`],
    ['PUT', `/api/nest/bots/${alice.botId}/mcp`, { enabled: false }],
    ['POST', `/api/nest/bots/${alice.botId}/mcp/keys`, { name: 'x', scope: 'read' }],
    ['DELETE', `/api/nest/bots/${alice.botId}/mcp/keys/${alice.botKeyId}`],
    ['POST', `/api/nest/bots/${alice.botId}/mcp/step-up`, { code: '123456' }],
    ['POST', `/api/nest/bots/${alice.botId}/mcp/token`, {}],
  ];

  it('answers 404 on every route of the other user’s resources, and changes nothing', async () => {
    for (const [method, path, body] of routes()) {
      const result = await bob.request(method, path, body);
      expect({ method, path, status: result.status }).toEqual({ method, path, status: 404 });
      expect(JSON.stringify(result.body)).not.toContain('Alice');
    }
    expect((await alice.client.get(`/api/nest/bots/${alice.botId}`)).body.name).toBe('Alice bot');
    const keys = (await alice.client.get(`/api/nest/agents/${alice.agentId}/keys`)).body.items;
    expect(keys).toEqual([expect.objectContaining({ keyId: alice.agentKeyId, status: 'active' })]);
    const verify = new Client(svc.url);
    verify.bearer = alice.agentKeySecret;
    expect((await verify.post('/api/nest/auth/verify')).status).toBe(200);
  });

  it('lists only the caller’s own agents and bots', async () => {
    expect((await bob.get('/api/nest/agents')).body.items.map((a: { agentId: string }) => a.agentId)).toEqual([bobAgentId]);
    expect((await bob.get('/api/nest/bots')).body.items).toEqual([]);
  });

  it('an API key cannot drive the operator routes', async () => {
    const keyClient = new Client(svc.url);
    keyClient.bearer = alice.agentKeySecret;
    expect((await keyClient.get('/api/nest/agents')).status).toBe(403);
    expect((await keyClient.post(`/api/nest/agents/${alice.agentId}/keys`, { name: 'x', scope: 'read' })).status).toBe(403);
  });
});
