/**
 * The opaque cursor of a page served in key order: base64url JSON `{"after": <last key>}`.
 * Resuming after a key (not at an offset) neither skips nor repeats items when others are
 * added or removed between pages.
 */
export function encodeAfterCursor(lastKey: string): string {
  return Buffer.from(JSON.stringify({ after: lastKey }), 'utf8').toString('base64url');
}

/** The key of a cursor `encodeAfterCursor` wrote; undefined for anything else (each surface words its own 400). */
export function decodeAfterCursor(cursor: string): string | undefined {
  try {
    const after = (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { after?: unknown } | null)?.after;
    return typeof after === 'string' ? after : undefined;
  } catch {
    return undefined;
  }
}
