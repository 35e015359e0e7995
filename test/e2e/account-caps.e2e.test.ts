/**
 * Per-user caps on agents, bots and the active keys of one agent or bot:
 * configurable, a 409 saying which cap and its size, and exact under concurrency (140
 * creates at once end with exactly the cap created).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Operator } from '../support/mcp-fixtures.js';
import { startTestService, type TestService } from '../support/test-service.js';

const BURST = 140;
const conflict = (message: string) => ({ status: 409, body: { statusCode: 409, message, error: 'Conflict', code: 'RESOURCE_CONFLICT' } });

describe('per-user caps (e2e)', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ env: { MAX_AGENTS_PER_USER: '5', MAX_BOTS_PER_USER: '4', MAX_ACTIVE_KEYS_PER_AGENT: '3' } });
  });
  afterAll(() => svc.stop());

  /** Fires `BURST` requests at once; the statuses, counted. */
  async function burst(request: (i: number) => Promise<{ status: number; body: unknown }>) {
    const answers = await Promise.all(Array.from({ length: BURST }, (_, i) => request(i)));
    const statuses: Record<number, number> = {};
    for (const { status } of answers) statuses[status] = (statuses[status] ?? 0) + 1;
    return { answers, statuses };
  }

  it('agents: 140 concurrent creates make exactly the cap; the rest are 409; another user is not affected', async () => {
    const alice = await Operator.signIn(svc);
    const { answers, statuses } = await burst((i) => alice.client.post('/api/nest/agents', { name: `agent ${i}` }));
    expect(statuses).toEqual({ 201: 5, 409: BURST - 5 });
    expect(answers.find((a) => a.status === 409)).toMatchObject(conflict('Agent limit reached: at most 5 agents per user'));
    expect((await alice.client.get('/api/nest/agents')).body.items).toHaveLength(5);
    // With a chosen id too, and without spending it.
    expect(await alice.client.post('/api/nest/agents', { name: 'one more', agentId: 'one-more' })).toMatchObject(
      conflict('Agent limit reached: at most 5 agents per user'),
    );
    const bob = await Operator.signIn(svc);
    expect((await bob.client.post('/api/nest/agents', { name: 'bob' })).status).toBe(201);
  });

  it('bots: the cap counts live bots; deleting one makes room for one', async () => {
    const carol = await Operator.signIn(svc);
    const { answers, statuses } = await burst((i) => carol.client.post('/api/nest/bots', { name: `bot ${i}` }));
    expect(statuses).toEqual({ 201: 4, 409: BURST - 4 });
    expect(answers.find((a) => a.status === 409)).toMatchObject(conflict('Bot limit reached: at most 4 bots per user'));
    const first = answers.find((a) => a.status === 201)!.body as { id: string };
    expect((await carol.client.delete(`/api/nest/bots/${first.id}`)).status).toBe(200);
    expect((await carol.client.post('/api/nest/bots', { name: 'replacement' })).status).toBe(201);
    expect(await carol.client.post('/api/nest/bots', { name: 'too many' })).toMatchObject(
      conflict('Bot limit reached: at most 4 bots per user'),
    );
  });

  it('keys: the cap counts active keys of one agent or bot; revoking one makes room; a token rotation at the cap still rotates', async () => {
    const dave = await Operator.signIn(svc);
    const { agentId } = await dave.agent('keys');
    const { answers, statuses } = await burst((i) =>
      dave.client.post(`/api/nest/agents/${agentId}/keys`, { name: `key ${i}`, scope: 'read' }),
    );
    expect(statuses).toEqual({ 201: 3, 409: BURST - 3 });
    expect(answers.find((a) => a.status === 409)).toMatchObject(conflict('Key limit reached: at most 3 active keys per agent'));
    const keys = (await dave.client.get(`/api/nest/agents/${agentId}/keys`)).body.items as Array<{ keyId: string; status: string }>;
    expect(keys.map((k) => k.status)).toEqual(['active', 'active', 'active']);
    await dave.revokeAgentKey(agentId, keys[0]!.keyId);
    expect((await dave.client.post(`/api/nest/agents/${agentId}/keys`, { name: 'after revoke', scope: 'read' })).status).toBe(201);
    expect(await dave.client.post(`/api/nest/agents/${agentId}/keys`, { name: 'over', scope: 'read' })).toMatchObject(
      conflict('Key limit reached: at most 3 active keys per agent'),
    );

    // A second agent of the same user has its own allowance.
    const other = await dave.agent('other');
    expect((await dave.client.post(`/api/nest/agents/${other.agentId}/keys`, { name: 'k', scope: 'read' })).status).toBe(201);

    const bot = (await dave.client.post('/api/nest/bots', { name: 'bot' })).body as { id: string };
    expect((await dave.client.post(`/api/nest/bots/${bot.id}/mcp/token`, {})).status).toBe(201);
    for (const name of ['b1', 'b2'])
      expect((await dave.client.post(`/api/nest/bots/${bot.id}/mcp/keys`, { name, scope: 'read' })).status).toBe(201);
    expect(await dave.client.post(`/api/nest/bots/${bot.id}/mcp/keys`, { name: 'b3', scope: 'read' })).toMatchObject(
      conflict('Key limit reached: at most 3 active keys per bot'),
    );
    const rotated = await dave.client.post(`/api/nest/bots/${bot.id}/mcp/token`, {});
    expect(rotated).toMatchObject({ status: 201, body: { revokedKeyId: expect.any(String) } });
  });
});
