/**
 * The one place REST errors become responses. Everything thrown or passed to `next(err)`
 * ends here: AppErrors keep their envelope, zod errors become validation envelopes, other
 * libraries' client errors keep their status, and anything else is a 500 that reveals
 * nothing but is logged in full.
 */
import type { ErrorRequestHandler } from 'express';
import { AppError } from '../../kernel/errors/app-error.js';
import { failureLevel } from '../observability/failure-level.js';
import type { Logger } from '../observability/logger.js';
import { toErrorResponse } from '../surface-common/error-envelope.js';
import { toAppError } from '../surface-common/error-mapping.js';
import { requestContext } from './request-context.middleware.js';

/** Final error handler; `logger` is used when a request has no `req.log` (it failed before the request context). */
export function errorMiddleware(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    // Too late for an envelope; express's final handler closes the connection.
    if (res.headersSent) {
      next(err);
      return;
    }
    const mapped = toAppError(err);
    // Refusals get no line of their own (the access line carries status and code); faults and
    // unavailable dependencies are logged with their stack.
    const level = failureLevel(mapped ?? err);
    if (level !== 'info') {
      // `req.log` is typed as always present, but is absent if the request context never ran.
      const log = (req.log as Logger | undefined) ?? logger;
      log[level]({ err }, mapped === undefined ? 'unhandled error' : 'server error');
    }
    const appError = mapped ?? AppError.internal();
    res.locals.failure = { level, code: appError.code };
    const { status, body, headers } = toErrorResponse(appError, requestContext(res));
    res.status(status).set(headers).json(body);
  };
}
