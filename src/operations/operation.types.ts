import type { z } from 'zod';
import type { KeyScope } from '../../kernel/vocabulary/scopes.js';
import type { Principal } from '../auth/credentials/credential-resolver.js';
import type { OperationFamily } from './operation-families.js';
import type { ActorView } from '../../kernel/ports/actor-collection.port.js';
import type { BotContext } from '../../machines/bot.machine.js';
import type { SubjectStatus } from '../../agents/portfolio/portfolio.types.js';

/**
 * Who an operation serves: software operating an agent or a legacy bot (its key), a
 * signed-in operator (session), the service's own operators (`ops`, the ops bearer token),
 * the service itself (`system`: due jobs such as DCA ticks and expiries), and a legacy bot's
 * chat widget on a page (`widget`: a widget session).
 */
export type PrincipalKind = 'agent' | 'bot' | 'operator' | 'ops' | 'system' | 'widget';

export type { OperationFamily } from './operation-families.js';

/** Who is asking, for visibility: principal kind, effective scope, and per-subject switches. */
export interface Viewer {
  kind: PrincipalKind;
  scope: KeyScope;
  /** Families the subject itself switched off (a legacy bot's MCP config). */
  disabledFamilies?: readonly string[];
}

/** The agent or bot a call acts on. */
export interface OperationSubject {
  type: 'agent' | 'bot';
  id: string;
}

/**
 * Who called, as the audit trail names them: a credential (session or key), the ops token
 * (`ops`), or the service itself running a due job (`system`, with the job's kind).
 */
export type CallerPrincipal = Principal | { type: 'ops' } | { type: 'system'; job: string } | WidgetCaller;

/** A widget session on a page of `origin`: its id (the token's hash), its bot, and whether the bot's owner signed in to it. */
export interface WidgetCaller {
  type: 'widget-session';
  id: string;
  botId: string;
  origin: string;
  owner: boolean;
  /**
   * The session's bot as this request's origin check read it (a live bot then): the chat takes
   * its owner, switches and status from it instead of reading the bot again. Never kept past
   * the request.
   */
  bot?: ActorView<BotContext>;
}

/**
 * Everything a handler may know about the call besides its input. `subject` is the agent or
 * bot the call acts on; operations whose `target` is `owner` or `service` act on none.
 */
export interface CallContext {
  principal: CallerPrincipal;
  /** Effective scope: the key's scope; `manage` for an operator on their own agent. */
  scope: KeyScope;
  subject?: OperationSubject;
  /**
   * The subject's status and trading switch as the boundary read them for this call (it reads
   * the agent or bot anyway, to check ownership or find the owner): lower layers take them from
   * here instead of reading the actor again. Read once per request, never kept across requests;
   * absent where the boundary did not read the account (the layer then reads it itself).
   */
  account?: SubjectStatus;
  /** The user behind the call: the operator, or the owner of the key's agent or bot. */
  userId?: string;
  requestId: string;
  correlationId: string;
  /** Surface the call came through (audit); `system` for due jobs. */
  surface: 'rest' | 'mcp' | 'system' | 'widget';
  idempotencyKey?: string;
  /**
   * The caller as the catalog judged it (set by the invoker): a handler that reaches another
   * operation's effect asks the catalog about that one with it (`trading_command`'s DCA commands).
   */
  viewer?: Viewer;
  /**
   * Called by a handler whose call created what it answers with, where creating is not a
   * given (an "ensure"): REST then answers 201 instead of 200. A replayed call runs no
   * handler, so it answers 200: the thing existed before it.
   */
  created?: () => void;
}

/** The context of an operation that acts on one agent or bot (`target: 'account'`, the default). */
export interface OperationContext extends CallContext {
  subject: OperationSubject;
}

/**
 * What an operation acts on: one agent or bot (`account`: `ctx.subject` is set), the
 * signed-in user's own collection (`owner`: creating or listing agents and bots), or the
 * service itself (`service`: ops and due jobs).
 */
export type OperationTarget = 'account' | 'owner' | 'service';

export interface OperationAnnotations {
  readOnly?: boolean;
  destructive?: boolean;
  idempotent?: boolean;
}

/**
 * One capability, defined once: REST routes and MCP tools are both bound from it, its
 * input schema is the tool's input schema and the OpenAPI request body.
 */
export interface Operation<I extends z.ZodType = z.ZodType, O = unknown> {
  /** Tool name, e.g. `trading_portfolio_summary`. */
  name: string;
  description: string;
  family: OperationFamily;
  minScope: KeyScope;
  principals: readonly PrincipalKind[];
  input: I;
  output?: z.ZodType<O>;
  annotations?: OperationAnnotations;
  /**
   * `funds`: the operation moves funds or signs for them (a swap, an order it executes, a
   * withdrawal, a token approval). Such an operation must require `idempotencyKey` in its input
   * (`defineOperation` refuses one that does not), so that no surface runs a retry twice: REST
   * needs the `X-Idempotency-Key` header, MCP the argument (-32602 without it).
   */
  effect?: 'funds';
  /** Default `account`. */
  target?: OperationTarget;
  handler: (ctx: OperationContext, input: z.output<I>) => Promise<O>;
}

/** An operation with its generic types erased, as the catalog stores it. */
// biome-ignore lint/suspicious/noExplicitAny: the catalog holds operations of every output type in one map.
export type AnyOperation = Operation<z.ZodType, any>;

/** An operation that acts on no agent or bot (`target` `owner` or `service`): its handler gets no subject. */
export interface UnboundOperation<I extends z.ZodType, O> extends Omit<Operation<I, O>, 'target' | 'handler'> {
  target: Exclude<OperationTarget, 'account'>;
  handler: (ctx: CallContext, input: z.output<I>) => Promise<O>;
}
