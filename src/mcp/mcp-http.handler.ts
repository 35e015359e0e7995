/**
 * The MCP endpoint `/mcp/:publicId` (the MCP routes) as a plain node:http handler, served
 * before express on the same server: express costs ~150 µs a request before any work
 * (measured), more than this whole path. Streamable HTTP, stateless, JSON answers only.
 *
 * Per request: ids → body (1 MiB cap) ∥ credential → rate limit → JSON → dispatcher.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { acceptId } from '../surface-common/request-ids.js';
import { failureLevel, statusLevel } from '../observability/failure-level.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { OperationCatalog } from '../operations/operation-catalog.js';
import type { OperationInvoker } from '../operations/operation-invoker.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { RateLimiterPort } from '../../kernel/ports/rate-limiter.port.js';
import type { McpAccess, McpAccessResolver } from './mcp-access.js';
import { MCP_MAX_BODY_BYTES, readBody, shouldCloseAfterTooLarge } from './mcp-body.js';
import { McpDispatcher, readableId, type DispatchOutcome } from './mcp-dispatcher.js';
import { tooManyRequests } from '../surface-common/rate-limit-answers.js';
import { SECURITY_HEADERS } from '../surface-common/security-headers.js';
import { defaultRateWindows, hitBudget, type RateWindowsOf } from './mcp-rate-budget.js';
import { entityTooLarge, httpFailure, internalError, McpWireError, methodNotAllowed, originNotAllowed, parseError } from './mcp-errors.js';
import { requestRevision } from './mcp-revision.js';
import { ToolCaller, type CallIds } from './mcp-tool-call.js';
import { McpViews } from './apps/mcp-views.js';
import { ToolDirectory } from './mcp-tools.js';
import { keepExactNumericId, stringifyRpcResponse } from './mcp-request-id.js';
import { errorResponse, type RequestId } from './mcp-wire.js';
import type { OriginCheck } from './mcp-origin.js';
import { bearerChallenge } from './mcp-challenge.js';

export interface McpHttpDeps {
  access: Pick<McpAccessResolver, 'resolve'> & Partial<Pick<McpAccessResolver, 'resolveCached'>>;
  invoker: OperationInvoker;
  catalog: OperationCatalog;
  limiter: RateLimiterPort;
  logger: Logger;
  clock: ClockPort;
  metrics?: Metrics;
  /** The budget of a credential of `scope`; default the limits (benchmarks raise it). */
  rateWindows?: RateWindowsOf;
  maxBodyBytes?: number;
  serverInfo?: { name: string; version: string };
  /** Browser origins served (mcp-origin.ts); absent: any. */
  originAllowed?: OriginCheck;
  /**
   * The protected resource metadata URL of an agent's MCP endpoint (OAuth): a 401 names it in
   * `WWW-Authenticate`, which is how an MCP client finds where to sign in. Absent: plain `Bearer`.
   */
  resourceMetadataUrl?: (publicId: string) => string;
}

/**
 * Serves the request and returns true when it is for the MCP endpoint; false leaves it to
 * express. Its answers carry the server's security headers themselves (set with every other
 * header in one `writeHead`), so the caller sets them only for requests it hands on.
 */
export type McpHttpHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * How long the MCP path reuses a publicId lookup (`McpAccessCacheOptions.ttlMs`): the store
 * read is the largest cost of a request after the tool itself, and a hot agent is asked
 * many times a second; a deactivation or bot config change reaches MCP within this.
 */
export const MCP_TARGET_CACHE_MS = 1_000;

/** Route template for metrics and logs (bounded label cardinality). */
const MCP_ROUTE = '/mcp/:publicId';

/** Bearer credentials only, no cookies: any origin may call (browser-based MCP clients). */
const CORS_ALLOW_ORIGIN = '*';
const CORS_EXPOSE_HEADERS =
  'X-Request-Id, X-Correlation-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, WWW-Authenticate';

/**
 * The headers of one answer, gathered as the request goes and written by one `writeHead`:
 * `setHeader` costs a validation and a copy per header on a path whose whole budget is tens
 * of µs. Starts with the headers every answer carries, in the order they are written.
 */
type AnswerHeaders = Record<string, string | number>;
const PREFLIGHT = {
  'Access-Control-Allow-Methods': 'POST, OPTIONS',
  'Access-Control-Allow-Headers':
    'Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Session-Id, Last-Event-ID, X-Request-Id, X-Correlation-Id',
  'Access-Control-Max-Age': '86400',
};

/** `/mcp/<publicId>` exactly (query string allowed): its publicId, else undefined. */
function matchMcpPath(url: string | undefined): string | undefined {
  if (url === undefined || !url.startsWith('/mcp/')) return undefined;
  const query = url.indexOf('?');
  const segment = url.slice(5, query < 0 ? undefined : query);
  if (segment === '' || segment.includes('/')) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // Not a valid escape: no agent has that publicId, the lookup says 404.
  }
}

export function createMcpHttpHandler(deps: McpHttpDeps): McpHttpHandler {
  const caller = new ToolCaller(deps);
  const dispatcher = new McpDispatcher({
    directory: new ToolDirectory(deps.catalog),
    views: new McpViews(deps.catalog),
    caller,
    serverInfo: deps.serverInfo ?? { name: 'agent-runtime-service', version: '0.1.0' },
    clock: deps.clock,
  });
  const windowsOf = deps.rateWindows ?? defaultRateWindows;
  const maxBodyBytes = deps.maxBodyBytes ?? MCP_MAX_BODY_BYTES;

  /**
   * One hit per HTTP request; a refused `tools/call` still goes into the audit trail and
   * answers with the refusal. Undefined when the call may go on. A plain function on the
   * limiter's promise, not an async one: each async layer is another promise and microtask
   * turn on every request.
   */
  function meter(
    access: McpAccess,
    headers: AnswerHeaders,
    message: unknown,
    ids: CallIds,
    id: RequestId | null,
  ): Promise<DispatchOutcome | undefined> {
    return hitBudget(deps.limiter, windowsOf, access).then(
      (decision) => {
        // As `rateLimitHeaders` writes them (the REST middleware's), without an object per request.
        headers['X-RateLimit-Limit'] = String(decision.limit);
        headers['X-RateLimit-Remaining'] = String(decision.remaining);
        headers['X-RateLimit-Reset'] = String(decision.resetSeconds);
        if (decision.allowed) return undefined;
        caller.refused(message, access, ids, 'RATE_LIMITED');
        return failureOf(tooManyRequests(decision), id);
      },
      (error: unknown) => failureOf(error, id),
    );
  }

  async function handle(
    req: IncomingMessage,
    headers: AnswerHeaders,
    publicId: string,
    ids: { requestId: string; correlationId: string },
  ): Promise<DispatchOutcome | undefined> {
    // Before anything else, preflight included: a page of a foreign origin learns nothing.
    if (deps.originAllowed && !deps.originAllowed(header(req, 'origin'))) return wireFailure(originNotAllowed());
    if (req.method === 'OPTIONS') return { status: 204, headers: PREFLIGHT };
    // GET would open a standalone SSE stream and DELETE end a session: neither exists when stateless.
    if (req.method !== 'POST') return wireFailure(methodNotAllowed());
    const body = readBody(req, maxBodyBytes);
    const authorization = header(req, 'authorization');
    // A credential and agent this process holds verified need no promise; anything else is resolved.
    const cached = deps.access.resolveCached?.(publicId, authorization);
    const granted = cached === undefined ? deps.access.resolve(publicId, authorization).catch(denied) : undefined;
    const read = await body;
    if (read.kind === 'aborted') return undefined;
    if (read.kind === 'too-large') {
      if (shouldCloseAfterTooLarge(req)) headers.Connection = 'close';
      return wireFailure(entityTooLarge());
    }
    // Parsed before the credential is looked at so that every refusal below answers with the
    // request's id (JSON-RPC 2.0 §5: null only when the id cannot be read).
    const message = parseJson(read.body);
    const id = readableId(message);
    // `granted` is there exactly when nothing was cached.
    const access = cached ?? (await granted!);
    if (access instanceof Denied) return challenged(failureOf(access.error, id), publicId);
    const refused = await meter(access, headers, message, ids, id);
    if (refused) return refused;
    // Per request: the 2026-07-28 envelope and its routing headers, else the 2025 header.
    const revision = requestRevision(message, {
      protocolVersion: header(req, 'mcp-protocol-version'),
      method: header(req, 'mcp-method'),
      name: header(req, 'mcp-name'),
    });
    if (revision instanceof McpWireError) return wireFailure(revision.withId(id));
    if (message === PARSE_FAILED) return wireFailure(parseError());
    // `return await`: a promise returned as it is from an async function costs two more microtask turns.
    return await dispatcher.dispatch(message, access, ids, revision);
  }

  function failureOf(error: unknown, id: RequestId | null): DispatchOutcome {
    const mapped = httpFailure(error);
    if (mapped) return { ...wireFailure(mapped.withId(id)), level: failureLevel(error) };
    throw error;
  }

  /** A 401 with the OAuth challenge that names the agent's resource metadata. */
  function challenged(outcome: DispatchOutcome, publicId: string): DispatchOutcome {
    // Only a publicId's own characters go into a header; anything else names no agent anyway.
    if (outcome.status !== 401 || !deps.resourceMetadataUrl || !/^[A-Za-z0-9_-]{1,100}$/.test(publicId)) return outcome;
    return { ...outcome, headers: { ...outcome.headers, 'WWW-Authenticate': bearerChallenge(deps.resourceMetadataUrl(publicId)) } };
  }

  async function serve(req: IncomingMessage, res: ServerResponse, publicId: string): Promise<void> {
    // A float, not `hrtime.bigint()`: a BigInt per request for a duration in seconds.
    const started = performance.now();
    const startedAt = deps.clock.now();
    const requestId = acceptId(header(req, 'x-request-id')) ?? randomUUID();
    const ids = { requestId, correlationId: acceptId(header(req, 'x-correlation-id')) ?? requestId };
    const headers = answerHeaders(requestId, ids.correlationId);
    // Only browsers need CORS headers, and they always send Origin cross-origin.
    // A refused origin gets none: its page cannot even read the refusal.
    const origin = header(req, 'origin');
    if (origin !== undefined && (deps.originAllowed?.(origin) ?? true)) {
      headers['Access-Control-Allow-Origin'] = CORS_ALLOW_ORIGIN;
      headers['Access-Control-Expose-Headers'] = CORS_EXPOSE_HEADERS;
    }
    let outcome: DispatchOutcome | undefined;
    try {
      outcome = await handle(req, headers, publicId, ids);
    } catch (error) {
      deps.logger.error({ err: error, ...ids }, 'mcp request failed');
      outcome = wireFailure(internalError());
    }
    if (outcome === undefined || res.headersSent || res.destroyed) return;
    write(res, headers, outcome);
    deps.metrics?.observeHttp(req.method ?? 'UNKNOWN', MCP_ROUTE, outcome.status, (performance.now() - started) / 1000);
    // Refusals (a 401, the 405 an SDK client's GET probe gets) are info; see failure-level.ts.
    const level = outcome.level ?? statusLevel(outcome.status);
    if (!deps.logger.isLevelEnabled(level)) return;
    const rpcError = outcome.body && 'error' in outcome.body ? outcome.body.error.code : undefined;
    deps.logger[level](
      {
        ...ids,
        req: {
          method: req.method,
          path: MCP_ROUTE,
          publicId,
          remoteAddress: req.socket.remoteAddress,
          userAgent: req.headers['user-agent'],
        },
        res: { statusCode: outcome.status },
        mcp: { method: outcome.method, tool: outcome.tool, error: rpcError },
        responseTime: deps.clock.now() - startedAt,
      },
      'mcp request completed',
    );
  }

  return (req, res) => {
    const publicId = matchMcpPath(req.url);
    if (publicId === undefined) return false;
    serve(req, res, publicId).catch((error: unknown) => {
      // Only writing or logging can get here; the socket is all that is left to clean up.
      deps.logger.error({ err: error }, 'mcp response could not be written');
      res.destroy();
    });
    return true;
  };
}

const { 'X-Content-Type-Options': NOSNIFF, 'X-Frame-Options': FRAMES, 'Content-Security-Policy': CSP } = SECURITY_HEADERS;

/**
 * The headers every answer starts with, in the order they are written: the security headers
 * (a test checks that each of `SECURITY_HEADERS` is here), the ids, and `Cache-Control` (as
 * on the REST API: answers are one caller's data and some carry secrets, a new key's). One
 * literal of a fixed shape: a spread of `SECURITY_HEADERS` copied it key by key per request.
 */
function answerHeaders(requestId: string, correlationId: string): AnswerHeaders {
  return {
    'X-Content-Type-Options': NOSNIFF!,
    'X-Frame-Options': FRAMES!,
    'Content-Security-Policy': CSP!,
    'X-Request-Id': requestId,
    'X-Correlation-Id': correlationId,
    'Cache-Control': 'no-store',
  };
}

/** A credential `resolve` refused: held until the body is read, so the refusal can carry the request's id. */
class Denied {
  constructor(readonly error: unknown) {}
}

function denied(error: unknown): Denied {
  return new Denied(error);
}

function wireFailure(error: McpWireError): DispatchOutcome {
  return { status: error.status, body: errorResponse(error.id, error.error), headers: error.headers };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function write(res: ServerResponse, headers: AnswerHeaders, outcome: DispatchOutcome): void {
  if (outcome.headers) Object.assign(headers, outcome.headers);
  if (outcome.body === undefined) {
    res.writeHead(outcome.status, headers).end();
    return;
  }
  const json = stringifyRpcResponse(outcome.body);
  headers['Content-Type'] = 'application/json';
  headers['Content-Length'] = Buffer.byteLength(json);
  res.writeHead(outcome.status, headers).end(json);
}

const PARSE_FAILED = Symbol('parse failed');

function parseJson(body: Buffer): unknown {
  const text = body.toString('utf8');
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return PARSE_FAILED;
  }
  // Before anything reads the id: every answer, error or result, echoes it as sent.
  keepExactNumericId(message, text);
  return message;
}
