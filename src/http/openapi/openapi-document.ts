/**
 * Assembles the OpenAPI 3.1 document from route descriptions. Everything derivable is
 * derived here, once: path templates, security per method (CSRF on mutating session
 * calls), error responses per auth and inputs, rate-limit and legacy headers.
 */
import { SchemaConverter, objectParameters } from './json-schema.js';
import { LEGACY_HEADERS, RATE_LIMIT_HEADERS, buildComponents, errorResponseRef } from './openapi-components.js';
import type { AuthKind, ErrorStatus, HttpMethod, JsonObject, RouteDoc } from './route-doc.types.js';

export interface OpenApiInput {
  title: string;
  version: string;
  description: string;
  tags: { name: string; description: string }[];
  /** Builds the routes with the document's converter, so hoisted definitions land in its components. */
  routes: (converter: SchemaConverter) => RouteDoc[];
  /** Path items described directly rather than as routes (the MCP tools), built with the same converter. */
  paths?: (converter: SchemaConverter) => Record<string, Record<string, JsonObject>>;
  /** Root `x-` extensions (e.g. `x-mcp`), built with the same converter. */
  extensions?: (converter: SchemaConverter) => Record<`x-${string}`, unknown>;
}

/** OpenAPI 3.1 with JSON Schema 2020-12 schemas. */
export function buildOpenApiDocument(input: OpenApiInput): JsonObject {
  const converter = new SchemaConverter();
  const paths: Record<string, Record<string, JsonObject>> = {};
  const operationIds = new Set<string>();
  for (const route of input.routes(converter)) {
    const path = toOpenApiPath(route.path);
    const operation = describeRoute(route, converter);
    // Ids must be unique; a second binding of the same operation gets a suffix.
    let id = route.operationId ?? defaultOperationId(route.method, route.path);
    for (let n = 2; operationIds.has(id); n++) id = `${route.operationId ?? defaultOperationId(route.method, route.path)}_${n}`;
    operationIds.add(id);
    paths[path] ??= {};
    paths[path][route.method] = { operationId: id, ...operation };
  }
  for (const [path, item] of Object.entries(input.paths?.(converter) ?? {})) paths[path] = { ...paths[path], ...item };
  const extensions = input.extensions?.(converter) ?? {};
  return {
    openapi: '3.1.0',
    // OpenAPI 3.1's own dialect (JSON Schema 2020-12 plus its keywords), named as renderers expect it.
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    info: { title: input.title, version: input.version, description: input.description },
    tags: input.tags,
    paths,
    // Last: routes and extensions may have hoisted schema definitions into the converter.
    components: buildComponents(converter),
    ...extensions,
  };
}

/** Path parameters of an express path, in order (`:agentId`). */
export function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1]!);
}

/** `/a/:b` → `/a/{b}`. */
function toOpenApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function describeRoute(route: RouteDoc, converter: SchemaConverter): JsonObject {
  const names = pathParameterNames(route.path);
  const pathParameters = names.map((name) => {
    const schema = route.params?.[name];
    // The field's description is the parameter's, as `objectParameters` does for the query.
    const { description, ...converted } = schema ? converter.convert(schema, 'input') : { type: 'string' };
    return { name, in: 'path', required: true, ...(typeof description === 'string' ? { description } : {}), schema: converted };
  });
  const query = route.query ? objectParameters(converter.convert(route.query, 'input'), 'query') : [];
  const idempotency = route.idempotent ? [{ $ref: '#/components/parameters/IdempotencyKey' }] : [];
  const parameters = [...pathParameters, ...query, ...idempotency];

  let requestBody: JsonObject | undefined;
  if (route.body) {
    const schema = converter.convert(route.body, 'input');
    const required = route.bodyRequired ?? (Array.isArray(schema.required) && schema.required.length > 0);
    requestBody = { required, content: { [route.bodyContentType ?? 'application/json']: { schema } } };
  }

  const rateLimited = route.auth.some((kind) => kind === 'session' || kind === 'session-no-csrf' || kind === 'api-key');
  const headers = {
    ...(rateLimited ? RATE_LIMIT_HEADERS : {}),
    ...(route.deprecated ? LEGACY_HEADERS : {}),
    ...(route.idempotent ? { 'Idempotent-Replayed': { $ref: '#/components/headers/Idempotent-Replayed' } } : {}),
  };
  const success: JsonObject = {
    description: route.summary,
    ...(Object.keys(headers).length ? { headers } : {}),
    ...(route.response
      ? { content: { [route.contentType ?? 'application/json']: { schema: converter.convert(route.response, 'output') } } }
      : {}),
  };
  const responses: Record<string, JsonObject> = { [String(route.status ?? 200)]: success };
  if (route.createdStatus) responses[String(route.createdStatus)] = { ...success, description: `${route.summary} (created by this call)` };
  for (const status of errorStatuses(route, names.length > 0, rateLimited)) responses[String(status)] = errorResponseRef(status);
  for (const [status, own] of Object.entries(route.ownErrors ?? {})) {
    const schema = converter.convert(own.schema, 'output');
    responses[status] = { description: own.description, content: { [own.contentType ?? 'application/json']: { schema } } };
  }

  return {
    tags: [route.tag],
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    ...(route.deprecated ? { deprecated: true } : {}),
    security: route.auth.map((kind) => requirement(kind, route.method)),
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
    ...route.extensions,
  };
}

/** Failures every route of this kind can answer, plus the route's own; sorted. */
function errorStatuses(route: RouteDoc, hasPathParameters: boolean, rateLimited: boolean): ErrorStatus[] {
  const statuses = new Set<ErrorStatus>(route.errors ?? []);
  // Its own answers say everything else it can fail with.
  if (route.ownErrors) return [...statuses].sort((a, b) => a - b);
  if (route.body || route.query) statuses.add(400);
  if (route.body) for (const status of [413, 415] as const) statuses.add(status);
  if (route.auth.length > 0) statuses.add(401);
  // Wrong credential kind, scope, or a missing/invalid CSRF token.
  if (route.auth.some((kind) => kind !== 'refresh-token' && kind !== 'ops')) statuses.add(403);
  if (hasPathParameters) statuses.add(404);
  // The same key while the first call runs (409), or with another request (422).
  if (route.idempotent) for (const status of [409, 422] as const) statuses.add(status);
  if (rateLimited) statuses.add(429);
  return [...statuses].sort((a, b) => a - b);
}

/** One security requirement object; a session on a mutating method also needs the CSRF header. */
function requirement(kind: AuthKind, method: HttpMethod): Record<string, string[]> {
  switch (kind) {
    case 'session':
      return method === 'get' ? { sessionBearer: [] } : { sessionBearer: [], csrfToken: [] };
    case 'session-no-csrf':
      return { sessionBearer: [] };
    case 'api-key':
      return { apiKeyBearer: [] };
    case 'identity-token':
      return { identityTokenBearer: [] };
    case 'pre-login-csrf':
      return { csrfToken: [], preLoginCsrfCookie: [] };
    case 'ops':
      return { opsBearer: [] };
    case 'refresh-token':
      return { refreshToken: [] };
    case 'refresh-cookie':
      return { refreshCookie: [], csrfToken: [], preLoginCsrfCookie: [] };
  }
}

function defaultOperationId(method: HttpMethod, path: string): string {
  const words = path
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word && word !== 'api' && word !== 'nest')
    .map((word) => word[0]!.toUpperCase() + word.slice(1));
  return `${method}${words.join('')}`;
}
