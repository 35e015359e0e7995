/**
 * The MCP event surfaces (SSE router + WebSocket upgrade) built from their dependencies, so
 * the composition root wires them in three lines: mount `router`, `attach(server)`, and
 * `close()` first thing on shutdown.
 */
import type { Server } from 'node:http';
import type { Router } from 'express';
import { Gauge, type Registry } from 'prom-client';
import { EventStreamRegistry, type EventStreamRegistryDeps } from './event-stream.registry.js';
import { createSseRoutes } from './sse.routes.js';
import { attachEventsWebSocket, type EventsWebSocket } from './ws.upgrade.js';

export interface McpEventSurfaces {
  router: Router;
  /** Handles `/mcp/:publicId/events/ws` upgrades on the service's HTTP server. */
  attach(server: Server): void;
  /** Streams open now (SSE and WebSocket). */
  openStreams(): number;
  /**
   * Ends every stream (SSE: end of body; WebSocket: close 1001) and waits for the sockets.
   * Upgraded sockets are invisible to `server.closeAllConnections()`, so without this
   * `server.close()` would wait for them forever.
   */
  close(): Promise<void>;
}

export interface McpEventSurfacesDeps extends EventStreamRegistryDeps {
  /** Where the open-streams gauge is registered (the service's metrics registry). */
  registry?: Registry;
}

export function createMcpEventSurfaces(deps: McpEventSurfacesDeps): McpEventSurfaces {
  const { registry, ...streamDeps } = deps;
  const streams = new EventStreamRegistry(streamDeps);
  if (registry) registerOpenStreamsGauge(registry, () => streams.openStreams());
  let ws: EventsWebSocket | undefined;
  return {
    router: createSseRoutes({ streams }),
    attach: (server) => {
      ws = attachEventsWebSocket(server, streams, deps.logger);
    },
    openStreams: () => streams.openStreams(),
    close: async () => {
      await streams.closeAll();
      await ws?.close();
    },
  };
}

/** `mcp_event_streams_open`, read at scrape time like the runtime gauges. */
function registerOpenStreamsGauge(registry: Registry, source: () => number): void {
  new Gauge({
    name: 'mcp_event_streams_open',
    help: 'MCP event streams (SSE and WebSocket) open in this process',
    registers: [registry],
    collect() {
      this.set(source());
    },
  });
}
