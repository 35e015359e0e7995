import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { formatSse, parseLastEventId, toStreamEvent } from '../../../src/mcp/events/event-frame.js';
import { authorizationOf } from '../../../src/mcp/events/ws.upgrade.js';

describe('event frames', () => {
  const busEvent = {
    stream: 'agent:a1',
    id: 7,
    at: Date.UTC(2026, 0, 1),
    type: 'key.revoked',
    data: { state: 'revoked', keyId: 'k1', type: 'forged', agentId: 'other' },
  };

  it('puts type, the subject id and an ISO time first; event fields cannot override them', () => {
    expect(toStreamEvent(busEvent, { type: 'agent', id: 'a1' })).toEqual({
      id: 7,
      event: 'key.revoked',
      data: { type: 'key.revoked', agentId: 'a1', at: '2026-01-01T00:00:00.000Z', state: 'revoked', keyId: 'k1' },
    });
    expect(toStreamEvent(busEvent, { type: 'bot', id: 'b1' }).data).toMatchObject({ botId: 'b1' });
  });

  it('names an agent as its owner knows it, never by its actor id `<ownerId>~<agentId>`', () => {
    const at = Date.UTC(2026, 0, 1);
    const subject = { type: 'agent', id: 'usr_u1~alpha' } as const;
    const revoked = toStreamEvent(
      { stream: 'agent:usr_u1~alpha', id: 1, at, type: 'key.revoked', data: { keyId: 'k1', ownerType: 'agent', ownerId: 'usr_u1~alpha' } },
      subject,
    );
    expect(revoked.data).toEqual({
      type: 'key.revoked',
      agentId: 'alpha',
      at: '2026-01-01T00:00:00.000Z',
      keyId: 'k1',
      ownerType: 'agent',
      ownerId: 'alpha',
    });
    // An order event published before the order view named the chosen id, replayed after the upgrade.
    const replayed = toStreamEvent(
      {
        stream: 'agent:usr_u1~alpha',
        id: 2,
        at,
        type: 'order.created',
        data: { order: { order_id: 'ord_1', agentId: 'usr_u1~alpha', status: 'submitting' } },
      },
      subject,
    );
    expect(replayed.data).toEqual({
      type: 'order.created',
      agentId: 'alpha',
      at: '2026-01-01T00:00:00.000Z',
      order: { order_id: 'ord_1', agentId: 'alpha', status: 'submitting' },
    });
    expect(JSON.stringify([revoked, replayed])).not.toContain('~');
    // A bot's key events are unchanged.
    const bot = toStreamEvent(
      { stream: 'bot:b1', id: 3, at, type: 'key.revoked', data: { keyId: 'k2', ownerType: 'bot', ownerId: 'b1' } },
      { type: 'bot', id: 'b1' },
    );
    expect(bot.data).toMatchObject({ botId: 'b1', ownerId: 'b1' });
  });

  it('frames SSE as id, event and one data line', () => {
    const frame = formatSse({ id: 3, event: 'agent.updated', data: { type: 'agent.updated', note: 'a\nb' } });
    expect(frame).toBe('id: 3\nevent: agent.updated\ndata: {"type":"agent.updated","note":"a\\nb"}\n\n');
  });

  it('reads Last-Event-ID from the header first, then the query; refuses non-integers', () => {
    expect(parseLastEventId(undefined, undefined)).toBeUndefined();
    expect(parseLastEventId('', '')).toBeUndefined();
    expect(parseLastEventId(' 12 ', '3')).toBe(12);
    expect(parseLastEventId(undefined, '3')).toBe(3);
    expect(parseLastEventId(undefined, '0')).toBe(0);
    expect(parseLastEventId('1795294000000123', undefined)).toBe(1_795_294_000_000_123); // the embedded bus's microsecond ids
    for (const bad of ['-1', '1.5', 'abc', '9'.repeat(16), '1'.repeat(17)])
      expect(() => parseLastEventId(bad, undefined)).toThrow(/non-negative integer/);
  });

  it('takes the WebSocket credential from Authorization, else from `bearer, <token>` subprotocols', () => {
    const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
    expect(authorizationOf(req({ authorization: 'Bearer a', 'sec-websocket-protocol': 'bearer, b' }))).toBe('Bearer a');
    expect(authorizationOf(req({ 'sec-websocket-protocol': 'bearer, mcpk_b' }))).toBe('Bearer mcpk_b');
    expect(authorizationOf(req({ 'sec-websocket-protocol': 'graphql-ws' }))).toBeUndefined();
    expect(authorizationOf(req({ 'sec-websocket-protocol': 'bearer' }))).toBeUndefined();
    expect(authorizationOf(req({}))).toBeUndefined();
  });
});
