/**
 * Durability and audit of the sign-in routes (`/api/nest/auth/...`), the only mutating REST
 * calls outside the operations catalog, whose invoker does both for every other call. A
 * session token or refresh token must not be undone by power loss after the client got it,
 * and every sign-in attempt is in the audit trail, anonymous ones included.
 *
 * The answer is held at `res.end`, after the route built it, the way compression
 * middlewares hook the response; headers are not sent before then, so a store that cannot
 * flush still turns the answer into an error (500, or the store's 503 when it timed out).
 * The audit entry is written when the response is done (or the client went away).
 */
import type { Request, RequestHandler, Response } from 'express';
import { principalRefOf, type Principal } from '../../auth/credentials/credential-resolver.js';
import { AppError, isAppError } from '../../../kernel/errors/app-error.js';
import type { Logger } from '../../observability/logger.js';
import type { AuditEntry, AuditSink } from '../../operations/audit.types.js';
import { digestArguments } from '../../operations/operation-invoker.js';
import type { ClockPort } from '../../../kernel/ports/clock.port.js';
import { toErrorResponse } from '../../surface-common/error-envelope.js';
import { CORRELATION_ID_HEADER, REQUEST_ID_HEADER } from '../../surface-common/request-ids.js';
import { requestContext } from '../request-context.middleware.js';

export const SIGN_IN_PREFIX = '/api/nest/auth';
const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Read-only POSTs: audited, never held (nothing written to wait for). */
const READ_ONLY = new Set([`${SIGN_IN_PREFIX}/verify`]);

export interface SignInRecordDeps {
  audit: AuditSink;
  clock: ClockPort;
  /** Resolves once every write so far is durable and its events published (`ActorRuntime.settled`). */
  settled: () => Promise<void>;
  logger: Logger;
}

/** Mount at `SIGN_IN_PREFIX`, before the sign-in routes. */
export function signInRecordMiddleware(deps: SignInRecordDeps): RequestHandler {
  return (req, res, next) => {
    if (!MUTATING.has(req.method)) return next();
    const path = req.originalUrl.split('?')[0] ?? '';
    const started = deps.clock.now();
    const body: unknown = req.body; // digested only when recorded
    // 'close' comes after 'finish', and also when the client aborts (no 'finish' then).
    res.once('close', () => {
      try {
        const entry = entryFor(req, res, body, started, deps.clock.now());
        if (entry) deps.audit.record(entry);
      } catch (error) {
        // Auditing must never take the process down from an event listener.
        req.log?.error({ err: error }, 'sign-in audit entry could not be built');
      }
    });
    if (!READ_ONLY.has(path)) holdUntilDurable(res, deps);
    next();
  };
}

function holdUntilDurable(res: Response, deps: SignInRecordDeps): void {
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  res.end = ((...args: unknown[]) => {
    // A refusal (4xx) changed nothing worth holding it for: 401s, 429s and bad input go at once.
    if (res.statusCode >= 400 && res.statusCode < 500) return end(...args);
    deps.settled().then(
      () => end(...args),
      (err: unknown) => {
        deps.logger.error({ err }, 'answer withheld: the store did not flush');
        end(...failure(res, isAppError(err) ? err : AppError.internal()));
      },
    );
    return res;
  }) as Response['end'];
}

/** Replaces the answer built so far with the error's envelope (a flush timeout is a 503); returns the arguments of `end`. */
function failure(res: Response, error: AppError): [string] {
  if (res.headersSent) return [''];
  const { status, body, headers } = toErrorResponse(error, requestContext(res));
  const json = JSON.stringify(body);
  const kept = new Set([REQUEST_ID_HEADER, CORRELATION_ID_HEADER, 'cache-control'].map((name) => name.toLowerCase()));
  for (const name of res.getHeaderNames()) if (!kept.has(name)) res.removeHeader(name);
  res
    .status(status)
    .set(headers)
    .set('Content-Type', 'application/json; charset=utf-8')
    .set('Content-Length', String(Buffer.byteLength(json)));
  return [json];
}

function entryFor(req: Request, res: Response, body: unknown, started: number, now: number): AuditEntry | undefined {
  const template = res.locals.routeTemplate;
  // No route matched: nothing ran, and strangers' 404 probes would only flood the log.
  if (template === undefined) return undefined;
  const principal = res.locals.principal;
  const finished = res.writableFinished;
  const ok = finished && res.statusCode < 400;
  return {
    at: started,
    surface: 'rest',
    operation: `${req.method} ${template}`,
    principal: principalRef(principal, req),
    ...(principal && principal.type !== 'session'
      ? { ...('prefix' in principal ? { credentialPrefix: principal.prefix } : {}), scope: principal.scope }
      : {}),
    argsDigest: digestArguments(body),
    outcome: ok ? 'ok' : 'error',
    ...(ok ? {} : { error: finished ? String(res.statusCode) : 'ABORTED' }),
    latencyMs: now - started,
    requestId: res.locals.requestId,
    correlationId: res.locals.correlationId,
  };
}

function principalRef(principal: Principal | undefined, req: Request): AuditEntry['principal'] {
  if (!principal) return { type: 'anonymous', id: req.ip ?? req.socket.remoteAddress ?? 'unknown' };
  return principalRefOf(principal);
}
