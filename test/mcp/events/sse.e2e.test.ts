import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../support/manual-clock.adapter.js';
import { Client, scrapeMetrics, startTestService, type TestService } from '../../support/test-service.js';
import { bearer, rawRpc } from '../../support/mcp-fixtures.js';
import { agentFixture, openSse, until, type SseStream } from '../../support/events-harness.js';

describe('GET /mcp/:publicId/events/sse (e2e)', () => {
  const clock = new ManualClock(Date.now());
  let svc: TestService;
  const open: SseStream[] = [];
  const sse = async (...args: Parameters<typeof openSse>) => {
    const stream = await openSse(...args);
    open.push(stream);
    return stream;
  };
  beforeAll(async () => {
    svc = await startTestService({ clock });
  });
  afterEach(() => {
    for (const stream of open.splice(0)) stream.close();
  });
  afterAll(() => svc.stop());

  it('streams agent events in order with increasing ids, in the event frame shape and headers', async () => {
    const agent = await agentFixture(svc.url);
    const { secret } = await agent.newKey();
    const stream = await sse(svc.url, agent.publicId, { secret });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream.headers.get('x-accel-buffering')).toBe('no');
    expect(stream.headers.get('cache-control')).toContain('no-cache');

    await agent.toggle(3);
    await until(() => stream.events().length === 6, 'six events');
    const events = stream.events();
    expect(events.map((e) => e.event)).toEqual(Array(6).fill('agent.updated'));
    expect(events.map((e) => e.data.state)).toEqual(['paused', 'active', 'paused', 'active', 'paused', 'active']);
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => events[0]!.id + i));
    expect(events[0]!.data).toEqual({
      type: 'agent.updated',
      agentId: agent.agentId,
      at: new Date(clock.now()).toISOString(),
      state: 'paused',
      name: expect.any(String),
      tradingEnabled: false,
    });
  });

  it('a reconnect with Last-Event-ID gets exactly the missed events, then live ones, no gap, no duplicate', async () => {
    const agent = await agentFixture(svc.url);
    const { secret } = await agent.newKey();
    const first = await sse(svc.url, agent.publicId, { secret });
    await agent.toggle(1);
    await until(() => first.events().length === 2, 'two events');
    const lastId = first.events()[1]!.id;
    first.close();
    await until(() => first.ended, 'client disconnect');

    await agent.toggle(2); // four events while away
    const again = await sse(svc.url, agent.publicId, { secret, headers: { 'last-event-id': String(lastId) } });
    await until(() => again.events().length === 4, 'replayed events');
    await agent.toggle(1);
    await until(() => again.events().length === 6, 'live events after the replay');
    expect(again.events().map((e) => e.id)).toEqual([1, 2, 3, 4, 5, 6].map((n) => lastId + n));

    // The query form (for clients that cannot set headers) replays the same way.
    const viaQuery = await sse(svc.url, agent.publicId, { secret, query: `?lastEventId=${lastId + 4}` });
    await until(() => viaQuery.events().length === 2, 'replay via query');
    expect(viaQuery.events().map((e) => e.id)).toEqual([lastId + 5, lastId + 6]);
  });

  it('revoking the key ends its stream (after the key.revoked event); other keys keep streaming', async () => {
    const agent = await agentFixture(svc.url);
    const revoked = await agent.newKey();
    const kept = await agent.newKey();
    const doomed = await sse(svc.url, agent.publicId, { secret: revoked.secret });
    const survivor = await sse(svc.url, agent.publicId, { secret: kept.secret });

    expect((await agent.operator.delete(`/api/nest/agents/${agent.agentId}/keys/${revoked.keyId}`)).status).toBe(200);
    await until(() => doomed.ended, 'the revoked stream to end');
    expect(doomed.events().map((e) => [e.event, e.data.keyId])).toEqual([['key.revoked', revoked.keyId]]);
    expect(doomed.comments()).toContain('stream closed: revoked');

    await agent.toggle(1);
    await until(() => survivor.events().length === 3, 'the other stream to go on');
    expect(survivor.events().map((e) => e.event)).toEqual(['key.revoked', 'agent.updated', 'agent.updated']);
    expect(survivor.ended).toBe(false);
    expect((await sse(svc.url, agent.publicId, { secret: revoked.secret })).status).toBe(401);
  });

  it('writes a keep-alive comment every 15 s of clock time', async () => {
    const agent = await agentFixture(svc.url);
    const stream = await sse(svc.url, agent.publicId, { secret: (await agent.newKey()).secret });
    await clock.advance(7_000);
    await clock.advance(7_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stream.comments()).toEqual([]);
    await clock.advance(1_000);
    await until(() => stream.comments().includes('keep-alive'), 'keep-alive');
    expect(stream.ended).toBe(false);
  });

  it('keeps ids growing across a restart of the embedded service: a reconnect from before it gets what follows', async () => {
    const first = await startTestService();
    let second: TestService | undefined;
    try {
      const agent = await agentFixture(first.url);
      const { secret } = await agent.newKey();
      const before = await sse(first.url, agent.publicId, { secret });
      await agent.toggle(1);
      await until(() => before.events().length === 2, 'two events');
      const lastId = before.events()[1]!.id!;
      before.close();
      await first.service.stop(); // the data stays: the next run starts on it

      second = await startTestService({ dataDir: first.dataDir });
      const operator = Object.assign(new Client(second.url), { bearer: agent.operator.bearer, csrf: agent.operator.csrf });
      const after = await sse(second.url, agent.publicId, { secret, headers: { 'last-event-id': String(lastId) } });
      expect((await operator.post(`/api/nest/agents/${agent.agentId}/pause`)).status).toBe(200);
      await until(() => after.events().length === 1, 'the event after the restart');
      expect(after.events()[0]!.id).toBeGreaterThan(lastId);
      expect(after.events()[0]!.data).toMatchObject({ type: 'agent.updated', state: 'paused' });
    } finally {
      await (second ?? first).stop();
    }
  });

  it("counts opening a stream on the key's budget: X-RateLimit-* headers, and 429 once it is spent", async () => {
    const agent = await agentFixture(svc.url);
    const { secret } = await agent.newKey();
    const first = await sse(svc.url, agent.publicId, { secret });
    expect(first.headers.get('x-ratelimit-limit')).toBe('120');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('119');
    // The budget is the key's, shared with its MCP calls: spend the rest on pings.
    for (let i = 0; i < 119; i++)
      expect((await rawRpc(svc.url, agent.publicId, { jsonrpc: '2.0', id: i, method: 'ping' }, bearer(secret))).status).toBe(200);
    const refused = await sse(svc.url, agent.publicId, { secret });
    expect(refused).toMatchObject({ status: 429, body: { statusCode: 429, message: 'Too Many Requests', error: 'Too Many Requests' } });
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('refuses bad requests with the REST envelope before streaming', async () => {
    const agent = await agentFixture(svc.url);
    const other = await agentFixture(svc.url, agent.operator);
    const { secret } = await agent.newKey();
    const otherKey = await other.newKey();

    expect(await sse(svc.url, 'pub_doesNotExist0000000000', { secret })).toMatchObject({
      status: 404,
      body: { statusCode: 404, message: 'Agent not found', error: 'Not Found' },
    });
    const unauthorized = { status: 401, body: { statusCode: 401, message: 'Unauthorized', error: 'Unauthorized' } };
    expect(await sse(svc.url, agent.publicId, { secret: `mcpk_${'x'.repeat(43)}` })).toMatchObject(unauthorized);
    expect(await sse(svc.url, agent.publicId)).toMatchObject(unauthorized);
    // Another user's session: the agent is not theirs, as another agent's key.
    const stranger = await agentFixture(svc.url);
    expect(await sse(svc.url, agent.publicId, { secret: stranger.operator.bearer! })).toMatchObject({
      status: 404,
      body: { message: 'Agent not found' },
    });
    expect(await sse(svc.url, agent.publicId, { secret: otherKey.secret })).toMatchObject({
      status: 404,
      body: { message: 'Agent not found' },
    });
    expect(await sse(svc.url, agent.publicId, { secret, headers: { 'last-event-id': 'abc' } })).toMatchObject({ status: 400 });
  });

  it("the owner's session reads its agent's events (the console), and the stream ends at the next check after sign-out", async () => {
    const agent = await agentFixture(svc.url);
    const stream = await sse(svc.url, agent.publicId, { secret: agent.operator.bearer! });
    expect(stream.status).toBe(200);
    // One budget with the session's REST requests, at the session's limit: an operator who made
    // more requests this minute than a read key may still opens the stream.
    expect(stream.headers.get('x-ratelimit-limit')).toBe('300');
    for (let i = 0; i < 130; i++) expect((await agent.operator.get('/api/nest/agents')).status).toBe(200);
    const second = await sse(svc.url, agent.publicId, { secret: agent.operator.bearer! });
    expect(second.status).toBe(200);
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBeLessThanOrEqual(300 - 132);
    second.close();
    await agent.toggle(1);
    await until(() => stream.events().length === 2, 'two events');
    expect(stream.events().map((e) => e.data.state)).toEqual(['paused', 'active']);
    // Tools still refuse a session: only the event streams take it.
    expect(
      (await rawRpc(svc.url, agent.publicId, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, bearer(agent.operator.bearer!))).status,
    ).toBe(403);

    expect((await agent.operator.post('/api/nest/auth/logout')).status).toBeLessThan(300);
    await clock.advance(61_000);
    await until(() => stream.ended, 'the stream ended after sign-out');
  });

  it('counts open streams and forgets them on disconnect', async () => {
    const agent = await agentFixture(svc.url);
    const stream = await sse(svc.url, agent.publicId, { secret: (await agent.newKey()).secret });
    const gauge = async () => Number(/^mcp_event_streams_open (\d+)$/m.exec(await scrapeMetrics(svc))?.[1]);
    expect(await gauge()).toBe(1);
    stream.close();
    await until(() => stream.ended, 'disconnect');
    await expect.poll(gauge).toBe(0);
  });
});

describe('SSE stream end at credential expiry (e2e)', () => {
  it('ends the stream when the key expires', async () => {
    const clock = new ManualClock(Date.now());
    const svc = await startTestService({ clock });
    try {
      const agent = await agentFixture(svc.url);
      const stream = await openSse(svc.url, agent.publicId, { secret: (await agent.newKey()).secret });
      // Skip to just before the 90-day expiry without firing three months of keep-alives.
      clock.jumpTo(clock.now() + 90 * 24 * 60 * 60 * 1000 - 1_000);
      await clock.advance(500);
      expect(stream.ended).toBe(false);
      await clock.advance(1_000);
      await until(() => stream.ended, 'the stream to end at expiry');
      expect(stream.comments()).toContain('stream closed: expired');
      // Let the scheduler deliver the key's own expiry job before stopping.
      for (let i = 0; i < 6; i++) {
        await clock.advance(1_000);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      await svc.stop();
    }
  });
});
