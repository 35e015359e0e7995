/**
 * The cap of open event streams per credential (config `MCP_EVENT_STREAMS_PER_CREDENTIAL`),
 * over SSE and WebSocket alike: one key cannot hold every stream of the service.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentFixture, openSse, openWs, until } from '../../support/events-harness.js';
import { startTestService, type TestService } from '../../support/test-service.js';

describe('event streams per credential (e2e)', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ env: { MCP_EVENT_STREAMS_PER_CREDENTIAL: '2' } });
  });
  afterAll(() => svc.stop());

  it('refuses a credential its third stream with 429 on either transport, leaves other keys alone, and frees a place when one ends', async () => {
    const agent = await agentFixture(svc.url);
    const { secret } = await agent.newKey();
    const first = await openSse(svc.url, agent.publicId, { secret });
    const second = await openWs(svc.url, agent.publicId, { secret });
    expect(first.status).toBe(200);
    if (!second.ok) throw new Error(`websocket refused: ${second.status}`);

    const third = await openSse(svc.url, agent.publicId, { secret });
    expect(third.status).toBe(429);
    expect(third.body).toEqual({ statusCode: 429, message: 'Too many open event streams', error: 'Too Many Requests' });
    expect(third.headers.get('retry-after')).toBe('30');
    expect(third.headers.get('x-ratelimit-limit')).toBeTruthy();
    const thirdWs = await openWs(svc.url, agent.publicId, { secret });
    expect(thirdWs).toMatchObject({ ok: false, status: 429, body: { message: 'Too many open event streams' } });

    // Another key of the same agent has places of its own.
    const other = await openSse(svc.url, agent.publicId, { secret: (await agent.newKey()).secret });
    expect(other.status).toBe(200);

    // One of the first key's streams ends: its place is free again.
    second.client.ws.close();
    await until(() => second.client.closed !== undefined, 'the websocket closed');
    let again = await openSse(svc.url, agent.publicId, { secret });
    for (let tries = 0; again.status === 429 && tries < 20; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      again = await openSse(svc.url, agent.publicId, { secret });
    }
    expect(again.status).toBe(200);
    for (const stream of [first, other, again]) stream.close();
  });
});
