/**
 * Request and correlation ids on every request, echoed back as headers and bound to a
 * per-request child logger. Kept on `res.locals` (no AsyncLocalStorage): everything that
 * needs them (handlers, the error middleware) has the response at hand.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler, Response } from 'express';
import { pinoHttp } from 'pino-http';
import { statusLevel, type FailureLevel } from '../observability/failure-level.js';
import type { Logger } from '../observability/logger.js';
import { acceptId, CORRELATION_ID_HEADER, REQUEST_ID_HEADER } from '../surface-common/request-ids.js';

declare global {
  // Express exposes `res.locals` typing through this global namespace.
  namespace Express {
    interface Locals {
      /** Set by the request context middleware on every request. */
      requestId: string;
      /** Caller-supplied `X-Correlation-Id`, else the request id. */
      correlationId: string;
      /** Matched route template (`/api/nest/ops/actors/:type`), set once a route matches. */
      routeTemplate?: string;
      /** Set by the error middleware: how loudly the access line logs the failure, and its code. */
      failure?: { level: FailureLevel; code: string };
    }
  }
}

/** Ids of the current request, for handlers that build canonical envelopes themselves. */
export function requestContext(res: Response): { requestId: string; correlationId: string } {
  return { requestId: res.locals.requestId, correlationId: res.locals.correlationId };
}

/** Paths probed every few seconds; logging each would drown the useful lines. */
const QUIET_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** Assigns ids, echoes them, and attaches `req.log` (a child of `logger` carrying both ids). */
export function requestContextMiddleware(logger: Logger): RequestHandler {
  const httpLogger = pinoHttp<IncomingMessage, ServerResponse>({
    logger,
    // req.id is set below before pino-http runs; this is only a fallback.
    genReqId: () => randomUUID(),
    customAttributeKeys: { reqId: 'requestId' },
    customProps: (req, res) => {
      const locals = (res as Response).locals;
      return {
        requestId: req.id,
        correlationId: locals?.correlationId,
        ...(locals?.failure ? { errorCode: locals.failure.code } : {}),
      };
    },
    // A refusal (4xx, the kill switch...) is an answer like any other: info. Error level is
    // for what an operator must act on (failure-level.ts).
    customLogLevel: (_req, res, err) => {
      if (err !== undefined) return 'error';
      return (res as Response).locals?.failure?.level ?? statusLevel(res.statusCode);
    },
    // pino-http makes up an error ("failed with status code 503", a stack of its own) for any
    // 5xx: drop it where the error middleware already judged the failure (and logged a fault's
    // own stack), so a refusal's access line is like any other.
    customErrorObject: (_req, res, _error, value: Record<string, unknown>) => {
      if ((res as Response).locals?.failure === undefined) return value;
      const { err: _made, ...rest } = value;
      return rest;
    },
    customErrorMessage: (_req, res) => ((res as Response).locals?.failure?.level === 'info' ? 'request completed' : 'request errored'),
    autoLogging: { ignore: (req) => QUIET_PATHS.has((req.url ?? '').split('?')[0] ?? '') },
    // Only what an access log needs: no headers (credentials live there) and no query
    // string (it may carry tokens). Smaller bindings also keep redaction cheap per request.
    serializers: {
      req: (req: { id?: unknown; method?: string; url?: string; raw?: IncomingMessage }) => ({
        id: req.id,
        method: req.method,
        path: (req.url ?? '').split('?')[0],
        remoteAddress: req.raw?.socket?.remoteAddress,
        userAgent: req.raw?.headers['user-agent'],
      }),
      res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
    },
  });

  return (req, res, next) => {
    const requestId = acceptId(req.get(REQUEST_ID_HEADER)) ?? randomUUID();
    const correlationId = acceptId(req.get(CORRELATION_ID_HEADER)) ?? requestId;
    res.locals.requestId = requestId;
    res.locals.correlationId = correlationId;
    res.setHeader(REQUEST_ID_HEADER, requestId);
    res.setHeader(CORRELATION_ID_HEADER, correlationId);
    req.id = requestId;
    // pino-http keeps an existing req.log, so handlers log with both ids bound.
    req.log = logger.child({ requestId, correlationId });
    httpLogger(req, res, next);
  };
}
