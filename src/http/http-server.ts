/**
 * The service's node:http server with the limits of an API (config `HTTP_*`): a client has
 * seconds, not Node's default five minutes, to send a request; idle keep-alive connections
 * are closed; past a number of open connections, in all or from one address, new ones are refused.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { HttpServerSettings } from '../config/config.schema.js';
import { capConnectionsPerAddress } from './per-address-connections.js';

/** How often Node looks for requests past their timeouts (its default, 30 s, would stretch a 10 s limit to 40). */
const MAX_CHECK_INTERVAL_MS = 1_000;

/**
 * `headersTimeout` bounds the request line and headers (an idle or trickling connection);
 * `requestTimeout` the whole request, body included. Both stop counting once the request is
 * received, so an answer may take as long as it needs: SSE streams and upgraded WebSockets
 * live on past them. Past either, Node answers 408 and closes the connection.
 */
export function createHttpServer(
  settings: HttpServerSettings,
  listener: RequestListener,
  options: { isTrustedProxy?: (address: string) => boolean } = {},
): Server {
  // Node refuses a headers timeout longer than the request timeout; the request's bounds both.
  const headersTimeout = Math.min(settings.headersTimeoutMs, settings.requestTimeoutMs);
  const server = createServer(
    {
      headersTimeout,
      requestTimeout: settings.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(MAX_CHECK_INTERVAL_MS, Math.ceil(headersTimeout / 2)),
    },
    listener,
  );
  server.keepAliveTimeout = settings.keepAliveTimeoutMs;
  // Counted per TCP connection, event streams included; one past it is closed at once.
  server.maxConnections = settings.maxConnections;
  capConnectionsPerAddress(server, settings.maxConnectionsPerIp, options.isTrustedProxy ?? (() => false));
  return server;
}
