/**
 * The MCP tools as operations of the document, under their own tag, so a renderer lists them
 * beside the routes: each is a documented `tools/call` on the agent's MCP endpoint, its
 * `arguments` the tool's input schema and its `structuredContent` the output schema.
 * OpenAPI keys operations by path and method, and every tool is `POST /mcp/{publicId}`: the
 * `#<tool>` fragment of the path tells them apart and never reaches the server (HTTP clients
 * drop fragments), so "try it" still posts to the endpoint.
 */
import { z } from 'zod';
import type { AnyOperation } from '../../operations/operation.types.js';
import type { OperationCatalog } from '../../operations/operation-catalog.js';
import type { SchemaConverter } from './json-schema.js';
import type { JsonObject } from './route-doc.types.js';

export const MCP_TAG = {
  name: 'MCP tools',
  description:
    'Every tool is called with `POST /mcp/{publicId}` and a JSON-RPC 2.0 body `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"<tool>","arguments":{…}}}`, ' +
    'with `Authorization: Bearer <agent key or identity token>`; the `#<tool>` after the path only tells the tools apart on this page. ' +
    '`tools/list` answers the tools your credential may call (scope, principal kind, configuration), with their current schemas: read them from there. ' +
    'A refusal (trading off, balance, slippage…) is a result with `isError: true` whose text is the message; bad arguments are JSON-RPC error -32602. ' +
    'Events: `GET /mcp/{publicId}/events/sse`.',
};

/** Tools an agent or legacy bot can call: enabled operations with an agent or bot principal, by name. */
export function mcpToolOperations(catalog: OperationCatalog): AnyOperation[] {
  return catalog
    .all()
    .filter((operation) => !catalog.switchedOff(operation) && operation.principals.some((kind) => kind === 'agent' || kind === 'bot'))
    .sort((a, b) => a.name.localeCompare(b.name));
}

const id = z
  .union([z.number().int(), z.string()])
  .describe('Any id of yours; the answer repeats it.')
  .meta({ examples: [1] });
const JSON_RPC_ERROR = 'McpJsonRpcError';
const jsonRpcError = z.object({
  jsonrpc: z.literal('2.0'),
  id: id.nullable(),
  error: z.object({
    code: z
      .number()
      .int()
      .describe('-32700 parse error, -32600 invalid request, -32601 unknown tool, -32602 bad arguments, -32603 failure, -320xx HTTP-level'),
    message: z.string(),
    data: z.unknown().optional(),
  }),
});
const errorRef = { $ref: `#/components/schemas/${JSON_RPC_ERROR}` };
const errorAnswer = (description: string, code: number, message: string) => ({
  description,
  content: { 'application/json': { schema: errorRef, example: { jsonrpc: '2.0', id: 1, error: { code, message } } } },
});

/** Failures of the HTTP exchange, the same for every tool (the MCP surface's error table). */
const HTTP_FAILURES: Record<string, JsonObject> = {
  '400': errorAnswer(
    'Not JSON (-32700), not one JSON-RPC request (-32600), or a body over 1 MiB (`Request entity too large`).',
    -32600,
    'Invalid request',
  ),
  '401': errorAnswer('No, invalid, revoked or expired credential (-32001 `Unauthorized`).', -32001, 'Unauthorized'),
  '403': errorAnswer(
    'Scope too low for the tool (-32003 `Scope insufficient: required X, got Y`).',
    -32003,
    'Scope insufficient: required trade, got read',
  ),
  '404': errorAnswer(
    'No active agent with this publicId, or another agent’s credential (-32004 `Agent not found`).',
    -32004,
    'Agent not found',
  ),
  '429': errorAnswer(
    'Rate limit of the credential exceeded (-32029 `Too Many Requests`, with `Retry-After`).',
    -32029,
    'Too Many Requests',
  ),
};

const publicIdParameter = {
  name: 'publicId',
  in: 'path',
  required: true,
  description: 'The agent’s `publicId` (from `POST /api/nest/agents` or onboarding).',
  schema: { type: 'string' },
};

/** Path items of the MCP endpoint and of every tool; schemas go through the document's converter. */
export function mcpToolPaths(catalog: OperationCatalog, converter: SchemaConverter): Record<string, Record<string, JsonObject>> {
  converter.definitions[JSON_RPC_ERROR] = converter.convert(jsonRpcError, 'output');
  const paths: Record<string, Record<string, JsonObject>> = {
    '/mcp/{publicId}': { post: endpointOperation(converter) },
  };
  for (const operation of mcpToolOperations(catalog))
    paths[`/mcp/{publicId}#${operation.name}`] = { post: toolOperation(operation, converter) };
  return paths;
}

function endpointOperation(converter: SchemaConverter): JsonObject {
  const request = z.object({
    jsonrpc: z.literal('2.0'),
    id,
    method: z.enum(['initialize', 'ping', 'tools/list', 'tools/call']),
    params: z.record(z.string(), z.unknown()).optional(),
  });
  return {
    operationId: 'mcp_endpoint',
    tags: [MCP_TAG.name],
    summary: 'The MCP endpoint (JSON-RPC 2.0): initialize, tools/list, tools/call',
    description:
      'Stateless: a client may call `tools/list` or `tools/call` without `initialize`. One request per HTTP request (no batches); ' +
      'the answer is `application/json`. The tools below are the `tools/call` requests this endpoint takes.',
    security: [{ apiKeyBearer: [] }, { identityTokenBearer: [] }],
    parameters: [publicIdParameter],
    requestBody: { required: true, content: { 'application/json': { schema: converter.convert(request, 'input') } } },
    responses: {
      '200': {
        description: 'The JSON-RPC answer: `result`, or `error` for an unknown method or tool and bad parameters.',
        content: {
          'application/json': { schema: { type: 'object', properties: { jsonrpc: { const: '2.0' }, id: {}, result: {}, error: {} } } },
        },
      },
      ...HTTP_FAILURES,
    },
  };
}

function toolOperation(operation: AnyOperation, converter: SchemaConverter): JsonObject {
  const call = z.object({
    jsonrpc: z.literal('2.0'),
    id,
    method: z.literal('tools/call'),
    params: z.object({ name: z.literal(operation.name), arguments: operation.input }),
  });
  // A non-object output travels only as text: MCP's structuredContent is an object.
  const structured = operation.output instanceof z.ZodObject ? { structuredContent: operation.output.optional() } : {};
  const result = z.object({
    jsonrpc: z.literal('2.0'),
    id,
    result: z.object({
      content: z.array(z.object({ type: z.literal('text'), text: z.string().describe('The result as JSON text, or the refusal') })),
      ...structured,
      isError: z.boolean().describe('true: the tool refused (its text is `{code, message}`); the call itself was fine'),
    }),
  });
  return {
    operationId: `mcp_${operation.name}`,
    tags: [MCP_TAG.name],
    summary: firstSentence(operation.description),
    description: `${operation.description}\n\nMinimum scope \`${operation.minScope}\`; family \`${operation.family}\`.`,
    security: [{ apiKeyBearer: [] }, { identityTokenBearer: [] }],
    parameters: [publicIdParameter],
    requestBody: { required: true, content: { 'application/json': { schema: converter.convert(call, 'input') } } },
    responses: {
      '200': {
        description:
          'The tool’s result, or a JSON-RPC error (-32602 bad arguments, -32601 tool not visible to the credential, -32603 failure).',
        content: { 'application/json': { schema: { oneOf: [converter.convert(result, 'output'), errorRef] } } },
      },
      ...HTTP_FAILURES,
    },
    'x-mcp-tool': operation.name,
    'x-min-scope': operation.minScope,
    'x-operation-family': operation.family,
  };
}

/** The first sentence of a description: an operation's summary, which renderers show as plain text (no Markdown backticks). */
export function firstSentence(text: string): string {
  const end = text.search(/\.(\s|$)/);
  return (end === -1 ? text : text.slice(0, end + 1)).replaceAll('`', '');
}
