/** A JSON object: not null, not an array (a body, arguments or params a schema reads fields of). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
