/**
 * The HTTP status of each error kind: the one place a domain error becomes a status. REST
 * envelopes, the WebSocket upgrade's refusal and MCP's HTTP-level failures all read it.
 */
import type { AppError, ErrorKind } from '../../kernel/errors/app-error.js';

const STATUS_BY_KIND: Readonly<Record<ErrorKind, number>> = {
  invalid: 400,
  unprocessable: 422,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unsupported_media: 415,
  rate_limited: 429,
  unavailable: 503,
  internal: 500,
  // A refusal the client reads as an answer: a 200 whose canonical body says it failed.
  declined: 200,
};

export function httpStatusOf(error: AppError): number {
  return STATUS_BY_KIND[error.kind];
}

/**
 * The kind of a client error raised as a bare status by express or its parsers. Unknown 4xx
 * statuses read as invalid input.
 */
export function kindOfStatus(status: number): ErrorKind {
  for (const [kind, mapped] of Object.entries(STATUS_BY_KIND) as [ErrorKind, number][]) {
    if (mapped === status) return kind;
  }
  return status >= 500 ? 'internal' : 'invalid';
}
