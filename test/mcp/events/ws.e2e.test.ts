import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../support/manual-clock.adapter.js';
import { startTestService, type TestService } from '../../support/test-service.js';
import { agentFixture, openSse, openWs, until, type WsClient, type WsResult } from '../../support/events-harness.js';

/** The client of a handshake that must succeed. */
function opened(result: WsResult): WsClient {
  if (!result.ok) throw new Error(`handshake refused: ${result.status} ${JSON.stringify(result.body)}`);
  return result.client;
}

describe('GET /mcp/:publicId/events/ws (e2e)', () => {
  const clock = new ManualClock(Date.now());
  let svc: TestService;
  const clients: WsClient[] = [];
  const ws = async (...args: Parameters<typeof openWs>) => {
    const result = await openWs(...args);
    if (result.ok) clients.push(result.client);
    return result;
  };
  beforeAll(async () => {
    svc = await startTestService({ clock });
  });
  afterEach(() => {
    for (const client of clients.splice(0)) client.ws.terminate();
  });
  afterAll(() => svc.stop());

  it('streams events as JSON {id, event, data} in order, authenticated by the Authorization header', async () => {
    const agent = await agentFixture(svc.url);
    const client = opened(await ws(svc.url, agent.publicId, { secret: (await agent.newKey()).secret }));
    // Opening is one request on the key's budget (the limits), its headers on the 101 answer.
    expect(client.handshake).toMatchObject({
      'x-ratelimit-limit': '120',
      'x-ratelimit-remaining': '119',
      'x-ratelimit-reset': expect.stringMatching(/^\d+$/),
    });
    await agent.toggle(2);
    await until(() => client.messages.length === 4, 'four messages');
    expect(client.messages.map((m) => m.data.state)).toEqual(['paused', 'active', 'paused', 'active']);
    expect(client.messages.map((m) => m.id)).toEqual(client.messages.map((_, i) => client.messages[0]!.id + i));
    expect(client.messages[0]).toEqual({
      id: expect.any(Number),
      event: 'agent.updated',
      data: {
        type: 'agent.updated',
        agentId: agent.agentId,
        at: expect.any(String),
        state: 'paused',
        name: expect.any(String),
        tradingEnabled: false,
      },
    });
  });

  it('accepts the token as `Sec-WebSocket-Protocol: bearer, <token>` and selects only `bearer`', async () => {
    const agent = await agentFixture(svc.url);
    const client = opened(await ws(svc.url, agent.publicId, { secret: (await agent.newKey()).secret, viaProtocol: true }));
    expect(client.ws.protocol).toBe('bearer');
    await agent.toggle(1);
    await until(() => client.messages.length === 2, 'two messages');
  });

  it('replays from ?lastEventId= then goes live, without gap or duplicate', async () => {
    const agent = await agentFixture(svc.url);
    const { secret } = await agent.newKey();
    const first = opened(await ws(svc.url, agent.publicId, { secret }));
    await agent.toggle(1);
    await until(() => first.messages.length === 2, 'two messages');
    const lastId = first.messages[1]!.id;
    first.ws.close();
    await agent.toggle(1);
    const again = opened(await ws(svc.url, agent.publicId, { secret, query: `?lastEventId=${lastId}` }));
    await until(() => again.messages.length === 2, 'replay');
    await agent.toggle(1);
    await until(() => again.messages.length === 4, 'live after replay');
    expect(again.messages.map((m) => m.id)).toEqual([1, 2, 3, 4].map((n) => lastId + n));
  });

  it("the owner's session reads its agent's events over WebSocket, as over SSE; a stranger's session is refused", async () => {
    const agent = await agentFixture(svc.url);
    // Both ways a session token can travel: the header (servers, the SDK on Node) and the subprotocol (browsers).
    const viaHeader = opened(await ws(svc.url, agent.publicId, { secret: agent.operator.bearer! }));
    const viaProtocol = opened(await ws(svc.url, agent.publicId, { secret: agent.operator.bearer!, viaProtocol: true }));
    await agent.toggle(1);
    await until(() => viaHeader.messages.length === 2 && viaProtocol.messages.length === 2, 'two messages on each socket');
    for (const client of [viaHeader, viaProtocol]) {
      expect(client.messages.map((m) => [m.event, m.data.state, m.data.agentId])).toEqual([
        ['agent.updated', 'paused', agent.agentId],
        ['agent.updated', 'active', agent.agentId],
      ]);
    }

    // Another user's session: the agent is not theirs, so it does not exist for them (as over SSE).
    const stranger = await agentFixture(svc.url);
    const notFound = { ok: false, status: 404, body: { statusCode: 404, message: 'Agent not found', error: 'Not Found' } };
    expect(await ws(svc.url, agent.publicId, { secret: stranger.operator.bearer! })).toMatchObject(notFound);
    expect(await ws(svc.url, agent.publicId, { secret: stranger.operator.bearer!, viaProtocol: true })).toMatchObject(notFound);
  });

  it('closes with 4401 when the key is revoked', async () => {
    const agent = await agentFixture(svc.url);
    const key = await agent.newKey();
    const client = opened(await ws(svc.url, agent.publicId, { secret: key.secret }));
    await agent.operator.delete(`/api/nest/agents/${agent.agentId}/keys/${key.keyId}`);
    await until(() => client.closed !== undefined, 'close');
    expect(client.closed).toEqual({ code: 4401, reason: 'Credential revoked' });
    expect(client.messages.map((m) => [m.event, m.data.keyId])).toEqual([['key.revoked', key.keyId]]);
  });

  it('pings every 15 s of clock time', async () => {
    const agent = await agentFixture(svc.url);
    const client = opened(await ws(svc.url, agent.publicId, { secret: (await agent.newKey()).secret }));
    await clock.advance(7_000);
    await clock.advance(7_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(client.pings).toBe(0);
    await clock.advance(1_000);
    await until(() => client.pings === 1, 'ping');
    expect(client.closed).toBeUndefined();
  });

  it('refuses the handshake with HTTP 401/404 and the REST envelope', async () => {
    const agent = await agentFixture(svc.url);
    const other = await agentFixture(svc.url, agent.operator);
    const { secret } = await agent.newKey();
    const otherKey = await other.newKey();
    const unauthorized = { ok: false, status: 401, body: { statusCode: 401, message: 'Unauthorized', error: 'Unauthorized' } };
    const notFound = { ok: false, status: 404, body: { statusCode: 404, message: 'Agent not found', error: 'Not Found' } };

    expect(await ws(svc.url, 'pub_doesNotExist0000000000', { secret })).toMatchObject(notFound);
    expect(await ws(svc.url, agent.publicId, { secret: `mcpk_${'x'.repeat(43)}` })).toMatchObject(unauthorized);
    expect(await ws(svc.url, agent.publicId, { secret: `mcpk_${'x'.repeat(43)}`, viaProtocol: true })).toMatchObject(unauthorized);
    expect(await ws(svc.url, agent.publicId)).toMatchObject(unauthorized);
    expect(await ws(svc.url, agent.publicId, { secret: otherKey.secret })).toMatchObject(notFound);
    expect(await ws(svc.url, agent.publicId, { secret, query: '?lastEventId=-1' })).toMatchObject({ ok: false, status: 400 });
    // No other upgrade handler is attached, so an unknown path is answered rather than left hanging.
    expect(await ws(svc.url, agent.publicId, { secret, path: '/elsewhere' })).toMatchObject({ ok: false, status: 404 });
  });
});

describe('event streams at shutdown (e2e)', () => {
  it('closes WebSockets with 1001 and ends SSE streams, and stop() does not hang on them', async () => {
    const svc = await startTestService();
    const agent = await agentFixture(svc.url);
    const { secret } = await agent.newKey();
    const client = opened(await openWs(svc.url, agent.publicId, { secret }));
    const stream = await openSse(svc.url, agent.publicId, { secret });
    await svc.stop();
    await until(() => client.closed !== undefined && stream.ended, 'both streams to end');
    expect(client.closed).toEqual({ code: 1001, reason: 'Server shutting down' });
    expect(stream.comments()).toContain('stream closed: shutdown');
  });
});
