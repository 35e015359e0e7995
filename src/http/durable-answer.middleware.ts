import type { RequestHandler, Response } from 'express';
import { AppError, isAppError } from '../errors/app-error.js';
import type { Logger } from '../observability/logger.js';
import { toErrorResponse } from './error-envelope.js';
import { CORRELATION_ID_HEADER, REQUEST_ID_HEADER, requestContext } from './request-context.middleware.js';

const MUTATING = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      /** Set by a route whose answer is already held until durable (the operations invoker's). */
      answeredDurable?: boolean;
    }
  }
}

export interface DurableAnswerOptions {
  /** Resolves once every write so far is durable and its events published (`ActorRuntime.settled`). */
  settled: () => Promise<void>;
  logger: Logger;
}

/**
 * Holds the answer of every mutating request until what it wrote is durable: writes resolve
 * once committed (StorePort), and a session token, a new key's secret or a wallet address
 * the client funds must not be undone by power loss after the client got it. Safe by
 * default: a new route needs nothing to be covered. The operations invoker settles its own
 * calls (only those that may write) and marks `res.locals.answeredDurable`.
 *
 * The answer is held at `res.end`, after the route built it, the way compression
 * middlewares hook the response; headers are not sent before then, so a store that cannot
 * flush still turns the answer into an error (500, or the store's 503 when it timed out).
 */
export function durableAnswerMiddleware(options: DurableAnswerOptions): RequestHandler {
  return (req, res, next) => {
    if (!MUTATING.has(req.method)) return next();
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    res.end = ((...args: unknown[]) => {
      // A refusal (4xx) changed nothing worth holding it for: 401s, 429s and bad input go at once.
      if (res.locals.answeredDurable || (res.statusCode >= 400 && res.statusCode < 500)) return end(...args);
      options.settled().then(
        () => end(...args),
        (err: unknown) => {
          options.logger.error({ err }, 'answer withheld: the store did not flush');
          end(...failure(res, isAppError(err) ? err : AppError.internal()));
        },
      );
      return res;
    }) as Response['end'];
    next();
  };
}

/** Replaces the answer built so far with the error's envelope (a flush timeout is a 503); returns the arguments of `end`. */
function failure(res: Response, error: AppError): [string] {
  if (res.headersSent) return ['']; // written early (a stream): too late for an envelope
  const { status, body, headers } = toErrorResponse(error, requestContext(res));
  const json = JSON.stringify(body);
  const kept = new Set([REQUEST_ID_HEADER, CORRELATION_ID_HEADER, 'cache-control'].map((name) => name.toLowerCase()));
  for (const name of res.getHeaderNames()) if (!kept.has(name)) res.removeHeader(name);
  res.status(status).set(headers).set('Content-Type', 'application/json; charset=utf-8').set('Content-Length', String(Buffer.byteLength(json)));
  return [json];
}
