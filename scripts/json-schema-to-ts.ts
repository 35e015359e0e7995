/**
 * A small JSON Schema → TypeScript emitter for the SDK's generated types: it knows the
 * keywords `z.toJSONSchema` writes for the catalog's schemas (type, properties, required,
 * additionalProperties, propertyNames, items, prefixItems, enum, const, anyOf, oneOf, allOf,
 * description) and says `unknown` for anything else, never a wrong type.
 */
type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A property name as TypeScript writes it: bare when it is an identifier, else quoted. */
const key = (name: string) => (IDENTIFIER.test(name) ? name : JSON.stringify(name));

/** A JSDoc block of `text` at `indent`; `*\/` inside a description cannot end the comment. */
function doc(text: unknown, indent: string): string {
  if (typeof text !== 'string' || text.trim() === '') return '';
  const lines = text.replaceAll('*/', '*\\/').trim().split('\n');
  return lines.length === 1
    ? `${indent}/** ${lines[0]} */\n`
    : `${indent}/**\n${lines.map((line) => `${indent} * ${line}`.trimEnd()).join('\n')}\n${indent} */\n`;
}

const union = (parts: string[]) => {
  const unique = [...new Set(parts)];
  if (unique.includes('unknown')) return 'unknown';
  return unique.length === 1 ? unique[0]! : unique.map((part) => (part.includes('=>') ? `(${part})` : part)).join(' | ');
};
const wrap = (type: string) => (/[|&]/.test(type) && !/^[{(]/.test(type) ? `(${type})` : type);

/** The TypeScript type of `schema`, nested objects written inline at `indent`. */
export function schemaToType(schema: unknown, indent = ''): string {
  if (schema === true || schema === undefined) return 'unknown';
  if (schema === false) return 'never';
  if (!isObject(schema)) return 'unknown';
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return union(schema.enum.map((value) => JSON.stringify(value)));
  const branches = (Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined) as
    | unknown[]
    | undefined;
  if (branches) {
    // Assertions beside anyOf (portable-schema.ts splits `type` arrays this way) narrow every branch.
    const { anyOf: _a, oneOf: _o, description: _d, default: _f, ...rest } = schema;
    const base = Object.keys(rest).length > 0 ? schemaToType(rest, indent) : undefined;
    const alternatives = union(branches.map((branch) => schemaToType(branch, indent)));
    return base && base !== 'unknown' ? `${wrap(base)} & ${wrap(alternatives)}` : alternatives;
  }
  // `type: [A, B]` (zod's nullable; the service's portable spelling splits it into anyOf) is the union of each.
  if (Array.isArray(schema.type)) return union(schema.type.map((type) => schemaToType({ ...schema, type }, indent)));
  if (Array.isArray(schema.allOf)) return schema.allOf.map((part) => wrap(schemaToType(part, indent))).join(' & ');
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return arrayType(schema, indent);
    case 'object':
      return objectType(schema, indent);
    default:
      return 'unknown';
  }
}

function arrayType(schema: Json, indent: string): string {
  if (Array.isArray(schema.prefixItems)) {
    const fixed = schema.prefixItems.map((item) => schemaToType(item, indent));
    const rest = schema.items === false || schema.items === undefined ? [] : [`...${wrap(schemaToType(schema.items, indent))}[]`];
    return `[${[...fixed, ...rest].join(', ')}]`;
  }
  return `${wrap(schemaToType(schema.items, indent))}[]`;
}

function objectType(schema: Json, indent: string): string {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const inner = `${indent}  `;
  const lines = Object.entries(properties).map(
    ([name, property]) =>
      `${doc(isObject(property) ? property.description : undefined, inner)}${inner}${key(name)}${required.has(name) ? '' : '?'}: ${schemaToType(property, inner)};\n`,
  );
  const extra = schema.additionalProperties;
  if (lines.length === 0) {
    if (extra === false) return 'Record<string, never>';
    const value = extra === undefined || extra === true ? 'unknown' : schemaToType(extra, indent);
    const names =
      isObject(schema.propertyNames) && Array.isArray(schema.propertyNames.enum) ? schemaToType(schema.propertyNames, indent) : 'string';
    return names === 'string' ? `Record<string, ${value}>` : `Partial<Record<${names}, ${value}>>`;
  }
  if (extra !== undefined && extra !== false) lines.push(`${inner}[key: string]: unknown;\n`);
  return `{\n${lines.join('')}${indent}}`;
}
