/**
 * The HTTP server's limits seen from raw sockets: an idle or trickling client
 * is cut off in seconds, idle keep-alive connections close, connections past the cap are
 * refused while open ones keep working, and event streams (SSE, WebSocket) outlive the
 * request timeout. Every answer carries the security headers.
 */
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentFixture, openSse, openWs, until } from '../support/events-harness.js';
import { rawRpc } from '../support/mcp-fixtures.js';
import { startTestService, type TestService } from '../support/test-service.js';

interface RawConnection {
  socket: Socket;
  /** Everything the server sent so far. */
  received(): string;
  /** Resolves with the milliseconds from connect to close. */
  closed: Promise<number>;
}

/** A raw connection to `url`, from `localAddress` when given (127.0.0.2 is another client on loopback). */
async function open(url: string, localAddress?: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  const socket = connect({ port: Number(port), host: hostname, ...(localAddress ? { localAddress } : {}) });
  const started = Date.now();
  let text = '';
  socket.on('data', (chunk) => (text += chunk.toString()));
  socket.on('error', () => undefined); // a reset is one way of being closed
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - started)));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return { socket, received: () => text, closed };
}

/** Writes `chunks` one by one, `everyMs` apart, while the socket stays writable. */
async function trickle(socket: Socket, chunks: string[], everyMs: number): Promise<void> {
  for (const chunk of chunks) {
    if (socket.destroyed || socket.writableEnded) return;
    socket.write(chunk);
    await sleep(everyMs);
  }
}

describe('HTTP server limits with small settings', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({
      env: { HTTP_HEADERS_TIMEOUT_MS: '1000', HTTP_REQUEST_TIMEOUT_MS: '2000', HTTP_KEEP_ALIVE_TIMEOUT_MS: '500' },
    });
  });
  afterAll(() => svc.stop());

  it('closes a connection that sends nothing within seconds', async () => {
    const idle = await open(svc.url);
    expect(await idle.closed).toBeLessThan(4_000);
  });

  it('answers 408 to headers that trickle in past the headers timeout', async () => {
    const slow = await open(svc.url);
    void trickle(
      slow.socket,
      ['GET /healthz HTTP/1.1\r\n', 'Host: x\r\n', ...Array.from({ length: 30 }, (_, i) => `X-Slow-${i}: 1\r\n`)],
      200,
    );
    expect(await slow.closed).toBeLessThan(4_000);
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408/);
  });

  it('answers 408 to a body that trickles in past the request timeout, on REST and MCP alike', async () => {
    for (const path of ['/api/nest/auth/verify', '/mcp/some-agent']) {
      const slow = await open(svc.url);
      const head = `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`;
      void trickle(slow.socket, [head, ...Array.from({ length: 50 }, () => ' ')], 200);
      expect(await slow.closed).toBeLessThan(5_000);
      expect(slow.received()).toMatch(/^HTTP\/1\.1 408/);
    }
  });

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    const conn = await open(svc.url);
    conn.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await until(() => conn.received().includes('{"status":"ok"}'), 'the health answer');
    const answeredAt = Date.now();
    await conn.closed;
    // 500 ms configured, to which Node 20 adds a second of grace; its default would be 5 + 1 s.
    expect(Date.now() - answeredAt).toBeLessThan(3_000);
  });

  it('keeps SSE and WebSocket streams open and delivering past the request timeout', async () => {
    const fixture = await agentFixture(svc.url);
    const { secret } = await fixture.newKey();
    const sse = await openSse(svc.url, fixture.publicId, { secret });
    const ws = await openWs(svc.url, fixture.publicId, { secret });
    expect(sse.status).toBe(200);
    if (!ws.ok) throw new Error(`websocket refused: ${ws.status}`);
    try {
      await sleep(4_500); // past the request timeout (2 s) and its checks
      expect(sse.ended).toBe(false);
      expect(ws.client.closed).toBeUndefined();
      await fixture.toggle(1);
      await until(() => sse.events().length >= 2 && ws.client.messages.length >= 2, 'events on both streams');
    } finally {
      sse.close();
      ws.client.ws.close();
    }
  }, 20_000);

  it('puts the security headers on every answer: REST, errors, 404s, MCP', async () => {
    const answers = [
      await fetch(`${svc.url}/healthz`),
      await fetch(`${svc.url}/api/nest/auth/csrf`),
      await fetch(`${svc.url}/api/nest/auth/verify`, { method: 'POST' }),
      await fetch(`${svc.url}/no/such/route`),
      await fetch(`${svc.url}/mcp/some-agent`),
    ];
    const mcp = await rawRpc(svc.url, 'some-agent', { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect([...answers.map((a) => a.status), mcp.status]).toEqual([200, 200, 401, 404, 405, 401]);
    for (const headers of [...answers.map((a) => a.headers), mcp.headers]) {
      expect(headers.get('x-content-type-options')).toBe('nosniff');
      expect(headers.get('x-frame-options')).toBe('DENY');
      expect(headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    }
    // The docs page keeps its own policy, which also forbids framing.
    const docs = await fetch(`${svc.url}/api/nest/docs`);
    expect(docs.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(docs.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });
});

describe('HTTP connection cap', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ env: { HTTP_MAX_CONNECTIONS: '10' } });
  });
  afterAll(() => svc.stop());

  it('refuses connections past the cap while the open ones keep working', async () => {
    const held = await Promise.all(Array.from({ length: 10 }, () => open(svc.url)));
    await sleep(100); // let the server count them
    const extra = await open(svc.url).catch(() => undefined);
    if (extra) {
      extra.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      await extra.closed;
      expect(extra.received()).toBe('');
    }
    const first = held[0]!;
    first.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await until(() => first.received().includes('{"status":"ok"}'), 'an answer on a held connection');

    // One closed, one more may come in.
    held[1]!.socket.destroy();
    await held[1]!.closed;
    await sleep(100);
    const next = await open(svc.url);
    next.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await next.closed;
    expect(next.received()).toMatch(/^HTTP\/1\.1 200/);
    for (const conn of held) conn.socket.destroy();
  });
});

describe('HTTP connection cap per client address', () => {
  let svc: TestService;
  beforeAll(async () => {
    // A short keep-alive: the test's own fetch connections must not linger in the count.
    svc = await startTestService({
      env: { HTTP_MAX_CONNECTIONS: '20', HTTP_MAX_CONNECTIONS_PER_IP: '5', HTTP_KEEP_ALIVE_TIMEOUT_MS: '100' },
    });
  });
  afterAll(() => svc.stop());

  it('one address holding its cap (an event stream among them) leaves the service answering another address', async () => {
    const fixture = await agentFixture(svc.url);
    const { secret } = await fixture.newKey();
    await sleep(1_500); // the fixture's keep-alive connections (from 127.0.0.1) close: 100 ms and Node's second of grace
    const stream = await open(svc.url, '127.0.0.1');
    stream.socket.write(`GET /mcp/${fixture.publicId}/events/sse HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secret}\r\n\r\n`);
    await until(() => stream.received().startsWith('HTTP/1.1 200'), 'the event stream open');

    // One client tries to take every connection of the service (more than the global cap of 20).
    const flood = await Promise.all(Array.from({ length: 25 }, () => open(svc.url, '127.0.0.1').catch(() => undefined)));
    await sleep(300);
    const open127 = flood.filter((conn) => conn && !conn.socket.destroyed && !conn.socket.readableEnded);
    // Its cap is 5 with the stream: four more stay, the rest were closed at once, without a byte.
    expect(open127).toHaveLength(4);
    for (const conn of flood) if (conn && !open127.includes(conn)) expect(conn.received()).toBe('');

    // Another client is served meanwhile.
    const other = await open(svc.url, '127.0.0.2');
    other.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await other.closed;
    expect(other.received()).toMatch(/^HTTP\/1\.1 200/);

    // A sixth from the full address is closed; the held ones still work.
    const sixth = await open(svc.url, '127.0.0.1').catch(() => undefined);
    if (sixth) {
      sixth.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      await sixth.closed;
      expect(sixth.received()).toBe('');
    }
    open127[0]!.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await until(() => open127[0]!.received().includes('{"status":"ok"}'), 'an answer on a held connection');
    for (const conn of open127) conn?.socket.destroy();
    await sleep(100);
    await fixture.toggle(1);
    await until(() => stream.received().includes('event: agent.updated'), 'an event on the stream held throughout');
    await sleep(1_500); // toggle's keep-alive connection closes

    // The stream ends: its place is free again.
    stream.socket.destroy();
    await stream.closed;
    await sleep(100);
    const next = await open(svc.url, '127.0.0.1');
    next.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await next.closed;
    expect(next.received()).toMatch(/^HTTP\/1\.1 200/);
  }, 20_000);
});

describe('HTTP connection cap per client address behind a trusted proxy', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ env: { HTTP_MAX_CONNECTIONS_PER_IP: '2', TRUST_PROXY: '127.0.0.2' } });
  });
  afterAll(() => svc.stop());

  it("does not count the proxy's connections (it carries many clients), and still counts everyone else's", async () => {
    const proxied = await Promise.all(Array.from({ length: 4 }, () => open(svc.url, '127.0.0.2')));
    const direct = await Promise.all(Array.from({ length: 4 }, () => open(svc.url, '127.0.0.3').catch(() => undefined)));
    await sleep(300);
    expect(proxied.filter((conn) => !conn.socket.destroyed && !conn.socket.readableEnded)).toHaveLength(4);
    expect(direct.filter((conn) => conn && !conn.socket.destroyed && !conn.socket.readableEnded)).toHaveLength(2);
    for (const conn of [...proxied, ...direct]) conn?.socket.destroy();
  });
});

describe('HTTP connection cap per client address with a hop count in TRUST_PROXY', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ env: { HTTP_MAX_CONNECTIONS_PER_IP: '2', TRUST_PROXY: '1' } });
  });
  afterAll(() => svc.stop());

  it('counts every peer: a hop count names no proxy, and must not switch the cap off', async () => {
    const conns = await Promise.all(Array.from({ length: 4 }, () => open(svc.url, '127.0.0.2').catch(() => undefined)));
    await sleep(300);
    expect(conns.filter((conn) => conn && !conn.socket.destroyed && !conn.socket.readableEnded)).toHaveLength(2);
    for (const conn of conns) conn?.socket.destroy();
  });
});
