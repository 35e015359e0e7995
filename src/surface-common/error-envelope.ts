/**
 * The error envelopes of interface section 7.1, built from an `AppError`. Pure functions:
 * the REST error middleware and the WebSocket upgrade's refusal write them, and tests can
 * check shapes directly.
 */
import { STATUS_CODES } from 'node:http';
import type { AppError, RequestIds } from '../../kernel/errors/app-error.js';
import { httpStatusOf } from './http-status.js';

/** The next step of a refusal, beside its message (`AppError.hint`). */
export interface HintDetails {
  hint: string;
}

/** `{statusCode, message, error}`; `error` is the HTTP reason phrase. */
export interface StandardEnvelope {
  statusCode: number;
  message: string;
  error: string;
  details?: HintDetails;
}

/** Status 400, `message` lists every problem, `error` = `Bad Request`. */
export interface ValidationEnvelope {
  statusCode: number;
  message: string[];
  error: string;
  details?: HintDetails;
}

export interface DomainEnvelope extends StandardEnvelope {
  code: string;
}

/** A failure even when sent with 200 (soft errors). */
export interface CanonicalFailureEnvelope {
  success: false;
  error: { code: string; message: string; details: { retryable: boolean; retryAfterSeconds?: number; hint?: string } };
  meta: { requestId: string; correlationId: string };
}

export type ErrorEnvelope = StandardEnvelope | ValidationEnvelope | DomainEnvelope | CanonicalFailureEnvelope;

export interface ErrorResponse {
  status: number;
  body: ErrorEnvelope;
  headers: Record<string, string>;
}

/**
 * Reason phrases as clients of the original service saw them (NestJS names). Pinned here
 * because Node's `STATUS_CODES` renames some across versions (413 became "Content Too Large").
 */
const REASON_PHRASES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export function reasonPhrase(status: number): string {
  return REASON_PHRASES[status] ?? STATUS_CODES[status] ?? 'Error';
}

function standardEnvelope(status: number, message: string): StandardEnvelope {
  return { statusCode: status, message, error: reasonPhrase(status) };
}

/**
 * Renders `err` in the envelope it asks for; `ids` go into the canonical envelope's `meta`
 * (an idempotent replay repeats the first response's).
 */
export function toErrorResponse(err: AppError, ids: RequestIds): ErrorResponse {
  const status = httpStatusOf(err);
  const headers: Record<string, string> = { ...err.headers };
  // RFC 9110 §15.5.2: a 401 names the scheme that would work (session token or API key, both bearers).
  if (status === 401) headers['WWW-Authenticate'] ??= 'Bearer';
  if (err.retryAfterSeconds !== undefined) {
    headers['Retry-After'] = String(Math.max(0, Math.ceil(err.retryAfterSeconds)));
  }
  // Only a hint goes into the other envelopes' `details`: they had none, and it is additive.
  const hint = err.hint === undefined ? {} : { details: { hint: err.hint } };
  switch (err.envelope) {
    case 'standard':
      return { status: status, body: { ...standardEnvelope(status, err.message), ...hint }, headers };
    case 'validation':
      return {
        status: status,
        body: { statusCode: status, message: err.messages ?? [err.message], error: 'Bad Request', ...hint },
        headers,
      };
    case 'domain':
      return { status: status, body: { ...standardEnvelope(status, err.message), code: err.code, ...hint }, headers };
    case 'canonical': {
      const details: CanonicalFailureEnvelope['error']['details'] = { retryable: err.retryable };
      if (err.retryAfterSeconds !== undefined) details.retryAfterSeconds = err.retryAfterSeconds;
      if (err.hint !== undefined) details.hint = err.hint;
      return {
        status: status,
        body: { success: false, error: { code: err.code, message: err.message, details }, meta: { ...(err.firstRequest ?? ids) } },
        headers,
      };
    }
  }
}
