/**
 * How one REST route is described for the OpenAPI document. Routes carry their zod
 * schemas (the ones the handlers validate with), never hand-written JSON Schema, so the
 * document cannot drift from what the service accepts.
 */
import type { z } from 'zod';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * One way to authenticate a route (a route lists alternatives):
 * - `session`: bearer session JWT; on a mutating method also `X-CSRF-Token` (authentication).
 * - `session-no-csrf`: bearer session JWT without CSRF (read-only POSTs such as `verify`).
 * - `api-key`: bearer `mcpk_` key.
 * - `pre-login-csrf`: the pre-login CSRF token, bound to the `csrf_pre` cookie (logins).
 * - `ops`: the service operators' bearer token.
 * - `refresh-token`: the refresh token itself, as bearer or body field.
 * - `refresh-cookie`: the refresh token's HttpOnly cookie, with the pre-login CSRF token (browsers).
 */
export type AuthKind =
  | 'session'
  | 'session-no-csrf'
  | 'api-key'
  | 'identity-token'
  | 'pre-login-csrf'
  | 'ops'
  | 'refresh-token'
  | 'refresh-cookie';

/** An error status a route may answer besides the ones derived from its auth and inputs. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 500 | 503;

export interface RouteDoc {
  method: HttpMethod;
  /** Express-style path (`/api/nest/bots/:botId/mcp`). */
  path: string;
  /** Group of the route in the document and on the docs page. */
  tag: string;
  summary: string;
  description?: string;
  /** Alternatives; empty means a public route. */
  auth: readonly AuthKind[];
  /** JSON request body (validated with `io: 'input'`). */
  body?: z.ZodType;
  /** Media type of the request body; default `application/json` (the OAuth token endpoint reads forms). */
  bodyContentType?: string;
  /** Whether a body must be sent; default: when the body schema has required fields. */
  bodyRequired?: boolean;
  /** Query string (an object schema; each property becomes a parameter). */
  query?: z.ZodType;
  /** Schemas of path parameters by name; unnamed ones are plain strings. */
  params?: Record<string, z.ZodType>;
  /** Success status; default 200. */
  status?: number;
  /** An "ensure" route: this status (201) when the call created what it answers with, `status` when it was there. */
  createdStatus?: number;
  /** Success body (JSON unless `contentType` says otherwise). */
  response?: z.ZodType;
  /** Media type of a non-JSON success body (`text/html`). */
  contentType?: string;
  /** Legacy route: `Deprecation: true` and a `Link` to its replacement. */
  deprecated?: boolean;
  /** Guarded by `X-Idempotency-Key` (idempotency). */
  idempotent?: boolean;
  /** Extra error statuses (e.g. 409) beyond the derived ones. */
  errors?: readonly ErrorStatus[];
  /**
   * The route's own error answers, for routes whose errors are not the REST envelopes (the
   * OAuth endpoints answer `{error, error_description}`): they replace the statuses derived
   * from auth and inputs; `errors` still adds the shared envelope ones (a rate limit's 429).
   */
  ownErrors?: Partial<Record<ErrorStatus, OwnErrorDoc>>;
  /** Stable id; default derived from method and path. */
  operationId?: string;
  /** `x-` extensions, e.g. the MCP tool a route is bound to. */
  extensions?: Record<`x-${string}`, unknown>;
}

/** An error answer of one route (see `RouteDoc.ownErrors`). */
export interface OwnErrorDoc {
  description: string;
  schema: z.ZodType;
  /** Default `application/json`. */
  contentType?: string;
}

/** A JSON Schema (2020-12) or OpenAPI object as plain data. */
export type JsonObject = { [key: string]: unknown };
