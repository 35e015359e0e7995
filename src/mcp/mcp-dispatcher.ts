/**
 * The protocol dispatcher: one parsed JSON body in, one JSON-RPC answer (or none) out.
 * Stateless: every request carries its credential, so `tools/list` and `tools/call` work
 * without a prior `initialize`, and `initialize` only negotiates the protocol revision.
 */
import type { z } from 'zod';
import type { FailureLevel } from '../observability/failure-level.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import { validationMessages } from '../../kernel/errors/validation-messages.js';
import type { McpAccess } from './mcp-access.js';
import { invalidParams, invalidRequest, McpWireError, methodNotFound, resourceNotFound } from './mcp-errors.js';
import { APPS_CAPABILITY, type McpViews } from './apps/mcp-views.js';
import type { CallIds, ToolCaller } from './mcp-tool-call.js';
import type { ToolDirectory } from './mcp-tools.js';
import { discoverResult, statelessResult, type RequestRevision } from './mcp-revision.js';
import { isPlainObject } from '../../kernel/shared/is-plain-object.js';
import { NumericIdText } from './mcp-request-id.js';
import {
  callToolParamsSchema,
  type CallToolParams,
  errorResponse,
  incomingMessageSchema,
  initializeParamsSchema,
  JSONRPC_VERSION,
  listResourcesParamsSchema,
  listToolsParamsSchema,
  readResourceParamsSchema,
  negotiateProtocolVersion,
  LATEST_PROTOCOL_VERSION,
  TOOL_NAME_MAX,
  resultResponse,
  type IncomingMessage,
  type InitializeResult,
  type JsonRpcResponse,
  type RequestId,
} from './mcp-wire.js';

/** What to write: HTTP status, the JSON-RPC body (none for 202), and what to log. */
export interface DispatchOutcome {
  status: number;
  /** Level of the request's log line when a failure decides it; else it follows the status. */
  level?: FailureLevel;
  body?: JsonRpcResponse;
  headers?: Record<string, string>;
  method?: string;
  tool?: string;
}

export interface McpDispatcherDeps {
  directory: ToolDirectory;
  /** The MCP Apps views (`ui://` resources) shown beside the tools' results. */
  views: McpViews;
  caller: ToolCaller;
  serverInfo: { name: string; version: string };
  /** Start times of the protocol calls it audits. */
  clock: ClockPort;
}

/** What a request without any revision marker is: today's clients. */
const LEGACY: RequestRevision = { era: 'legacy', version: LATEST_PROTOCOL_VERSION };

/**
 * What the server offers: tools, the views as resources (fixed per deployment, so no
 * change notifications), and the MCP Apps extension that renders them.
 */
export const SERVER_CAPABILITIES = {
  tools: { listChanged: false },
  resources: { listChanged: false },
  extensions: APPS_CAPABILITY,
};

const INSTRUCTIONS =
  'Stateless tool server of one agent. Call tools/list with the credential you will call tools with; the list depends on its scope.';

type MethodHandler = (params: Record<string, unknown>, access: McpAccess, ids: CallIds) => Promise<unknown>;

/** Validates params with the shared wording of validation messages (`name is required`). */
function parseParams<S extends z.ZodType>(schema: S, params: Record<string, unknown>): z.output<S> {
  const parsed = schema.safeParse(params, { reportInput: true });
  if (!parsed.success) throw invalidParams(validationMessages(parsed.error));
  return parsed.data;
}

export class McpDispatcher {
  private readonly methods: Record<string, MethodHandler>;
  /** The 2026-07-28 revision's: no `initialize` (nothing to negotiate per connection), `server/discover` instead. */
  private readonly statelessMethods: Record<string, MethodHandler>;
  private readonly serverInfo: { name: string; version: string };
  private readonly caller: ToolCaller;
  private readonly clock: ClockPort;

  constructor(deps: McpDispatcherDeps) {
    this.caller = deps.caller;
    this.clock = deps.clock;
    this.methods = {
      initialize: async (params): Promise<InitializeResult> => ({
        protocolVersion: negotiateProtocolVersion(parseParams(initializeParamsSchema, params).protocolVersion),
        capabilities: SERVER_CAPABILITIES,
        serverInfo: deps.serverInfo,
        instructions: INSTRUCTIONS,
      }),
      ping: async () => ({}),
      'tools/list': async (params, access) => deps.directory.list(access.viewer, parseParams(listToolsParamsSchema, params).cursor),
      // Not async: it returns the caller's promise as it is (an async arrow would wrap it in
      // another and cost extra microtask turns); a params error still throws inside `answer`'s try.
      'tools/call': (params, access, ids) =>
        deps.caller.call(callParamsOf(params) ?? parseParams(callToolParamsSchema, params), access, ids),
      'resources/list': async (params, access) => {
        parseParams(listResourcesParamsSchema, params);
        return { resources: deps.views.list(access.viewer) };
      },
      // No templates: every view has one fixed URI. Answered (empty) since clients list both once `resources` is declared.
      'resources/templates/list': async (params) => {
        parseParams(listResourcesParamsSchema, params);
        return { resourceTemplates: [] };
      },
      'resources/read': async (params, access) => {
        const { uri } = parseParams(readResourceParamsSchema, params);
        const contents = deps.views.read(uri, access.viewer);
        if (!contents) throw resourceNotFound(uri);
        return { contents: [contents] };
      },
    };
    const { initialize: _handshake, ...shared } = this.methods;
    this.statelessMethods = { ...shared, 'server/discover': async () => discoverResult(INSTRUCTIONS, SERVER_CAPABILITIES) };
    this.serverInfo = deps.serverInfo;
  }

  async dispatch(body: unknown, access: McpAccess, ids: CallIds, revision: RequestRevision = LEGACY): Promise<DispatchOutcome> {
    // Batches left JSON-RPC-over-MCP in 2025-06-18; one request per HTTP request also keeps
    // one rate-limit hit per call (see mcp-errors.ts).
    let envelope = envelopeOf(body);
    if (!envelope) {
      const parsed = incomingMessageSchema.safeParse(body);
      if (!parsed.success) return failure(invalidRequest().withId(readableId(body)));
      envelope = parsed.data;
    }
    const { id, method, params } = envelope;
    // Every call is audited: `tools/call` by the invoker (answered or refused), the others here.
    // `return await`: a promise returned as it is from an async function costs two more microtask turns.
    if (method === 'tools/call') return await this.answer(id, method, params, access, ids, revision);
    const started = this.clock.now();
    const outcome = await this.answer(id, method, params, access, ids, revision);
    this.caller.recordMethod(
      forLog(method),
      params,
      access,
      ids,
      started,
      outcome.body && 'error' in outcome.body ? outcome.body.error.code : undefined,
    );
    return outcome;
  }

  private async answer(
    id: RequestId | undefined,
    method: string,
    params: IncomingMessage['params'],
    access: McpAccess,
    ids: CallIds,
    revision: RequestRevision,
  ): Promise<DispatchOutcome> {
    if (id === undefined) {
      // JSON-RPC notifications get no answer; only MCP's `notifications/*` may be sent that way.
      return method.startsWith('notifications/') ? { status: 202, method: forLog(method) } : failure(invalidRequest());
    }
    const methods = revision.era === 'stateless' ? this.statelessMethods : this.methods;
    const handler = Object.hasOwn(methods, method) ? methods[method] : undefined;
    if (!handler) return failure(methodNotFound().withId(id), forLog(method));
    const name = (params as { name?: unknown } | undefined)?.name;
    const tool = method === 'tools/call' && typeof name === 'string' ? forLog(name) : undefined;
    try {
      if (Array.isArray(params)) throw invalidParams(['params must be object']);
      const answered = await handler(params ?? {}, access, ids);
      const result = revision.era === 'stateless' ? statelessResult(method, answered, this.serverInfo) : answered;
      const outcome: DispatchOutcome = { status: 200, body: resultResponse(id, result), method };
      if (tool !== undefined) outcome.tool = tool;
      return outcome;
    } catch (error) {
      if (error instanceof McpWireError) return failure(error.withId(id), method, tool);
      throw error;
    }
  }
}

function failure(error: McpWireError, method?: string, tool?: string): DispatchOutcome {
  return {
    status: error.status,
    body: errorResponse(error.id, error.error),
    headers: error.headers,
    ...(method === undefined ? {} : { method }),
    ...(tool === undefined ? {} : { tool }),
  };
}

/** Names from the client go into access logs: bounded, whatever was sent. */
function forLog(name: string): string {
  return name.length > 100 ? `${name.slice(0, 100)}…` : name;
}

/** The id of a request object when it is itself valid, so the client can match an error to it; else null (JSON-RPC 2.0 §5). */
export function readableId(body: unknown): RequestId | null {
  if (!isPlainObject(body)) return null;
  return isRequestId(body.id) ? body.id : null;
}

/**
 * What `requestIdSchema` accepts, checked by hand: the envelope is read on every request,
 * and a zod parse of it (which copies `params`) cost more than answering `ping`.
 */
function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) || value instanceof NumericIdText;
}

/**
 * The envelope when it is valid, as `incomingMessageSchema` reads it but without a copy (the
 * body itself, whose other members nobody reads); else
 * undefined, and the schema says what is wrong. A well-formed request skips zod entirely.
 */
function envelopeOf(body: unknown): IncomingMessage | undefined {
  if (!isPlainObject(body)) return undefined;
  const { jsonrpc, method, id, params } = body;
  if (jsonrpc !== JSONRPC_VERSION || typeof method !== 'string' || method.length === 0) return undefined;
  if (id !== undefined && !isRequestId(id)) return undefined;
  if (params !== undefined && (typeof params !== 'object' || params === null)) return undefined;
  // The body itself: dispatch reads these three fields and nothing else of it.
  return body as IncomingMessage;
}

/** `tools/call` params when `callToolParamsSchema` would accept them as they are (no copy); else undefined. */
function callParamsOf(params: Record<string, unknown>): CallToolParams | undefined {
  const { name, arguments: args } = params;
  if (typeof name !== 'string' || name.length === 0 || name.length > TOOL_NAME_MAX) return undefined;
  if (args !== undefined && !isPlainObject(args)) return undefined;
  return params as CallToolParams;
}
