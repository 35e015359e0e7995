/**
 * The one place REST errors become responses. Everything thrown or passed to `next(err)`
 * ends here: AppErrors keep their envelope, zod errors become validation envelopes, other
 * libraries' client errors keep their status, and anything else is a 500 that reveals
 * nothing but is logged in full.
 */
import type { ErrorRequestHandler } from 'express';
import { AppError, isAppError, type ErrorCode } from '../errors/app-error.js';
import { failureLevel } from '../observability/failure-level.js';
import type { Logger } from '../observability/logger.js';
import { reasonPhrase, toErrorResponse } from './error-envelope.js';
import { requestContext } from './request-context.middleware.js';
import { formatZodIssues, isZodError } from './validate.js';

/** Codes for client errors raised by express or its parsers (http-errors style `status`). */
const CODE_BY_STATUS: Partial<Record<number, ErrorCode>> = {
  401: 'AUTHENTICATION_FAILED',
  403: 'AUTHORIZATION_FAILED',
  404: 'RESOURCE_NOT_FOUND',
  409: 'RESOURCE_CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  429: 'RATE_LIMITED',
};

/** A 4xx status carried by a non-AppError (express param decoding, body-parser, http-errors). */
function clientErrorStatus(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { status, statusCode } = err as { status?: unknown; statusCode?: unknown };
  const value = typeof status === 'number' ? status : statusCode;
  return typeof value === 'number' && value >= 400 && value < 500 ? value : undefined;
}

/** Maps anything thrown to an AppError; `undefined` marks an unexpected error. */
export function toAppError(err: unknown): AppError | undefined {
  if (isAppError(err)) return err;
  if (isZodError(err)) return AppError.validation(formatZodIssues(err));
  const status = clientErrorStatus(err);
  if (status !== undefined) {
    // The reason phrase, not the library's message: those can echo input or internals.
    return new AppError(CODE_BY_STATUS[status] ?? 'VALIDATION_ERROR', reasonPhrase(status), {
      status,
      envelope: 'standard',
      cause: err,
    });
  }
  return undefined;
}

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
