/**
 * The one place MCP failures get their JSON-RPC code, message and HTTP status.
 *
 * The MCP and agent errors fix the JSON-RPC rows word for word; what it leaves open is decided here
 * (the MCP surface's counterpart of docs/DECISIONS.md):
 *
 * | condition                                             | HTTP | code   | message                                   |
 * |-------------------------------------------------------|------|--------|-------------------------------------------|
 * | body is not JSON                                      | 400  | -32700 | `Parse error`                             |
 * | not one request object: batch (array), missing or     | 400  | -32600 | `Invalid request`                         |
 * |   wrong `jsonrpc`/`method`/`id`, primitive `params`   |      |        |                                           |
 * | body over 1 MiB                                       | 400  | -32600 | `Request entity too large`                |
 * | `MCP-Protocol-Version` header we do not speak         | 400  | -32600 | `Unsupported protocol version`            |
 * | unknown method, or hidden tool (default mode)         | 200  | -32601 | `Method not found`                        |
 * | unknown or hidden tool (granular mode)                | 200  | -32601 | `Tool not found: <name>`                  |
 * | bad params or tool arguments                          | 200  | -32602 | `INVALID_PARAMS: <messages joined by ; >` |
 * | `resources/read` of a URI the credential cannot see   | 200  | -32002 | `Resource not found` (`data.uri`)         |
 * | tool refused (`AppError.refusal`, see below)          | 200  | none   | a result, `isError: true`: the message    |
 * | tool failed: a fault (not an AppError, or one whose   | 200  | -32603 | `Tool execution failed: <reason>`         |
 * |   `refusal` is false: a 5xx other than kill switch    |      |        |                                           |
 * |   and breakers, e.g. a provider or store down)        |      |        |                                           |
 * | browser `Origin` not allowed (mcp-origin.ts)          | 403  | -32003 | `Origin not allowed`                      |
 * | no, invalid, revoked or expired credential            | 401  | -32001 | `Unauthorized` (+ `WWW-Authenticate`)     |
 * | scope too low for the tool                            | 403  | -32003 | `Scope insufficient: required X, got Y`   |
 * | publicId unknown/inactive, or another agent's key     | 404  | -32004 | `Agent not found`                         |
 * | GET (no standalone SSE stream), DELETE (no sessions), | 405  | -32005 | `Method not allowed` (+ `Allow`)          |
 * |   any other HTTP method                               |      |        |                                           |
 * | rate limit of the credential exceeded                 | 429  | -32029 | `Too Many Requests` (+ `Retry-After`)     |
 * | limiter or store unavailable                          | 503  | -32603 | the AppError's message (+ `Retry-After`)  |
 * | anything unexpected outside a tool                    | 500  | -32603 | `Internal error`                          |
 *
 * - JSON-RPC errors about a request we could read (-32601..-32603) travel with HTTP 200, like
 *   any JSON-RPC response; HTTP error statuses are kept for failures of the HTTP exchange, so
 *   REST-minded clients and the SDK's `execution_error`/`auth_error` mapping (7.7) both work.
 * - The -320xx codes mirror the HTTP status (-32000 − (status − 400) style: 401 → -32001),
 *   inside JSON-RPC's range reserved for implementation-defined server errors.
 * - `id` is the request's when it was read and valid, else `null` (JSON-RPC 2.0 §5); a numeric
 *   id comes back with the very literal sent, however large (mcp-request-id.ts).
 * - A tool refused (`AppError.refusal`: the safety path's kill switch, trading off, breaker,
 *   balance, slippage, caps, approval rules, and every other domain 4xx such as a missing
 *   order) is not a protocol error: it is a result with `isError: true`, the error's message
 *   word for word as its text and `{code, message, retryable, retryAfter?}` as its
 *   `structuredContent`, so the calling model reads it and adapts (MCP tools spec), whatever
 *   HTTP status REST gives it. JSON-RPC errors are kept for protocol, credential, scope and
 *   argument problems, and for faults (-32603).
 * - Checks run in this order, so one request gets one answer: Origin (403) → HTTP method (405) → body size
 *   (400) → credential and publicId (401/404) → rate limit (429, counted per HTTP request) →
 *   protocol header (400) → JSON (-32700) → envelope (-32600) → method, params, tool.
 * - Batches are refused: MCP 2025-06-18 removed them, and one call per HTTP request keeps one
 *   rate-limit hit per call. Hence we speak 2025-06-18 and later only (mcp-wire.ts).
 * - Only `notifications/*` methods may come without an id (202, no body); any other
 *   id-less message is an invalid request rather than a silently dropped call.
 * - Lenient where the exchange is unambiguous: `Content-Type` and `Accept` are not enforced
 *   (answers are always `application/json`, which MCP allows); a missing
 *   `MCP-Protocol-Version` header means the latest revision.
 */
import { isAppError } from '../../kernel/errors/app-error.js';
import { httpStatusOf } from '../surface-common/http-status.js';
import { escapeUnsafe } from '../../kernel/shared/escape-unsafe.js';
import type { JsonRpcErrorObject, RequestId } from './mcp-wire.js';
import { ORIGIN_NOT_ALLOWED } from './mcp-origin.js';

const JSONRPC_CODES = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  UNAUTHORIZED: -32001,
  FORBIDDEN: -32003,
  NOT_FOUND: -32004,
  METHOD_NOT_ALLOWED: -32005,
  RATE_LIMITED: -32029,
  /** MCP's own code for a resource that does not exist (resources spec, error handling). */
  RESOURCE_NOT_FOUND: -32002,
} as const;

/** An MCP failure ready for the wire: JSON-RPC error object, HTTP status and extra headers. */
export class McpWireError extends Error {
  constructor(
    readonly status: number,
    readonly error: JsonRpcErrorObject,
    readonly headers: Record<string, string> = {},
    /** The request's id when known; `null` otherwise. */
    readonly id: RequestId | null = null,
  ) {
    super(error.message);
    this.name = 'McpWireError';
  }

  withId(id: RequestId | null): McpWireError {
    return new McpWireError(this.status, this.error, this.headers, id);
  }

  /** The same error under another HTTP status (a refusal the 2026-07-28 revision answers before dispatch). */
  withStatus(status: number): McpWireError {
    return new McpWireError(status, this.error, this.headers, this.id);
  }
}

const wire = (status: number, code: number, message: string, data?: unknown, headers?: Record<string, string>) =>
  new McpWireError(status, data === undefined ? { code, message } : { code, message, data }, headers);

export const parseError = () => wire(400, JSONRPC_CODES.PARSE_ERROR, 'Parse error');
export const invalidRequest = () => wire(400, JSONRPC_CODES.INVALID_REQUEST, 'Invalid request');
export const entityTooLarge = () => wire(400, JSONRPC_CODES.INVALID_REQUEST, 'Request entity too large');
export const unsupportedProtocolVersion = (supported: readonly string[]) =>
  wire(400, JSONRPC_CODES.INVALID_REQUEST, 'Unsupported protocol version', { supported });
/** A browser origin outside the allowed set (mcp-origin.ts): refused before the credential is read. */
export const originNotAllowed = () => wire(403, JSONRPC_CODES.FORBIDDEN, ORIGIN_NOT_ALLOWED);
export const methodNotAllowed = () =>
  wire(405, JSONRPC_CODES.METHOD_NOT_ALLOWED, 'Method not allowed', undefined, { Allow: 'POST, OPTIONS' });

/** -32601; `Tool not found: <name>` only where the agent or bot asked for granular errors. */
export const methodNotFound = (tool?: string) =>
  wire(200, JSONRPC_CODES.METHOD_NOT_FOUND, tool === undefined ? 'Method not found' : `Tool not found: ${escapeUnsafe(tool)}`);

/** -32602 with the validation messages of the shared wording (`order_id is required`), and the next step as `data.hint` when known. */
export const invalidParams = (messages: readonly string[], hint?: string) =>
  wire(200, JSONRPC_CODES.INVALID_PARAMS, `INVALID_PARAMS: ${messages.join('; ')}`, hint === undefined ? undefined : { hint });

/** -32002: no view by that URI for this credential (a view of tools it cannot call is not named either). */
export const resourceNotFound = (uri: string) =>
  wire(200, JSONRPC_CODES.RESOURCE_NOT_FOUND, 'Resource not found', { uri: escapeUnsafe(uri) });

export const toolExecutionFailed = (tool: string, reason: string) =>
  wire(200, JSONRPC_CODES.INTERNAL_ERROR, `Tool execution failed: ${reason}`, { tool, reason });

const CODE_BY_STATUS: Record<number, number> = {
  401: JSONRPC_CODES.UNAUTHORIZED,
  403: JSONRPC_CODES.FORBIDDEN,
  404: JSONRPC_CODES.NOT_FOUND,
  429: JSONRPC_CODES.RATE_LIMITED,
};

/**
 * A failure outside any tool (credential, agent lookup, rate limit, limiter or store down)
 * as an HTTP-level MCP error. `undefined` for an unexpected error: the caller logs it and
 * answers 500 `Internal error`.
 */
export function httpFailure(error: unknown): McpWireError | undefined {
  if (!isAppError(error)) return undefined;
  const headers: Record<string, string> = {};
  if (error.retryAfterSeconds !== undefined) headers['Retry-After'] = String(Math.max(0, Math.ceil(error.retryAfterSeconds)));
  const status = httpStatusOf(error);
  if (status === 401) headers['WWW-Authenticate'] = 'Bearer';
  const code = CODE_BY_STATUS[status];
  if (code !== undefined) return wire(status, code, error.message, undefined, headers);
  if (status >= 500) return wire(status, JSONRPC_CODES.INTERNAL_ERROR, error.message, undefined, headers);
  return wire(status, JSONRPC_CODES.INVALID_REQUEST, error.message, undefined, headers);
}

export const internalError = () => wire(500, JSONRPC_CODES.INTERNAL_ERROR, 'Internal error');
