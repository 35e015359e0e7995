/**
 * Structural checks of an OpenAPI 3.1 document, without a network fetch of the official
 * meta-schema: what a code generator trips over first (missing responses, undeclared path
 * parameters, duplicate operation ids, dangling `$ref`s). Used by the tests on both the
 * built and the served document, so an operation added anywhere is checked too.
 */
import type { JsonObject } from '../../src/http/openapi/route-doc.types.js';

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
const STATUS = /^([1-5](\d\d|XX)|default)$/;
const COMPONENT_NAME = /^[a-zA-Z0-9._-]+$/;

/** The value at a local JSON pointer (`#/components/schemas/X`), or undefined. */
export function resolvePointer(document: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = document;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Every problem found; empty when the document passes. */
export function openApiProblems(document: JsonObject): string[] {
  const problems: string[] = [];
  const info = document.info as JsonObject | undefined;
  if (document.openapi !== '3.1.0') problems.push(`openapi is ${String(document.openapi)}, expected 3.1.0`);
  if (typeof info?.title !== 'string' || typeof info.version !== 'string') problems.push('info.title and info.version are required');
  const components = (document.components ?? {}) as Record<string, Record<string, unknown>>;
  for (const [kind, entries] of Object.entries(components)) {
    for (const name of Object.keys(entries)) if (!COMPONENT_NAME.test(name)) problems.push(`components.${kind} name ${name} is invalid`);
  }
  const schemes = new Set(Object.keys(components.securitySchemes ?? {}));
  const tags = new Set(((document.tags ?? []) as { name: string }[]).map((tag) => tag.name));
  const operationIds = new Set<string>();

  for (const [path, item] of Object.entries((document.paths ?? {}) as Record<string, JsonObject>)) {
    if (!path.startsWith('/') || path.includes('/:')) problems.push(`path ${path} is not an OpenAPI path template`);
    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!).sort();
    for (const [method, value] of Object.entries(item)) {
      const where = `${method.toUpperCase()} ${path}`;
      if (!METHODS.has(method)) {
        problems.push(`${where}: unknown method`);
        continue;
      }
      const operation = value as JsonObject;
      const responses = (operation.responses ?? {}) as Record<string, JsonObject>;
      if (Object.keys(responses).length === 0) problems.push(`${where}: no responses`);
      for (const [status, response] of Object.entries(responses)) {
        if (!STATUS.test(status)) problems.push(`${where}: response key ${status}`);
        const resolved = (typeof response.$ref === 'string' ? resolvePointer(document, response.$ref) : response) as JsonObject | undefined;
        if (typeof resolved?.description !== 'string') problems.push(`${where}: response ${status} has no description`);
      }
      const parameters = ((operation.parameters ?? []) as JsonObject[]).map((p) =>
        typeof p.$ref === 'string' ? (resolvePointer(document, p.$ref) as JsonObject) : p,
      );
      const declared = parameters.filter((p) => p?.in === 'path');
      if (declared.some((p) => p.required !== true)) problems.push(`${where}: path parameters must be required`);
      const names = declared.map((p) => String(p.name)).sort();
      if (JSON.stringify(names) !== JSON.stringify(templated))
        problems.push(`${where}: path parameters ${names} differ from template ${templated}`);
      for (const p of parameters)
        if (!p || typeof p.name !== 'string' || !p.in || (!p.schema && !p.content)) problems.push(`${where}: incomplete parameter`);
      // A field is sent in one place: a path parameter listed again in the query misleads clients and generators.
      const named = parameters.filter((p) => p?.in === 'path' || p?.in === 'query').map((p) => p.name as string);
      for (const name of new Set(named.filter((n, i) => named.indexOf(n) !== i)))
        problems.push(`${where}: parameter ${name} is both in the path and in the query`);
      if (typeof operation.operationId === 'string') {
        if (operationIds.has(operation.operationId)) problems.push(`${where}: duplicate operationId ${operation.operationId}`);
        operationIds.add(operation.operationId);
      }
      for (const tag of (operation.tags ?? []) as string[]) if (!tags.has(tag)) problems.push(`${where}: undeclared tag ${tag}`);
      for (const requirement of (operation.security ?? []) as Record<string, unknown>[]) {
        for (const name of Object.keys(requirement)) if (!schemes.has(name)) problems.push(`${where}: unknown security scheme ${name}`);
      }
    }
  }
  collectRefs(document, (ref) => {
    if (resolvePointer(document, ref) === undefined) problems.push(`$ref ${ref} does not resolve`);
  });
  return problems;
}

function collectRefs(value: unknown, visit: (ref: string) => void): void {
  if (Array.isArray(value)) {
    for (const item of value) collectRefs(item, visit);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  for (const [key, item] of Object.entries(value)) {
    if (key === '$ref' && typeof item === 'string') visit(item);
    else collectRefs(item, visit);
  }
}
