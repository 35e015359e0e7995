/**
 * The portability checks MCP clients apply to tool schemas (the MCP Inspector's schema
 * check reports the same four): a bare boolean where a schema is expected, a `type` array,
 * a `$ref` outside the document, and a schema that constrains nothing (`{}`).
 */
type Json = Record<string, unknown>;

/** Keywords whose value may be a boolean (`additionalProperties: false` is fine). */
const BOOLEAN_VALUED = new Set(['additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems']);
const SINGLE_SUBSCHEMA = ['items', 'contains', 'not', 'propertyNames', 'if', 'then', 'else', ...BOOLEAN_VALUED, 'contentSchema'];
const SUBSCHEMA_ARRAYS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', 'dependentSchemas', 'dependencies', '$defs', 'definitions'];
const CONSTRAINING = new Set([
  'type',
  'enum',
  'const',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'format',
  'contentMediaType',
  'contentEncoding',
  'contentSchema',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxContains',
  'minContains',
  'maxProperties',
  'minProperties',
  'required',
  'dependentRequired',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'items',
  'prefixItems',
  'contains',
  'additionalItems',
  'unevaluatedItems',
  'properties',
  'patternProperties',
  'additionalProperties',
  'unevaluatedProperties',
  'propertyNames',
  'dependentSchemas',
  'dependencies',
  '$ref',
  '$dynamicRef',
  '$recursiveRef',
]);

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every finding as `<path>: <what>`; empty when the schema is portable. */
export function lintToolSchema(schema: unknown, root = ''): string[] {
  const findings: string[] = [];
  const walk = (node: unknown, path: string, keyword?: string): void => {
    if (typeof node === 'boolean') {
      if (keyword === undefined || !BOOLEAN_VALUED.has(keyword)) findings.push(`${path}: bare ${node} where a schema is expected`);
      return;
    }
    if (!isObject(node)) return;
    if (Array.isArray(node.type)) findings.push(`${path}: type is an array ${JSON.stringify(node.type)}`);
    if (typeof node.$ref === 'string' && !node.$ref.startsWith('#')) findings.push(`${path}: remote $ref ${node.$ref}`);
    const constrains = Object.keys(node).some((key) => CONSTRAINING.has(key)) || ('if' in node && ('then' in node || 'else' in node));
    if (!constrains && keyword !== 'not') findings.push(`${path}: constrains nothing`);
    for (const key of SUBSCHEMA_MAPS) {
      if (isObject(node[key])) for (const [name, sub] of Object.entries(node[key] as Json)) walk(sub, `${path}.${key}.${name}`, key);
    }
    for (const key of SUBSCHEMA_ARRAYS) {
      if (Array.isArray(node[key])) for (const [i, sub] of (node[key] as unknown[]).entries()) walk(sub, `${path}.${key}[${i}]`, key);
    }
    for (const key of SINGLE_SUBSCHEMA) {
      if (!(key in node)) continue;
      const value = node[key];
      if (key === 'items' && Array.isArray(value)) for (const [i, sub] of value.entries()) walk(sub, `${path}.items[${i}]`, key);
      else walk(value, `${path}.${key}`, key);
    }
  };
  walk(schema, root);
  return findings;
}
