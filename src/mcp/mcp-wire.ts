/**
 * Wire types of the MCP surface: the JSON-RPC 2.0 envelope and the params of the methods we
 * serve, as zod schemas (validation) plus the shapes we send back (plain types: we build
 * them, so there is nothing to validate). Only what the stateless tool server needs.
 */
import { z } from 'zod';
import { NumericIdText } from './mcp-request-id.js';

export const JSONRPC_VERSION = '2.0';

/**
 * The SDK 1.32 `LATEST_PROTOCOL_VERSION`, pinned here because the SDK is a dev dependency
 * only (a test keeps the two equal).
 */
export const LATEST_PROTOCOL_VERSION = '2025-11-25';

/**
 * Revisions we speak, newest first. 2025-03-26 and older required servers to accept JSON-RPC
 * batches, which we refuse (see mcp-errors.ts), so we do not claim them; a client asking for
 * one is offered the latest and decides itself (MCP lifecycle, version negotiation).
 */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [LATEST_PROTOCOL_VERSION, '2025-06-18'];

/** The client's revision when we speak it, else the latest we do. */
export function negotiateProtocolVersion(requested: string): string {
  return SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
}

/**
 * MCP narrows JSON-RPC: an id is a string or a number, never null. A number whose literal a
 * double does not reproduce arrives as its text (`NumericIdText`, see mcp-request-id.ts) and
 * is echoed as sent.
 */
export const requestIdSchema = z.union([z.string(), z.number(), z.instanceof(NumericIdText)]);
export type RequestId = z.infer<typeof requestIdSchema>;

/**
 * One incoming message. `id` absent means a notification; which methods may be sent that
 * way is the dispatcher's call. `params` must be structured (object or array) per JSON-RPC.
 */
export const incomingMessageSchema = z.object({
  jsonrpc: z.literal(JSONRPC_VERSION),
  method: z.string().min(1),
  id: requestIdSchema.optional(),
  params: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]).optional(),
});
export type IncomingMessage = z.infer<typeof incomingMessageSchema>;

/** Tool names are short identifiers; the cap keeps an error message from echoing a megabyte. */
export const TOOL_NAME_MAX = 200;
export const toolName = z.string().min(1).max(TOOL_NAME_MAX);

/** Params of `initialize`; other fields (capabilities, clientInfo) are accepted and unused: we are stateless. */
export const initializeParamsSchema = z.looseObject({ protocolVersion: z.string().max(64) });

/** Params of `tools/list`: an opaque cursor from a previous page. */
export const listToolsParamsSchema = z.looseObject({ cursor: z.string().max(1024).optional() });

/** Params of `tools/call`; `arguments` are checked by the operation's own input schema. */
export const callToolParamsSchema = z.looseObject({
  name: toolName,
  arguments: z.looseObject({}).optional(),
});
export type CallToolParams = z.infer<typeof callToolParamsSchema>;

/** Params of `resources/list` (and `resources/templates/list`): every view fits one page, so a cursor is only checked for shape. */
export const listResourcesParamsSchema = z.looseObject({ cursor: z.string().max(1024).optional() });

/** Params of `resources/read`: the resource's URI (a `ui://` view). */
export const readResourceParamsSchema = z.looseObject({ uri: z.string().min(1).max(2048) });

/** The JSON-RPC error object (the error envelopes, MCP envelope). */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export type JsonRpcResponse =
  | { jsonrpc: typeof JSONRPC_VERSION; id: RequestId; result: unknown }
  | { jsonrpc: typeof JSONRPC_VERSION; id: RequestId | null; error: JsonRpcErrorObject };

export function resultResponse(id: RequestId, result: unknown): JsonRpcResponse {
  return { jsonrpc: JSONRPC_VERSION, id, result };
}

export function errorResponse(id: RequestId | null, error: JsonRpcErrorObject): JsonRpcResponse {
  return { jsonrpc: JSONRPC_VERSION, id, error };
}

/** A tool as `tools/list` describes it. */
export interface ToolDescriptor {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
  /** The MCP Apps view that shows its results (`ui.resourceUri`), when there is one. */
  _meta?: Record<string, unknown>;
}

export interface ListToolsResult {
  tools: ToolDescriptor[];
  nextCursor?: string;
}

/** The structured content of a tool's refusal (`isError: true`): its code, message, and whether and when to try again. */
export type ToolRefusal = {
  code: string;
  message: string;
  retryable: boolean;
  /** Seconds to wait before trying again, when the service knows (an open breaker). */
  retryAfter?: number;
  /** The next step, in English, when the service knows one (e.g. where the wallet and the paper faucet are). */
  hint?: string;
};

export interface CallToolResult {
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError: boolean;
}

export interface InitializeResult {
  protocolVersion: string;
  capabilities: {
    tools: { listChanged: boolean };
    resources: { listChanged: boolean };
    extensions: Record<string, unknown>;
  };
  serverInfo: { name: string; version: string };
  instructions?: string;
}
