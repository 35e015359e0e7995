/**
 * The SDK's event streams against the real service: an SSE subscription that survives a
 * restart of the service (it reconnects with backoff while the port is closed and resumes
 * with Last-Event-ID: no event lost, none twice), the WebSocket stream, and a revoked key
 * ending the stream with auth_error.
 */
import type { AddressInfo } from 'node:net';
import { WebSocket } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentClient, type AgentEvent, type EventSubscription } from '../../sdk/src/index.js';
import { agentFixture, until } from '../support/events-harness.js';
import { Client, startTestService, type TestService } from '../support/test-service.js';
import { collectEvents } from './sdk-fakes.js';

const running: TestService[] = [];
const subscriptions: EventSubscription[] = [];
afterEach(async () => {
  for (const subscription of subscriptions.splice(0)) subscription.close();
  for (const svc of running.splice(0)) await svc.stop();
});

/** Collects a subscription's events in the background, closed after the test. */
function collect(subscription: EventSubscription) {
  subscriptions.push(subscription);
  return collectEvents(subscription);
}

/** Waits until the subscription is connected and its replay (from id 0: the agent's creation, its keys) has arrived; answers how many that was. */
async function settled(subscription: EventSubscription, events: AgentEvent[]): Promise<number> {
  await until(() => subscription.connections > 0, 'the stream to open');
  let seen = -1;
  while (seen !== events.length) {
    seen = events.length;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  return seen;
}

describe('SDK event streams (e2e)', () => {
  it('an SSE subscription resumes after the service restarts: every event once, in order', async () => {
    const first = await startTestService();
    const port = String((first.service.server.address() as AddressInfo).port);
    const agent = await agentFixture(first.url);
    const { secret } = await agent.newKey();
    const reconnects: number[] = [];
    const sdk = new AgentClient({ baseUrl: first.url, publicId: agent.publicId, apiKey: secret });
    const subscription = sdk.subscribe({
      lastEventId: 0,
      reconnect: { baseDelayMs: 50, maxDelayMs: 200 },
      onReconnect: ({ delayMs }) => reconnects.push(delayMs),
    });
    const { events } = collect(subscription);
    const before = await settled(subscription, events);
    await agent.toggle(1);
    await until(() => events.length === before + 2, 'two events before the restart');

    await first.service.stop(); // its data stays for the next run
    const second = await startTestService({ dataDir: first.dataDir, env: { PORT: port } });
    running.push(second);
    const operator = Object.assign(new Client(second.url), { bearer: agent.operator.bearer, csrf: agent.operator.csrf });
    // The subscription reconnects by itself; events published after the restart reach it.
    await until(() => reconnects.length > 0, 'a reconnect');
    // The first service's keep-alive sockets died with it and this process's fetch may still hold
    // one: a read first (retried), so the writes below go out on a live connection.
    for (let attempt = 1; ; attempt++) {
      try {
        await fetch(`${second.url}/healthz`);
        break;
      } catch (error) {
        if (attempt === 3) throw error;
      }
    }
    for (const step of ['pause', 'resume']) expect((await operator.post(`/api/nest/agents/${agent.agentId}/${step}`)).status).toBe(200);
    await until(() => events.length === before + 4, 'the events after the restart', 10_000);
    expect(events.slice(before).map((e) => e.data.state)).toEqual(['paused', 'active', 'paused', 'active']);
    const ids = events.map((e) => e.id);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(subscription.connections).toBe(2);
  });

  it('an SSE subscription opened with a lastEventId gets exactly what followed it', async () => {
    const svc = await startTestService();
    running.push(svc);
    const agent = await agentFixture(svc.url);
    const { secret } = await agent.newKey();
    await agent.toggle(2);
    const sdk = new AgentClient({ baseUrl: svc.url, publicId: agent.publicId, apiKey: secret });
    const whole = sdk.subscribe({ lastEventId: 0 });
    const all = collect(whole);
    const count = await settled(whole, all.events);
    expect(
      all.events
        .filter((e) => e.event === 'agent.updated')
        .slice(-4)
        .map((e) => e.data.state),
    ).toEqual(['paused', 'active', 'paused', 'active']);
    const tail = collect(sdk.subscribe({ lastEventId: all.events[count - 3]!.id }));
    await until(() => tail.events.length === 2, 'the tail');
    expect(tail.events.map((e) => e.id)).toEqual(all.events.slice(count - 2).map((e) => e.id));
  });

  it('the WebSocket stream (ws on Node 20, given to subscribeWebSocket) delivers the same events; a revoked key ends a stream with auth_error', async () => {
    const svc = await startTestService();
    running.push(svc);
    const agent = await agentFixture(svc.url);
    const key = await agent.newKey();
    const sdk = new AgentClient({ baseUrl: svc.url, publicId: agent.publicId, apiKey: key.secret });
    // Where a Node 20 user passes it first: to the subscription, the `ws` package's class as it is (no cast).
    const ws = sdk.subscribeWebSocket({ lastEventId: 0, WebSocket });
    const sse = sdk.subscribe({ lastEventId: 0 });
    const viaWs = collect(ws);
    const viaSse = collect(sse);
    const before = Math.max(await settled(ws, viaWs.events), await settled(sse, viaSse.events));
    await agent.toggle(1);
    await until(() => viaWs.events.length === before + 2 && viaSse.events.length === before + 2, 'events on both');
    expect(viaWs.events).toEqual(viaSse.events);
    expect(viaWs.events.slice(-2).map((e) => e.data.state)).toEqual(['paused', 'active']);

    expect((await agent.operator.delete(`/api/nest/agents/${agent.agentId}/keys/${key.keyId}`)).status).toBe(200);
    await until(() => viaSse.state.ended && viaWs.state.ended, 'both streams to end', 10_000);
    expect(viaSse.state.error).toMatchObject({ code: 'auth_error', status: 401 });
    expect(viaWs.state.error).toMatchObject({ code: 'auth_error', status: 401 });
  });
});
