/**
 * Freezes a value and everything reachable from it, so that a value shared between
 * callers (a cached store document, a published event) cannot be changed by one of them.
 * Binary views are left as they are: their elements cannot be frozen.
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value) && !ArrayBuffer.isView(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
