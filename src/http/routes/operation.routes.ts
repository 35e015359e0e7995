import { Router, type Request, type RequestHandler, type Response } from 'express';
import { AppError, isAppError } from '../../../kernel/errors/app-error.js';
import type { AccountAccess, AccountContext, CredentialAccount } from '../../operations/account-access.js';
import type { ActorView } from '../../../kernel/ports/actor-collection.port.js';
import type { AgentContext } from '../../../machines/agent.machine.js';
import type { Viewer } from '../../operations/operation-catalog.js';
import type { OperationInvoker } from '../../operations/operation-invoker.js';
import type { AnyOperation, CallContext, OperationSubject } from '../../operations/operation.types.js';
import { IDEMPOTENCY_FIELD, isGuarded } from '../../operations/operation-definition.js';
import type { OperationName } from '../../operations/operation-names.js';
import { assertSameUser, authenticated, principalOf, sessionOf, type AuthMiddlewareDeps } from '../auth/auth.middleware.js';
import type { Principal } from '../../auth/credentials/credential-resolver.js';
import type { KeyPrincipal } from '../../auth/credentials/key-authenticator.js';
import type { IdentityTokenPrincipal } from '../../identity/tokens/identity-token-shape.js';
import type { KeyScope } from '../../../kernel/vocabulary/scopes.js';
import { isPlainObject } from '../../../kernel/shared/is-plain-object.js';
import { issueMessages, validationMessages } from '../../../kernel/errors/validation-messages.js';
import { requireBearerToken } from '../ops-auth.middleware.js';
import { requestContext } from '../request-context.middleware.js';
import { noQuerySchema } from './route-schemas.js';

/**
 * A REST route bound to a catalog operation: every capability of the REST surface is one
 * (only sign-in, health, static and discovery routes are written by hand). What the call
 * acts on comes from the path: `:agentId` (an agent the operator owns), or `:userId` / no
 * id at all (the signed-in user's default agent, or the owned agent named by `agentId` in
 * the query string or body; trading accounts); `:botId` / `:id` for a legacy bot.
 */
export interface RestBinding<N extends string = OperationName> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: `/api/nest/${string}`;
  /** The operation it serves: a name the catalog defines (`OperationName`), checked by the compiler. */
  operation: N;
  status?: number;
  /**
   * An "ensure": 201 when the handler says it created what it answers with (`ctx.created`),
   * `status` (200) when it found it.
   */
  createdStatus?: 201;
  /** OpenAPI tag; default `Agents`. */
  tag?: string;
  /**
   * What the call acts on, found and owner-checked before the operation runs (someone
   * else's is 404, as a missing one): `agent` (default), `bot` (`:botId` or `:id`), or
   * `none` (the user's own collection, or the service itself on ops routes).
   */
  subject?: 'agent' | 'bot' | 'none';
  /**
   * Who calls: a signed-in operator (default), the service's operators with the ops token,
   * or an agent's own credential (`agent`: the subject is the credential's agent, the user its owner).
   */
  caller?: 'operator' | 'ops' | 'agent';
  /** A legacy route: answers `Deprecation: true` and a `Link` to its successor (legacy routes). */
  deprecated?: true;
  /**
   * Validate the input before looking up the agent or bot: a malformed request is a 400 for
   * anyone and tells nothing about whose the subject is. Default: the subject first.
   */
  inputFirst?: true;
  /**
   * Builds the operation input; default: the JSON body (GET/DELETE: the query string)
   * plus path parameters other than the subject's (`agentId`, `userId`, `botId`, `id`),
   * without `agentId` on `:userId` routes.
   * A POST/PUT route reads no query string but `agentId` on `:userId` routes: any other parameter is refused.
   */
  input?: (req: Request) => unknown;
}

/**
 * Query strings are text: list routes turn `limit` into a number and pass `cursor` through.
 * A repeated parameter (`?cursor=a&cursor=b`) reaches the schema as it is and is refused
 * (`cursor must be string`), never silently dropped to serve the first page.
 */
const pageInput = (req: Request) => ({
  ...(req.query.limit === undefined ? {} : { limit: typeof req.query.limit === 'string' ? Number(req.query.limit) : req.query.limit }),
  ...(req.query.cursor === undefined ? {} : { cursor: req.query.cursor }),
});

/** A list route's query string as its input: `limit` as a number, the other fields as text. */
export const listInput = (req: Request) => ({ ...queryInput(req, ALL_SUBJECT_PARAMS), ...pageInput(req) });

const IDEMPOTENCY_HEADER = 'x-idempotency-key';
/** An operator acting on an agent they own has `manage` scope on it (DECISIONS "Operations catalog"). */
const OPERATOR: Viewer = { kind: 'operator', scope: 'manage' };
/** The ops token holder may call every ops operation. */
const OPS: Viewer = { kind: 'ops', scope: 'manage' };
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** Every legacy route says it is deprecated and where its replacement lives (legacy routes). */
const deprecation: RequestHandler = (_req, res, next) => {
  res.set({ Deprecation: 'true', Link: '</api/nest/agents>; rel="successor-version"' });
  next();
};

export interface OperationRoutesDeps {
  auth: AuthMiddlewareDeps;
  invoker: OperationInvoker;
  /** Finds and owner-checks the agent or bot a call acts on. */
  accounts: AccountAccess;
  /** Any name: a binding's declaration is where its name is checked; mounting checks it against the catalog. */
  bindings: readonly RestBinding<string>[];
  /** Bearer token of `caller: 'ops'` bindings; without it they answer 401. */
  opsToken?: string;
}

/** The path parameters that name the subject, not operation inputs. */
const SUBJECT_PARAMS: Record<NonNullable<RestBinding['subject']>, readonly string[]> = {
  agent: ['agentId', 'userId'],
  bot: ['botId', 'id'],
  none: [],
};
const ALL_SUBJECT_PARAMS = Object.values(SUBJECT_PARAMS).flat();

/** Principal types that act as their agent on `caller: 'agent'` routes: its keys and its identity tokens. */
const AGENT_CREDENTIALS: readonly Principal['type'][] = ['agent-key', 'identity-token'];

/** Who a call is made as, read from the request its caller's guards let in. */
interface CallIdentity {
  principal: CallContext['principal'];
  scope: KeyScope;
  viewer: Viewer;
  /** The signed-in operator (an agent credential's owner is looked up once the call is valid). */
  userId?: string;
  /** An agent credential's own agent: the subject of every call it makes (identity access tokens). */
  own?: OperationSubject;
}

/** A kind of caller: the guards of its routes, and who each call is made as. */
interface CallerKind {
  guards: readonly RequestHandler[];
  identify(res: Response): CallIdentity;
}

function callerKinds(deps: OperationRoutesDeps): Record<NonNullable<RestBinding['caller']>, CallerKind> {
  return {
    operator: {
      guards: authenticated(deps.auth, ['session']),
      identify: (res) => {
        const session = sessionOf(res);
        return { principal: session, scope: 'manage', viewer: OPERATOR, userId: session.userId };
      },
    },
    ops: {
      guards: [requireBearerToken(deps.opsToken ?? '')],
      identify: () => ({ principal: { type: 'ops' }, scope: 'manage', viewer: OPS }),
    },
    agent: {
      guards: authenticated(deps.auth, AGENT_CREDENTIALS),
      identify: (res) => {
        // The guard let only AGENT_CREDENTIALS through: an agent key or an identity token, each acting as its agent with its scope.
        const principal = principalOf(res) as KeyPrincipal | IdentityTokenPrincipal;
        const { scope } = principal;
        return { principal, scope, viewer: { kind: 'agent', scope }, own: { type: 'agent', id: principal.ownerId } };
      },
    },
  };
}

/**
 * Every binding serves an operation the catalog defines: one that does not stops the start,
 * never mounts a route that answers 404 (`OperationName` catches a misspelling at compile time;
 * this catches an operation defined but not registered by any module).
 */
export function assertBindingsResolve(catalog: { get(name: string): unknown }, bindings: readonly RestBinding<string>[]): void {
  const unresolved = bindings.filter((binding) => catalog.get(binding.operation) === undefined);
  if (unresolved.length === 0) return;
  const listed = unresolved.map((binding) => `${binding.method.toUpperCase()} ${binding.path} -> ${binding.operation}`);
  throw new Error(`REST bindings name operations the catalog does not have: ${listed.join(', ')}`);
}

/**
 * Binds catalog operations to REST. The invoker is the one place of what every call gets:
 * visibility, scope, validation, the handler, durability of what it wrote before the
 * answer, and its audit entry; a call refused before it reached the operation (someone
 * else's agent, a malformed request) is audited here, through the invoker, without a subject.
 * One handler serves every caller kind, so every field of a binding holds for each.
 */
export function createOperationRoutes(deps: OperationRoutesDeps): Router {
  const router = Router();
  const callers = callerKinds(deps);
  for (const binding of deps.bindings) {
    const caller = callers[binding.caller ?? 'operator'];
    const guards = [...(binding.deprecated ? [deprecation] : []), ...caller.guards];
    router[binding.method](binding.path, ...guards, bindingHandler(deps, binding, caller));
  }
  return router;
}

/** The one handler of a bound route: its subject, its input and idempotency key checked, the catalog call, its answer. */
function bindingHandler(deps: OperationRoutesDeps, binding: RestBinding<string>, caller: CallerKind): RequestHandler {
  const subjectKind = binding.subject ?? 'agent';
  // Only operator routes on an agent without `:agentId` name their account by `agentId` (query or body).
  const namesAgent = binding.caller !== 'agent' && subjectKind === 'agent' && !binding.path.includes(':agentId');
  // An agent credential's subject is its own agent, never a path parameter: none is taken out of the input.
  const subjectParams = binding.caller === 'agent' ? [] : SUBJECT_PARAMS[subjectKind];
  return async (req, res) => {
    const started = deps.invoker.now();
    const { principal, scope, viewer, userId, own } = caller.identify(res);
    const base: CallContext = { principal, scope, ...(userId ? { userId } : {}), surface: 'rest', ...requestContext(res) };
    const params = req.params as Record<string, string>;
    let raw: unknown = {};
    let reached = false;
    try {
      // Another user's `:userId` is 404, before anything else is checked (DECISIONS "HTTP").
      if (namesAgent && params.userId !== undefined) assertSameUser(req, res);
      // A hidden operation (switched off by configuration) is a 404 whatever was sent.
      const operation = deps.invoker.callable(binding.operation, viewer);
      raw = binding.input ? binding.input(req) : defaultInput(req, subjectParams);
      const taken = namesAgent ? takeAgentId(req, raw) : { input: raw, problems: [] };
      const { input } = taken;
      const problems = [...taken.problems, ...unknownQueryProblems(req, namesAgent), ...ignoredBodyProblems(req)];
      const guarded = isGuarded(operation);
      const keyProblem = guarded ? idempotencyKeyProblem(req) : undefined;
      // Every validation answer lists every problem: the key's, the account's and the body's.
      const bodyProblems = keyProblem || problems.length > 0 || binding.inputFirst ? inputProblems(operation, input) : [];
      if (keyProblem || problems.length > 0 || bodyProblems.length > 0) {
        throw AppError.validation([...(keyProblem ? [keyProblem] : []), ...problems, ...bodyProblems]);
      }
      // The account, read once here (ownership, or the owner of a credential's agent) and passed
      // down with its status, so the operation does not read the same actor again.
      const named = own
        ? undefined
        : await subjectOf(deps.accounts, subjectKind, userId, params, 'agentId' in taken ? taken.agentId : undefined);
      const subject = own ?? named?.subject;
      // The user behind an agent credential's call: its agent's owner.
      const credentialAgent = own ? await credentialAccount(deps.accounts, own, res.locals.credentialAgent) : undefined;
      const owner = own ? credentialAgent?.ownerId : userId;
      const account = named?.account ?? (own?.type === 'agent' ? credentialAgent?.account : undefined);
      const idempotencyKey = guarded ? req.get(IDEMPOTENCY_HEADER) : undefined;
      // An "ensure" that created what it answers with says so (`createdStatus`, 201; 200 when it was there).
      let created = false;
      reached = true;
      const result = await deps.invoker.invoke({
        name: binding.operation,
        // Never spread into a body that is not an object (`[]` would become `{}`): its schema refuses it.
        input: idempotencyKey && isPlainObject(input) ? { ...input, [IDEMPOTENCY_FIELD]: idempotencyKey } : input,
        ctx: {
          ...base,
          ...(subject ? { subject } : {}),
          ...(account ? { account } : {}),
          ...(owner ? { userId: owner } : {}),
          created: () => {
            created = true;
          },
          ...(idempotencyKey ? { idempotencyKey } : {}),
        },
        viewer,
        // Set before the answer is known: a replayed failure carries the header too.
        onReplay: () => res.set('Idempotent-Replayed', 'true'),
      });
      res.status(created && binding.createdStatus ? binding.createdStatus : (binding.status ?? 200)).json(result);
    } catch (error) {
      // Refused before the operation ran: still one audit entry, and no subject (a refusal
      // must not write into the log of an agent the caller does not own).
      if (!reached)
        deps.invoker.recordOutside(binding.operation, raw, base, started, isAppError(error) ? error.code : 'INTERNAL_SERVICE_ERROR');
      throw error;
    }
  };
}

/**
 * The owner and status of a credential's own agent or bot: from the agent as resolving the
 * credential read it in this request (for its scope cap), else read now.
 */
function credentialAccount(
  accounts: AccountAccess,
  own: OperationSubject,
  seen: ActorView<AgentContext> | undefined,
): Promise<CredentialAccount> {
  if (own.type === 'agent' && seen?.id === own.id) return Promise.resolve(accounts.agentOwnerOf(seen));
  return accounts.agentOwner(own.id);
}

/** The owner-checked agent or bot a call acts on; none for `subject: 'none'`. */
async function subjectOf(
  accounts: AccountAccess,
  kind: NonNullable<RestBinding['subject']>,
  userId: string | undefined,
  params: Record<string, string>,
  named: string | undefined,
): Promise<AccountContext | undefined> {
  if (kind === 'none') return undefined;
  if (userId === undefined) throw AppError.forbidden();
  if (kind === 'bot') return accounts.bot(userId, params.botId ?? params.id ?? '');
  return accounts.agent(userId, params.agentId ?? named);
}

/** GET and DELETE take their input from the query string, the other methods from the body. */
const inputInQuery = (req: Request) => req.method === 'GET' || req.method === 'DELETE';

function defaultInput(req: Request, subjectParams: readonly string[]): unknown {
  return inputInQuery(req) ? queryInput(req, subjectParams) : bodyWith(req, pathParams(req, subjectParams));
}

/**
 * A body route's query string may hold only the account's `agentId` (on routes without
 * `:agentId`); anything else is `<name> is not a known field`, as on every other route
 * (DECISIONS "HTTP"). Query-string inputs are checked by the operation's own schema.
 */
function unknownQueryProblems(req: Request, namesAgent: boolean): string[] {
  if (inputInQuery(req)) return [];
  const { agentId, ...others } = req.query;
  const result = noQuerySchema.safeParse(!namesAgent && agentId !== undefined ? { agentId, ...others } : others);
  return result.success ? [] : validationMessages(result.error);
}

/**
 * GET and DELETE read the query string only: a body they were sent would be silently
 * dropped, and with it an `agentId` naming another account (the default one would be acted
 * on). Refused instead, unless it is empty.
 */
function ignoredBodyProblems(req: Request): string[] {
  if (!inputInQuery(req) || req.body === undefined || (isPlainObject(req.body) && Object.keys(req.body).length === 0)) return [];
  return [`a ${req.method} request takes no body: send its fields (and agentId) in the query string`];
}

function queryInput(req: Request, subjectParams: readonly string[] = SUBJECT_PARAMS.agent): Record<string, unknown> {
  return { ...req.query, ...pathParams(req, subjectParams) };
}

/** Path parameters but the subject's (`agentId`, `userId`; `botId`, `id`), which are not operation inputs. */
function pathParams(req: Request, subjectParams: readonly string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(req.params as Record<string, string>).filter(([name]) => !subjectParams.includes(name)));
}

/**
 * The JSON body with `fields` added: no body is `{}`; a body that is not an object is passed
 * on as it is, for the operation's schema to refuse (`body must be object`), never read as
 * `{}`, which on a route whose fields are all optional would do more than was asked.
 */
export function bodyWith(req: Request, fields: Record<string, unknown>): unknown {
  const body: unknown = req.body;
  if (body === undefined) return { ...fields };
  return isPlainObject(body) ? { ...body, ...fields } : body;
}

/** The agent wallet and control-plane routes: `X-Step-Up-Token` joins the body as `stepUpToken` (the operation's input, as over MCP). */
export const withStepUp = (req: Request) => {
  const token = req.get('x-step-up-token');
  return bodyWith(req, token === undefined ? {} : { stepUpToken: token });
};

/**
 * `agentId` names the trading account on `:userId` routes (query string or body); it is not
 * an operation input. A malformed one is a problem to list, never a fall-back to the default account.
 */
function takeAgentId(req: Request, input: unknown): { agentId?: string; input: unknown; problems: string[] } {
  const fromQuery = req.query.agentId;
  const problems = fromQuery === undefined || typeof fromQuery === 'string' ? [] : ['agentId must be a string'];
  let agentId = typeof fromQuery === 'string' ? fromQuery : undefined;
  if (!isPlainObject(input) || !('agentId' in input)) return { ...(agentId ? { agentId } : {}), input, problems };
  const { agentId: fromInput, ...rest } = input;
  if (typeof fromInput !== 'string') {
    if (problems.length === 0) problems.push('agentId must be a string');
  } else if (agentId !== undefined && agentId !== fromInput) {
    // Which account was meant cannot be known: acting on either could be the wrong one.
    problems.push('agentId in the query and in the body name different agents');
  } else {
    agentId = fromInput;
  }
  return { ...(agentId ? { agentId } : {}), input: rest, problems };
}

/** Idempotency: guarded routes need a UUID v4 key, else 400 (with the body's problems too). */
function idempotencyKeyProblem(req: Request): string | undefined {
  const key = req.get(IDEMPOTENCY_HEADER);
  return !key ? 'X-Idempotency-Key header is required' : !UUID_V4.test(key) ? 'X-Idempotency-Key must be a UUID v4' : undefined;
}

/**
 * The validation messages of an operation's body (none when it is valid). A guarded route's
 * key is the header's, its problem said in the header's words: the body is not blamed for it.
 */
function inputProblems(operation: AnyOperation, input: unknown): string[] {
  const parsed = operation.input.safeParse(input === undefined ? {} : input, { reportInput: true });
  if (parsed.success) return [];
  const guarded = isGuarded(operation);
  return issueMessages(parsed.error.issues.filter((issue) => !guarded || issue.path[0] !== IDEMPOTENCY_FIELD));
}
