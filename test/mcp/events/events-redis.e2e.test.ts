import { describe, expect, it } from 'vitest';
import { agentFixture, openSse, openWs, until } from '../../support/events-harness.js';
import { processPairOnRedis } from '../../support/process-pair.js';

/** Two service processes on one store and one Redis: the stream is served by B, changes are made through A. */
describe('MCP event streams across processes (Redis event bus)', () => {
  const pair = processPairOnRedis('events-redis');

  it('delivers in order, replays from Last-Event-ID on the other process, and ends on a revocation made elsewhere', async () => {
    const agent = await agentFixture(pair.a.url);
    const key = await agent.newKey();
    const sse = await openSse(pair.b.url, agent.publicId, { secret: key.secret });
    const ws = await openWs(pair.b.url, agent.publicId, { secret: key.secret });
    if (!ws.ok) throw new Error(`handshake refused: ${ws.status}`);
    await agent.toggle(2);
    await until(() => sse.events().length === 4 && ws.client.messages.length === 4, 'four events on B');
    const ids = sse.events().map((e) => e.id);
    expect(ids).toEqual([0, 1, 2, 3].map((n) => ids[0]! + n));
    expect(ws.client.messages.map((m) => m.id)).toEqual(ids);

    // Reconnect on A after the second event: exactly the two later ones, then live.
    const replay = await openSse(pair.a.url, agent.publicId, { secret: key.secret, headers: { 'last-event-id': String(ids[1]) } });
    await until(() => replay.events().length === 2, 'replay on A');
    expect(replay.events().map((e) => e.id)).toEqual([ids[2], ids[3]]);

    await agent.operator.delete(`/api/nest/agents/${agent.agentId}/keys/${key.keyId}`);
    await until(() => sse.ended && replay.ended && ws.client.closed !== undefined, 'every stream to end');
    expect(ws.client.closed?.code).toBe(4401);
    expect(sse.comments()).toContain('stream closed: revoked');
  }, 60_000);
});
