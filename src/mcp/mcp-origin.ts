/**
 * Which browser origins may call the MCP endpoint and open its event streams. A page that
 * gets a visitor's browser to resolve its own host name to this service (DNS rebinding, e.g.
 * a service on 127.0.0.1) sends its own Origin; refusing unknown origins stops that page
 * from reaching the service with the browser's network position. Non-browser clients send
 * no Origin and are not concerned: their credential is the whole check.
 *
 * Allowed: the origin of PUBLIC_URL (the console and any page the service serves itself)
 * and the origins an operator lists in MCP_ALLOWED_ORIGINS (`*` there restores "any
 * origin", for browser-based MCP clients hosted elsewhere). Never the request's own `Host`:
 * under DNS rebinding Origin and Host name the attacker's host alike, so comparing them
 * proves nothing.
 */

/** True when a request with this `Origin` header (undefined: none sent) may be served. */
export type OriginCheck = (origin: string | undefined) => boolean;

/** `scheme://host[:port]` in its canonical form (lower case, default port dropped), or undefined. */
function canonicalOrigin(value: string): string | undefined {
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

/** The check for PUBLIC_URL plus the configured origins (`*`: any). */
export function originPolicy(publicUrl: string, configured: readonly string[] = []): OriginCheck {
  if (configured.includes('*')) return () => true;
  const allowed = new Set<string>();
  for (const value of [publicUrl, ...configured]) {
    const origin = canonicalOrigin(value);
    if (origin !== undefined) allowed.add(origin);
  }
  return (origin) => {
    if (origin === undefined) return true;
    // `null` is what sandboxed frames and file:// pages send: no origin we could trust.
    const canonical = canonicalOrigin(origin);
    return canonical !== undefined && allowed.has(canonical);
  };
}

/** Message of the 403 a refused origin gets, on MCP (JSON-RPC) and on the event streams (REST envelope). */
export const ORIGIN_NOT_ALLOWED = 'Origin not allowed';
