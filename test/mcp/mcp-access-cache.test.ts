/**
 * The opt-in publicId cache of McpAccessResolver (the MCP hot path): one store lookup per
 * publicId per TTL, shared by concurrent requests; misses and credentials are never cached.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { McpAccessResolver } from '../../src/mcp/mcp-access.js';
import { agentDefinition } from '../../machines/agent.machine.js';
import { botDefinition } from '../../machines/bot.machine.js';
import type { ActorCollection } from '../../kernel/ports/actor-collection.port.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { Operator } from '../support/mcp-fixtures.js';

describe('McpAccessResolver publicId cache', () => {
  const clock = new ManualClock(Date.now());
  let svc: TestService;
  let operator: Operator;
  let resolver: McpAccessResolver;
  let finds = 0;

  beforeAll(async () => {
    svc = await startTestService({ clock });
    operator = await Operator.signIn(svc);
    const { runtime, services } = svc.service;
    // Counts index lookups of agents and bots; the lookups themselves are the runtime's.
    const counting = <C>(actors: Pick<ActorCollection<C>, 'find'>): Pick<ActorCollection<C>, 'find'> => ({
      find: (query, page) => {
        finds++;
        return actors.find(query, page);
      },
    });
    const actors = { agents: counting(runtime.collection(agentDefinition)), bots: counting(runtime.collection(botDefinition)) };
    resolver = new McpAccessResolver(actors, services.resolver, false, { ttlMs: 1_000, clock });
  });
  afterAll(() => svc.stop());

  it('reuses a lookup for the TTL, then sees a bot config change', async () => {
    const bot = await operator.botWithKey();
    const auth = `Bearer ${bot.secret}`;
    finds = 0;
    const [first, second] = await Promise.all([resolver.resolve(bot.publicId, auth), resolver.resolve(bot.publicId, auth)]);
    const lookups = finds;
    expect(lookups).toBeGreaterThan(0);
    expect(first.granularErrors).toBe(false);
    expect(second.subject).toEqual({ type: 'bot', id: bot.botId });

    expect((await operator.client.put(`/api/nest/bots/${bot.botId}/mcp`, { granularErrors: true })).status).toBe(200);
    expect((await resolver.resolve(bot.publicId, auth)).granularErrors).toBe(false);
    expect(finds).toBe(lookups);

    await clock.advance(1_001);
    expect((await resolver.resolve(bot.publicId, auth)).granularErrors).toBe(true);
    expect(finds).toBe(2 * lookups);
  });

  it('does not cache misses, nor credentials', async () => {
    const bot = await operator.botWithKey();
    finds = 0;
    await expect(resolver.resolve('pub_notThereYet', `Bearer ${bot.secret}`)).rejects.toMatchObject({
      kind: 'not_found',
      message: 'Agent not found',
    });
    await expect(resolver.resolve('pub_notThereYet', `Bearer ${bot.secret}`)).rejects.toMatchObject({ kind: 'not_found' });
    expect(finds).toBe(4); // agent and bot indexes, twice
    await expect(resolver.resolve(bot.publicId, 'Bearer mcpk_wrong')).rejects.toMatchObject({ kind: 'unauthenticated' });
  });
});
