/**
 * Anything thrown, as the AppError a surface answers with: the REST error middleware and the
 * WebSocket upgrade map errors through this one function, so both answer alike.
 */
import { z } from 'zod';
import { AppError, isAppError, type ErrorCode } from '../../kernel/errors/app-error.js';
import { validationHint, validationMessages } from '../../kernel/errors/validation-messages.js';
import { reasonPhrase } from './error-envelope.js';
import { kindOfStatus } from './http-status.js';

/** Codes for client errors raised by express or its parsers (http-errors style `status`). */
const CODE_BY_STATUS: Partial<Record<number, ErrorCode>> = {
  401: 'AUTHENTICATION_FAILED',
  403: 'AUTHORIZATION_FAILED',
  404: 'RESOURCE_NOT_FOUND',
  409: 'RESOURCE_CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  429: 'RATE_LIMITED',
};

/** True for zod errors of any zod 4 flavour (classic or core). */
function isZodError(value: unknown): value is z.core.$ZodError {
  return value instanceof z.core.$ZodError;
}

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
  if (isZodError(err)) return AppError.validation(validationMessages(err), validationHint(err));
  const status = clientErrorStatus(err);
  if (status !== undefined) {
    // The reason phrase, not the library's message: those can echo input or internals.
    return new AppError(CODE_BY_STATUS[status] ?? 'VALIDATION_ERROR', reasonPhrase(status), {
      kind: kindOfStatus(status),
      envelope: 'standard',
      cause: err,
    });
  }
  return undefined;
}
