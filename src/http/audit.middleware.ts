/**
 * Audit entries for mutating REST calls outside the catalog (interface 6; catalog calls
 * are recorded by `OperationInvoker`, which marks `res.locals.audited`). The entry is
 * written when the response is done, from what the pipeline left on `res.locals`: the
 * principal from auth, the route template from the metrics middleware, the ids.
 */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { Principal } from '../auth/credentials/credential-resolver.js';
import type { AuditEntry, AuditSink } from '../operations/audit.types.js';
import { digestArguments } from '../operations/operation-invoker.js';
import type { ClockPort } from '../ports/clock.port.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      /** Set when the call was audited elsewhere (a catalog operation), so it is recorded once. */
      audited?: boolean;
    }
  }
}

export interface RestAuditDeps {
  audit: AuditSink;
  clock: ClockPort;
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** MCP requests are JSON-RPC envelopes; the invoker audits each tool call in them. */
const SELF_AUDITED_PREFIX = '/mcp';
/** What a bare `:id` names, by the collection segment before it. */
const ID_OWNER: Record<string, 'agent' | 'bot'> = { agents: 'agent', bots: 'bot' };

/** Records every mutating REST call once its response has finished (or the client went away). */
export function restAuditMiddleware(deps: RestAuditDeps): RequestHandler {
  return (req, res, next) => {
    const path = req.originalUrl.split('?')[0] ?? '';
    if (!MUTATING.has(req.method) || path === SELF_AUDITED_PREFIX || path.startsWith(`${SELF_AUDITED_PREFIX}/`)) return next();
    const started = deps.clock.now();
    // The body as parsed; digested only if the call is recorded here.
    const body: unknown = req.body;
    // 'close' comes after 'finish', and also when the client aborts (no 'finish' then).
    res.once('close', () => {
      try {
        const entry = entryFor(req, res, path, body, started, deps.clock.now());
        if (entry) deps.audit.record(entry);
      } catch (error) {
        // Auditing must never take the process down from an event listener.
        req.log?.error({ err: error }, 'REST audit entry could not be built');
      }
    });
    next();
  };
}

/** The middleware as a router, for app builders that mount routers in order. */
export function createRestAuditRouter(deps: RestAuditDeps): Router {
  return Router().use(restAuditMiddleware(deps));
}

function entryFor(req: Request, res: Response, path: string, body: unknown, started: number, now: number): AuditEntry | undefined {
  const template = res.locals.routeTemplate;
  // No route matched: nothing ran, and strangers' 404 probes would only flood the log.
  if (res.locals.audited || template === undefined) return undefined;
  const principal = res.locals.principal;
  const finished = res.writableFinished;
  const ok = finished && res.statusCode < 400;
  // Only a call that went through says whose agent or bot it touched; a refused one
  // (401/403/404/400 before the ownership check) would let anyone write into an owner's log.
  // A route that resolved its agent says which (`auditSubject`): a chosen agentId in the
  // path is scoped to its owner, so the path alone does not name the actor.
  const subject = ok ? ((res.locals.auditSubject as string | undefined) ?? subjectOf(template, path)) : undefined;
  return {
    at: started,
    surface: 'rest',
    operation: `${req.method} ${template}`,
    principal: principalRef(principal, req),
    ...(principal && principal.type !== 'session' ? { credentialPrefix: principal.prefix, scope: principal.scope } : {}),
    // An operator acting on an agent or bot they own has `manage` scope on it (as the invoker records).
    ...(principal?.type === 'session' && subject ? { scope: 'manage' } : {}),
    ...(subject ? { subject } : {}),
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
  return principal.type === 'session' ? { type: 'session', id: principal.userId } : { type: principal.type, id: principal.keyId };
}

/**
 * `agent:<id>` / `bot:<id>` from the path, read against the route template: `req.params`
 * is already reset when an error left the router, the template is not.
 */
export function subjectOf(template: string, path: string): string | undefined {
  const names = template.split('/');
  const values = path.split('/');
  if (names.length !== values.length) return undefined;
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    if (!name.startsWith(':')) continue;
    const type = name === ':agentId' ? 'agent' : name === ':botId' ? 'bot' : name === ':id' ? ID_OWNER[names[i - 1] ?? ''] : undefined;
    if (!type) continue;
    try {
      return `${type}:${decodeURIComponent(values[i]!)}`;
    } catch {
      return undefined;
    }
  }
  return undefined;
}
