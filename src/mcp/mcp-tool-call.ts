/**
 * `tools/call`: one call through the shared invoker (visibility, scope, validation, audit),
 * and the translation of its outcome into MCP terms (see the table in mcp-errors.ts).
 */
import { type AppError, isAppError, isFaultKind } from '../../kernel/errors/app-error.js';
import { failureLevel } from '../observability/failure-level.js';
import type { Logger } from '../observability/logger.js';
import type { OperationCatalog } from '../operations/operation-catalog.js';
import type { OperationInvoker } from '../operations/operation-invoker.js';
import type { OperationContext } from '../operations/operation.types.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import { isPlainObject } from '../../kernel/shared/is-plain-object.js';
import type { McpAccess } from './mcp-access.js';
import { httpFailure, invalidParams, methodNotFound, toolExecutionFailed, type McpWireError } from './mcp-errors.js';
import { toolName, type CallToolParams, type CallToolResult, type ToolRefusal } from './mcp-wire.js';

/** Ids of the HTTP request a call belongs to (audit, logs). */
export interface CallIds {
  requestId: string;
  correlationId: string;
}

export interface ToolCallerDeps {
  invoker: OperationInvoker;
  catalog: OperationCatalog;
  logger: Logger;
  clock: ClockPort;
}

/** The operation context of a call by `access`. */
function contextOf(input: Record<string, unknown>, access: McpAccess, ids: CallIds): OperationContext {
  // Optional fields are added when present rather than spread in: no throwaway objects per call.
  const ctx: OperationContext = {
    principal: access.principal,
    scope: access.scope,
    subject: access.subject,
    userId: access.userId,
    surface: 'mcp',
    requestId: ids.requestId,
    correlationId: ids.correlationId,
  };
  if (access.account) ctx.account = access.account;
  if (typeof input.idempotencyKey === 'string') ctx.idempotencyKey = input.idempotencyKey;
  return ctx;
}

/** Runs tools for MCP callers; throws `McpWireError` for protocol-level failures. */
export class ToolCaller {
  constructor(private readonly deps: ToolCallerDeps) {}

  /** Audits a request refused before dispatch (`code`, e.g. RATE_LIMITED) when it is a `tools/call`. */
  refused(message: unknown, access: McpAccess, ids: CallIds, code: string): void {
    if (!isPlainObject(message) || message.method !== 'tools/call' || !isPlainObject(message.params)) return;
    const name = toolName.safeParse(message.params.name);
    if (!name.success) return;
    const args = message.params.arguments;
    const input = isPlainObject(args) ? args : {};
    this.deps.invoker.recordOutside(name.data, input, contextOf(input, access, ids), this.deps.clock.now(), code);
  }

  /** Audits a protocol method other than `tools/call` (which the invoker audits): `error` is its JSON-RPC code. */
  recordMethod(method: string, params: unknown, access: McpAccess, ids: CallIds, started: number, error?: number): void {
    const input = isPlainObject(params) ? params : {};
    this.deps.invoker.recordOutside(method, input, contextOf({}, access, ids), started, error === undefined ? undefined : String(error));
  }

  async call(params: CallToolParams, access: McpAccess, ids: CallIds): Promise<CallToolResult> {
    const { name } = params;
    const input = params.arguments ?? {};
    const ctx = contextOf(input, access, ids);
    let result: unknown;
    try {
      result = await this.deps.invoker.invoke({ name, input, ctx, viewer: access.viewer });
    } catch (error) {
      return this.failed(name, error, access);
    }
    return this.succeeded(name, result);
  }

  private succeeded(name: string, result: unknown): CallToolResult {
    const text = JSON.stringify(result) ?? 'null';
    const output = this.deps.catalog.get(name)?.output;
    if (!output) return { content: [{ type: 'text', text }], isError: false };
    // Clients validate structuredContent against outputSchema, which forbids unknown keys:
    // parse (and so strip) instead of sending the handler's object as it is.
    const parsed = output.safeParse(result);
    // MCP structured content is an object; a non-object output has no outputSchema in tools/list.
    if (parsed.success && isPlainObject(parsed.data))
      return { content: [{ type: 'text', text }], structuredContent: parsed.data, isError: false };
    if (!parsed.success)
      this.deps.logger.error({ tool: name }, 'tool result does not match its output schema; sent without structuredContent');
    return { content: [{ type: 'text', text }], isError: false };
  }

  /**
   * A refusal (the error's own `refusal`, not its wording) is a result with `isError: true`;
   * what is wrong with the request itself (unknown or hidden tool, scope, arguments) and a
   * fault while executing are JSON-RPC errors (the table in mcp-errors.ts).
   */
  private failed(name: string, error: unknown, access: McpAccess): CallToolResult {
    if (!isAppError(error)) {
      this.deps.logger.error({ err: error, tool: name }, 'tool failed unexpectedly');
      throw toolExecutionFailed(name, 'Internal server error');
    }
    // Which refusal the invoker hit is asked of the catalog, not read from the message, so a
    // handler's own 404 or 403 stays a domain failure.
    const refusal = this.deps.catalog.refusal(name, access.viewer);
    if (error.kind === 'not_found' && (refusal === 'unknown' || refusal === 'hidden')) {
      throw methodNotFound(access.granularErrors ? name : undefined);
    }
    if (error.kind === 'forbidden' && refusal === 'scope') throw httpFailure(error) as McpWireError;
    if (error.kind === 'invalid' && error.envelope === 'validation') throw invalidParams(error.messages ?? [error.message], error.hint);
    if (isFaultKind(error.kind)) {
      // A refusal (kill switch, breaker) or the service's own decision (shutting down) is no fault:
      // no stack, not at error (failure-level.ts); the access line still names the call.
      const level = error.refusal ? 'info' : failureLevel(error);
      if (level === 'info') this.deps.logger.debug({ tool: name, code: error.code }, error.refusal ? 'tool refused' : 'tool failed');
      else this.deps.logger[level]({ err: error, tool: name }, 'tool failed');
    }
    if (!error.refusal) throw toolExecutionFailed(name, error.message);
    return refusalResult(error);
  }
}

/**
 * One shape for every refusal: the interface's message word for word
 * as the text, so a model reads what a REST caller reads, and `{code, message, retryable,
 * retryAfter?, hint?}` as structured content for a program (`retryAfter` in seconds, as
 * `Retry-After`; `hint` the next step in English, when the service knows one).
 */
function refusalResult(error: AppError): CallToolResult {
  const structuredContent: ToolRefusal = {
    code: error.code,
    message: error.message,
    retryable: error.retryable,
    ...(error.retryAfterSeconds === undefined ? {} : { retryAfter: error.retryAfterSeconds }),
    ...(error.hint === undefined ? {} : { hint: error.hint }),
  };
  return { content: [{ type: 'text', text: error.message }], structuredContent, isError: true };
}
