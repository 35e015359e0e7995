/**
 * `GET /mcp/:publicId/events/ws`: the MCP event stream over WebSocket, on the service's own
 * HTTP server (its `upgrade` event). Same access, replay and revocation rules as SSE (shared
 * in `event-stream.ts`); this file does the handshake, framing and close codes.
 *
 * - Auth: `Authorization: Bearer <token>`, or, for browsers (which cannot set headers on a
 *   WebSocket), `Sec-WebSocket-Protocol: bearer, <token>`; the server then selects `bearer`
 *   and never echoes the token. No token in the query string: URLs end up in logs.
 * - Replay: `?lastEventId=<id>` (or a `Last-Event-ID` header).
 * - A refused handshake is a plain HTTP response with the REST envelope (401, 404, 400, 503).
 * - Messages are JSON `{id, event, data}`; a protocol ping every 15 s, a peer that missed
 *   the previous pong is dropped.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { AppError } from '../../../kernel/errors/app-error.js';
import { reasonPhrase, toErrorResponse } from '../../surface-common/error-envelope.js';
import { toAppError } from '../../surface-common/error-mapping.js';
import { SECURITY_HEADERS } from '../../surface-common/security-headers.js';
import { failureLevel } from '../../observability/failure-level.js';
import type { Logger } from '../../observability/logger.js';
import { parseLastEventId, type StreamEndReason } from './event-frame.js';
import type { EventSink } from './event-stream.js';
import type { EventStreamRegistry } from './event-stream.registry.js';

const WS_PATH = /^\/mcp\/([^/]+)\/events\/ws\/?$/;
/** Subprotocol that announces a token as the next offered "protocol". */
const BEARER_SUBPROTOCOL = 'bearer';

/**
 * Close codes. 4401/4404 mirror the HTTP statuses a reconnect would get (as graphql-ws does
 * with 4401/4403): the client must re-authenticate, a blind reconnect is pointless. 1008
 * (policy violation) would not tell a revoked credential from any other policy problem.
 */
const WS_CLOSE: Record<StreamEndReason, { code: number; reason: string }> = {
  revoked: { code: 4401, reason: 'Credential revoked' },
  expired: { code: 4401, reason: 'Credential expired' },
  unauthorized: { code: 4401, reason: 'Unauthorized' },
  'not-found': { code: 4404, reason: 'Agent not found' },
  'slow-consumer': { code: 1013, reason: 'Too far behind; reconnect with lastEventId' },
  shutdown: { code: 1001, reason: 'Server shutting down' },
  error: { code: 1011, reason: 'Internal error' },
};

/** How long shutdown waits for close handshakes before dropping sockets. */
const SHUTDOWN_GRACE_MS = 2_000;

export interface EventsWebSocket {
  /** Waits for (or forces) the close of every WebSocket; call after the registry ended the streams. */
  close(): Promise<void>;
}

/** Handles upgrades of the events path on `server`; other paths are left to other handlers. */
export function attachEventsWebSocket(server: Server, streams: EventStreamRegistry, logger: Logger): EventsWebSocket {
  // We accept no client messages, so a tiny frame limit; no compression for small JSON frames.
  const wss = new WebSocketServer({ noServer: true, maxPayload: 4096, perMessageDeflate: false, handleProtocols: pickProtocol });
  const pending = new Set<Duplex>();
  // The 101 answer carries the X-RateLimit-* headers of the request that opened the stream.
  const handshakeHeaders = new WeakMap<IncomingMessage, Record<string, string>>();
  wss.on('headers', (headers: string[], req: IncomingMessage) => {
    for (const [name, value] of Object.entries(handshakeHeaders.get(req) ?? {})) headers.push(`${name}: ${value}`);
  });

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const match = WS_PATH.exec(new URL(req.url ?? '/', 'http://localhost').pathname);
    if (!match) {
      // Nobody else listens, so nobody else will answer: do not leave the socket hanging.
      if (server.listenerCount('upgrade') === 1) refuse(socket, AppError.notFound(`Cannot GET ${pathOf(req)}`));
      return;
    }
    void accept(req, socket, head, match[1]!);
  });

  async function accept(req: IncomingMessage, socket: Duplex, head: Buffer, publicId: string): Promise<void> {
    // Node detached its own error handler on upgrade; a reset while we authenticate must not crash us.
    socket.on('error', () => socket.destroy());
    pending.add(socket);
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const afterId = parseLastEventId(req.headers['last-event-id'], url.searchParams.get('lastEventId') ?? undefined);
      const opened = await streams.open(publicId, authorizationOf(req), req.headers.origin).catch((error: unknown) => {
        refuse(socket, toAppError(error) ?? AppError.internal(), logger, error);
        return undefined;
      });
      if (!opened) return;
      const { stream } = opened;
      handshakeHeaders.set(req, opened.rateHeaders);
      // One cleanup path for every way the socket goes: client close, failed handshake, terminate.
      socket.once('close', () => void stream.close('disconnected'));
      if (socket.destroyed) return void stream.close('disconnected');
      wss.handleUpgrade(req, socket, head, (ws) => void stream.start(afterId, wsSink(ws)));
    } catch (error) {
      refuse(socket, toAppError(error) ?? AppError.internal(), logger, error);
    } finally {
      pending.delete(socket);
    }
  }

  return {
    close: async () => {
      for (const socket of pending) socket.destroy();
      const closed = [...wss.clients].map(
        (ws) => new Promise<void>((resolve) => (ws.readyState === WebSocket.CLOSED ? resolve() : ws.once('close', () => resolve()))),
      );
      // Real time on purpose: shutdown must finish even when tests inject a manual clock.
      const force = setTimeout(() => {
        for (const ws of wss.clients) ws.terminate();
      }, SHUTDOWN_GRACE_MS);
      await Promise.all(closed);
      clearTimeout(force);
      wss.close();
    },
  };
}

function wsSink(ws: WebSocket): EventSink {
  let alive = true;
  ws.on('pong', () => (alive = true));
  // Nothing to answer, but an unhandled 'error' (e.g. an oversized frame) would crash the process.
  ws.on('error', () => ws.terminate());
  return {
    event: (event) => void (ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify(event))),
    heartbeat: () => {
      if (!alive) return ws.terminate();
      alive = false;
      ws.ping();
    },
    end: (reason) => ws.close(WS_CLOSE[reason].code, WS_CLOSE[reason].reason),
    bufferedBytes: () => ws.bufferedAmount,
  };
}

/** The bearer header, else the token offered as `Sec-WebSocket-Protocol: bearer, <token>`. */
export function authorizationOf(req: IncomingMessage): string | undefined {
  if (req.headers.authorization) return req.headers.authorization;
  const offered = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
  const at = offered.indexOf(BEARER_SUBPROTOCOL);
  const token = at >= 0 ? offered[at + 1] : undefined;
  return token ? `Bearer ${token}` : undefined;
}

function pickProtocol(protocols: Set<string>): string | false {
  // Browsers fail the handshake unless one offered protocol is selected; never the token.
  return protocols.has(BEARER_SUBPROTOCOL) ? BEARER_SUBPROTOCOL : false;
}

/** A plain HTTP answer on the raw socket, in the REST envelope, then close. */
function refuse(socket: Duplex, error: AppError, logger?: Logger, cause?: unknown): void {
  // A refusal (401, 403, shutting down) is the service working: not logged as a fault.
  const level = failureLevel(error);
  if (level !== 'info') logger?.[level]({ err: cause ?? error }, 'event websocket upgrade failed');
  if (!socket.writable) return void socket.destroy();
  const requestId = randomUUID();
  const { status, body, headers } = toErrorResponse(error, { requestId, correlationId: requestId });
  const json = JSON.stringify(body);
  const lines = [
    `HTTP/1.1 ${status} ${reasonPhrase(status)}`,
    'Connection: close',
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(json)}`,
    `X-Request-Id: ${requestId}`,
    ...Object.entries(SECURITY_HEADERS).map(([name, value]) => `${name}: ${value}`),
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.once('finish', () => socket.destroy());
  socket.end(`${lines.join('\r\n')}\r\n\r\n${json}`);
}

function pathOf(req: IncomingMessage): string {
  return (req.url ?? '/').split('?')[0] ?? '/';
}
