/**
 * Routes and tools described from the operations catalog: each REST binding's request
 * comes from the operation's input schema and its response from the output schema, the
 * same schemas the invoker validates with and `tools/list` shows.
 */
import { z } from 'zod';
import type { OperationCatalog } from '../../operations/operation-catalog.js';
import { IDEMPOTENCY_FIELD, isGuarded } from '../../operations/operation-definition.js';
import type { RestBinding } from '../routes/operation.routes.js';
import type { SchemaConverter } from './json-schema.js';
import { ERROR_ENVELOPES } from './openapi-components.js';
import { pathParameterNames } from './openapi-document.js';
import { firstSentence, mcpToolOperations } from './mcp-tool-routes.doc.js';
import type { JsonObject, RouteDoc } from './route-doc.types.js';

/**
 * One route per binding of an enabled operation (one switched off at run time is not served,
 * so not documented). A binding of an operation the catalog does not have is an error, never
 * a route left out in silence.
 */
export function catalogRouteDocs(catalog: OperationCatalog, bindings: readonly RestBinding<string>[]): RouteDoc[] {
  const docs: RouteDoc[] = [];
  for (const binding of bindings) {
    const operation = catalog.get(binding.operation);
    if (!operation)
      throw new Error(
        `REST binding ${binding.method.toUpperCase()} ${binding.path} names ${binding.operation}, which the catalog does not have`,
      );
    if (catalog.switchedOff(operation)) continue;
    const guarded = isGuarded(operation);
    // Trades go through the safety path: a soft error (`Trading bu bot icin kapali.`) is a 200
    // in the canonical envelope, and the kill switch and an open breaker are 503 (the trading errors).
    const trades = operation.family === 'trading' && !operation.annotations?.readOnly;
    const { params, rest } = splitInput(operation.input, pathParameterNames(binding.path), guarded ? [IDEMPOTENCY_FIELD] : []);
    const inQuery = binding.method === 'get' || binding.method === 'delete';
    // Agent routes without `:agentId` act on the signed-in user's default agent, or the one
    // named by `agentId` (query string, or the body on POST/PUT), which is not an operation input.
    const namesAgent = binding.caller !== 'agent' && (binding.subject ?? 'agent') === 'agent' && !binding.path.includes(':agentId');
    const query = namesAgent ? withAgentId(inQuery ? rest : undefined) : inQuery ? rest : undefined;
    const tool = operation.principals.some((kind) => kind === 'agent' || kind === 'bot');
    const hasFields = query !== undefined && (!(query instanceof z.ZodObject) || Object.keys(query.shape).length > 0);
    docs.push({
      method: binding.method,
      path: binding.path,
      tag: binding.tag ?? 'Agents',
      summary: firstSentence(operation.description),
      description: tool
        ? `${operation.description}\n\nAlso the MCP tool \`${operation.name}\` (minimum scope \`${operation.minScope}\`).`
        : operation.description,
      auth: binding.caller === 'ops' ? ['ops'] : binding.caller === 'agent' ? ['api-key', 'identity-token'] : ['session'],
      ...(binding.deprecated ? { deprecated: true } : {}),
      params,
      ...(hasFields ? { query } : {}),
      ...(inQuery ? {} : { body: rest }),
      ...(binding.status ? { status: binding.status } : {}),
      ...(binding.createdStatus ? { createdStatus: binding.createdStatus } : {}),
      ...(guarded ? { idempotent: true } : {}),
      ...(operation.output ? { response: trades ? z.union([operation.output, ERROR_ENVELOPES.CanonicalFailure]) : operation.output } : {}),
      ...(operation.annotations?.readOnly ? {} : { errors: trades ? ([409, 503] as const) : ([409] as const) }),
      operationId: operation.name,
      extensions: {
        ...(tool ? { 'x-mcp-tool': operation.name } : {}),
        'x-min-scope': operation.minScope,
        'x-operation-family': operation.family,
      },
    });
  }
  return docs;
}

/**
 * The operation input minus the fields that come from the path (the invoker merges path
 * parameters other than `agentId` into the input), which describe the path parameters,
 * and minus `dropped` fields that travel in headers.
 */
function splitInput(input: z.ZodType, pathNames: string[], dropped: string[]): { params: Record<string, z.ZodType>; rest: z.ZodType } {
  const params: Record<string, z.ZodType> = {};
  if (!(input instanceof z.ZodObject)) return { params, rest: input };
  const shape = input.shape as Record<string, z.ZodType>;
  const fromPath = pathNames.filter((name) => name in shape);
  for (const name of fromPath) params[name] = shape[name]!;
  const omitted = [...fromPath, ...dropped.filter((name) => name in shape)];
  if (omitted.length === 0) return { params, rest: input };
  // zod refuses `omit` on a refined object (a token's address with its chain): the document
  // describes the fields, so the remaining shape is rebuilt, strict when the input is.
  const remaining = Object.fromEntries(Object.entries(shape).filter(([name]) => !omitted.includes(name)));
  const strict = input.def.catchall?._zod.def.type === 'never';
  return { params, rest: strict ? z.strictObject(remaining) : z.object(remaining) };
}

const agentIdField = z.string().min(1).max(64).describe('The agent to act on, one of yours; default: your default agent').optional();

/** `query` plus the optional `agentId` of routes that name their agent that way. */
function withAgentId(query: z.ZodType | undefined): z.ZodType {
  if (query === undefined) return z.object({ agentId: agentIdField });
  return query instanceof z.ZodObject ? z.object({ ...(query.shape as Record<string, z.ZodType>), agentId: agentIdField }) : query;
}

/** The MCP surface (the MCP routes): its endpoints and every enabled tool with its input schema. */
export function mcpToolsExtension(catalog: OperationCatalog, converter: SchemaConverter): JsonObject {
  const tools = mcpToolOperations(catalog).map((operation) => ({
    name: operation.name,
    description: operation.description,
    family: operation.family,
    minScope: operation.minScope,
    principals: [...operation.principals],
    ...(operation.annotations ? { annotations: operation.annotations } : {}),
    inputSchema: converter.convert(operation.input, 'input'),
  }));
  return {
    endpoint: '/mcp/{publicId}',
    events: '/mcp/{publicId}/events/sse',
    protocol: 'JSON-RPC 2.0: tools/list, tools/call',
    auth: 'Authorization: Bearer <API key>',
    note: 'tools/list answers only the tools visible to the credential (scope, principal kind, configuration); read schemas from it.',
    catalogVersion: catalog.version,
    tools,
  };
}
