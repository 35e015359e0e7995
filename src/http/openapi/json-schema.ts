/**
 * zod → JSON Schema 2020-12 (the dialect of OpenAPI 3.1) for embedding in the document.
 * zod puts reused or recursive pieces under a local `$defs` whose `#/$defs/...` refs would
 * not resolve once the schema sits inside the document, so they are hoisted into
 * `components.schemas` and their refs rewritten.
 */
import { z } from 'zod';
import type { JsonObject } from './route-doc.types.js';

const LOCAL_DEF = '#/$defs/';
const COMPONENT = '#/components/schemas/';

/** Collects the converted schemas' definitions for `components.schemas`. */
export class SchemaConverter {
  readonly definitions: Record<string, JsonObject> = {};
  private conversions = 0;

  /**
   * `io: 'input'` for what callers send (defaults optional, before transforms), `'output'`
   * for what the service answers. Unrepresentable parts (refinements, transforms) become
   * `{}` rather than failing the whole document.
   */
  convert(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
    const raw = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      io,
      unrepresentable: 'any',
      reused: 'inline',
      cycles: 'ref',
    }) as JsonObject;
    const { $schema: _dialect, $defs, ...rest } = raw;
    // Names repeat across conversions (`__schema0`), so each conversion gets its own prefix.
    const prefix = `Schema${++this.conversions}_`;
    const componentOf = (name: string) => `${prefix}${name.replace(/[^A-Za-z0-9._-]/g, '_')}`;
    let selfReferenced = false;
    const target = (ref: string): string => {
      // `#` is the root referring to itself (a recursive schema without `$defs`).
      if (ref === '#') selfReferenced = true;
      return COMPONENT + componentOf(ref === '#' ? 'root' : decodeURIComponent(ref.slice(LOCAL_DEF.length)));
    };
    for (const [name, definition] of Object.entries(($defs ?? {}) as Record<string, unknown>)) {
      this.definitions[componentOf(name)] = rewriteRefs(definition, target) as JsonObject;
    }
    const root = rewriteRefs(rest, target) as JsonObject;
    if (!selfReferenced) return root;
    this.definitions[componentOf('root')] = root;
    return { $ref: COMPONENT + componentOf('root') };
  }
}

/** Points local refs (`#/$defs/x`, `#`) at `components.schemas`. */
function rewriteRefs(value: unknown, target: (ref: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteRefs(item, target));
  if (value === null || typeof value !== 'object') return value;
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    const local = key === '$ref' && typeof item === 'string' && (item === '#' || item.startsWith(LOCAL_DEF));
    out[key] = local ? target(item as string) : rewriteRefs(item, target);
  }
  return out;
}

/** The properties of an object schema as parameters (`in: query | path`). */
export function objectParameters(schema: JsonObject, location: 'query' | 'path'): JsonObject[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonObject>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...propertySchema } = property;
    return {
      name,
      in: location,
      required: location === 'path' || required.has(name),
      ...(typeof description === 'string' ? { description } : {}),
      schema: propertySchema,
    };
  });
}
