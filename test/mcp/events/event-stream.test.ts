import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { InProcessEventBus } from '../../../adapters/event-bus/in-process-event-bus.adapter.js';
import { ManualClock } from '../../support/manual-clock.adapter.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import type { McpAccess } from '../../../src/mcp/mcp-access.js';
import type { StreamEndReason, StreamEvent } from '../../../src/mcp/events/event-frame.js';
import type { EventSink, EventStreamDeps } from '../../../src/mcp/events/event-stream.js';
import { EventStreamRegistry } from '../../../src/mcp/events/event-stream.registry.js';
import { InProcessRateLimiter } from '../../../adapters/rate-limit/in-process-rate-limiter.adapter.js';

const DAY = 24 * 60 * 60 * 1000;

/** A key grant for agent `a1`, as the resolver would return it. */
function grant(clock: ManualClock, expiresIn = 90 * DAY): McpAccess {
  return {
    principal: { type: 'agent-key', keyId: 'key_1', scope: 'read', ownerId: 'a1', prefix: 'mcpk_x', expiresAt: clock.now() + expiresIn },
    subject: { type: 'agent', id: 'a1' },
    scope: 'read',
    viewer: { kind: 'agent', scope: 'read', disabledFamilies: [] },
    userId: 'u1',
    granularErrors: false,
  };
}

function recordingSink(buffered = () => 0) {
  const sink = { events: [] as StreamEvent[], heartbeats: 0, ended: [] as StreamEndReason[] };
  const port: EventSink = {
    event: (event) => void sink.events.push(event),
    heartbeat: () => {
      sink.heartbeats += 1;
    },
    end: (reason) => void sink.ended.push(reason),
    bufferedBytes: buffered,
  };
  return { sink, port };
}

function setup(resolve: EventStreamDeps['access']['resolve'], overrides: Partial<EventStreamDeps> = {}) {
  const clock = new ManualClock();
  const bus = new InProcessEventBus({ clock });
  const limiter = new InProcessRateLimiter({ clock });
  const registry = new EventStreamRegistry({ access: { resolve }, bus, clock, limiter, logger: pino({ level: 'silent' }), ...overrides });
  return { clock, bus, registry };
}

describe('EventStream', () => {
  it('a revocation published while the credential is being resolved ends the stream at start', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { clock, bus, registry } = setup(async () => {
      await gate;
      return grant(clock);
    });
    const opening = registry.open('pub_a', 'Bearer mcpk_x');
    await new Promise((resolve) => setImmediate(resolve));
    await bus.publish('auth', { type: 'key.revoked', data: { keyId: 'key_1' } });
    release();
    const { stream } = await opening;
    const { sink, port } = recordingSink();
    await stream.start(undefined, port);
    expect(sink.ended).toEqual(['revoked']);
    expect(registry.openStreams()).toBe(0);
  });

  it('ends with unauthorized / not-found when revalidation fails that way, and survives an outage', async () => {
    for (const [failure, expected] of [
      [AppError.unauthorized(), ['unauthorized']],
      [AppError.notFound('Agent not found'), ['not-found']],
      [new AppError('DEPENDENCY_UNAVAILABLE', 'down'), []],
    ] as const) {
      let calls = 0;
      const { clock, registry } = setup(async () => {
        if (calls++ > 0) throw failure;
        return grant(clock);
      });
      const { sink, port } = recordingSink();
      await (await registry.open('pub_a', 'Bearer mcpk_x')).stream.start(undefined, port);
      await clock.advance(60_000);
      await new Promise((resolve) => setImmediate(resolve));
      expect(sink.ended).toEqual(expected);
    }
  });

  it('arms an expiry beyond the 24.8-day timer limit in hops and ends exactly at expiry', async () => {
    const { clock, registry } = setup(async () => grant(clock, 30 * DAY), { heartbeatMs: 365 * DAY, revalidateMs: 365 * DAY });
    const { sink, port } = recordingSink();
    await (await registry.open('pub_a', 'Bearer mcpk_x')).stream.start(undefined, port);
    await clock.advance(30 * DAY - 1);
    expect(sink.ended).toEqual([]);
    await clock.advance(1);
    expect(sink.ended).toEqual(['expired']);
  });

  it('cuts off a consumer that stops reading, and delivers nothing after a disconnect', async () => {
    let backlog = 0;
    const { clock, bus, registry } = setup(async () => grant(clock), { maxBufferedBytes: 100 });
    const slow = recordingSink(() => backlog);
    await (await registry.open('pub_a', 'Bearer mcpk_x')).stream.start(undefined, slow.port);
    await bus.publish('agent:a1', { type: 'agent.updated', data: { state: 'paused' } });
    backlog = 101;
    await bus.publish('agent:a1', { type: 'agent.updated', data: { state: 'active' } });
    expect(slow.sink.events).toHaveLength(2);
    expect(slow.sink.ended).toEqual(['slow-consumer']);

    const gone = recordingSink();
    const { stream } = await registry.open('pub_a', 'Bearer mcpk_x');
    await stream.start(0, gone.port);
    expect(gone.sink.events.map((e) => e.id)).toEqual([1, 2]);
    await stream.close('disconnected');
    await bus.publish('agent:a1', { type: 'agent.updated', data: {} });
    expect(gone.sink.events).toHaveLength(2);
    expect(gone.sink.ended).toEqual([]);
    expect(registry.openStreams()).toBe(0);
  });
});
