/**
 * `GET /mcp/:publicId/events/sse` (the MCP routes and the events, events): the event stream
 * as Server-Sent Events. Access and stream logic live in `event-stream.ts`; this file only
 * frames bytes. Refusals happen before any byte is written, so they take the REST envelope.
 */
import { Router, type Request, type Response } from 'express';
import { AppError } from '../../../kernel/errors/app-error.js';
import { formatSse, parseLastEventId, type StreamEndReason, type StreamEvent } from './event-frame.js';
import type { EventSink } from './event-stream.js';
import type { EventStreamRegistry } from './event-stream.registry.js';

const SSE_PATH = '/mcp/:publicId/events/sse';

const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  // no-transform: a compressing proxy would hold events back until its buffer fills.
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  // nginx buffers proxied responses unless told not to; events must go out one by one.
  'X-Accel-Buffering': 'no',
};

/** A path parameter as a string (express types them loosely once handlers are spread). */
function param(req: Request, name: string): string {
  const value = req.params[name];
  if (typeof value !== 'string' || value === '') throw AppError.notFound();
  return value;
}

/** Router factory; mount it with the other feature routers. */
export function createSseRoutes(deps: { streams: EventStreamRegistry }): Router {
  const router = Router();
  router.get(SSE_PATH, async (req, res) => {
    const afterId = parseLastEventId(req.get('last-event-id'), req.query.lastEventId);
    const { stream, rateHeaders } = await deps.streams.open(param(req, 'publicId'), req.get('authorization'), req.get('origin'));
    // The client may have given up while we were checking its credential.
    if (res.destroyed || req.socket.destroyed) return void stream.close('disconnected');
    res.on('close', () => void stream.close('disconnected'));
    req.socket.setNoDelay(true);
    res.writeHead(200, { ...SSE_HEADERS, ...rateHeaders });
    // Headers now, not with the first event: clients (and proxies) see the stream is open.
    res.flushHeaders();
    await stream.start(afterId, sseSink(res));
  });
  return router;
}

function sseSink(res: Response): EventSink {
  const writable = () => !res.writableEnded && !res.destroyed;
  return {
    event: (event: StreamEvent) => void (writable() && res.write(formatSse(event))),
    heartbeat: () => void (writable() && res.write(': keep-alive\n\n')),
    end: (reason: StreamEndReason) => {
      // A reader this far behind may be gone for good: free the socket now, not at TCP timeout.
      if (reason === 'slow-consumer') return void res.destroy();
      // A comment, so EventSource ignores it; a person with curl sees why the stream ended.
      if (writable()) res.end(`: stream closed: ${reason}\n\n`);
    },
    bufferedBytes: () => res.writableLength,
  };
}
