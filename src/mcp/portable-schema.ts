/**
 * Rewrites a JSON Schema into the spelling every MCP client accepts, without changing what
 * it accepts: clients that map tool schemas onto a single-`type` dialect (Gemini's function
 * declarations, some agents' validators) reject `type: ["string", "null"]`, and the MCP
 * Inspector flags it and `{}` as unportable. zod writes both (`.nullable()`, `z.unknown()`).
 */
type Json = Record<string, unknown>;

/** Keywords whose value is a schema or a boolean; `{}` there means exactly `true`. */
const BOOLEAN_VALUED = new Set(['additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems']);
const SINGLE = ['items', 'contains', 'not', 'propertyNames', 'if', 'then', 'else', 'contentSchema', ...BOOLEAN_VALUED];
const ARRAYS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const MAPS = ['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions'];
/** Said of the value as a whole: stays beside an `anyOf` rather than inside each branch. */
const ANNOTATIONS = new Set(['title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly', '$comment']);

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The same schema with type arrays split into `anyOf` branches and `{}` in boolean positions as `true`. */
export function portableSchema(schema: Json): Json {
  return rewrite(schema) as Json;
}

function rewrite(node: unknown, keyword?: string): unknown {
  if (!isObject(node)) return node;
  if (keyword !== undefined && BOOLEAN_VALUED.has(keyword) && Object.keys(node).length === 0) return true;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (MAPS.includes(key) && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, rewrite(sub)]));
    } else if (ARRAYS.includes(key) && Array.isArray(value)) {
      out[key] = value.map((sub) => rewrite(sub));
    } else if (key === 'items' && Array.isArray(value)) {
      out[key] = value.map((sub) => rewrite(sub));
    } else if (SINGLE.includes(key)) {
      out[key] = rewrite(value, key);
    } else {
      out[key] = value;
    }
  }
  return Array.isArray(out.type) ? splitTypes(out, out.type as unknown[]) : out;
}

/**
 * `{type: [A, B], ...}` → `{anyOf: [{type: A, ...}, {type: B, ...}]}`: every assertion is
 * copied into every branch, so each branch is the original schema narrowed to one type and
 * their union accepts exactly what it did (a string keyword is ignored by the null branch).
 */
function splitTypes(node: Json, types: unknown[]): Json {
  const annotations: Json = {};
  const assertions: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'type' || key === 'anyOf') continue;
    (ANNOTATIONS.has(key) ? annotations : assertions)[key] = value;
  }
  const byType = { anyOf: types.map((type) => ({ ...assertions, type })) };
  // A schema that had an anyOf of its own must hold both: the two go under allOf.
  return 'anyOf' in node ? { ...annotations, allOf: [{ anyOf: node.anyOf }, byType] } : { ...annotations, ...byType };
}
