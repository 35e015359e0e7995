/**
 * Origins of a widget's host pages (chat widget): what an owner lists in
 * `allowedOrigins` and what a browser sends as `Origin`, compared in one normal form —
 * scheme and host lower case, the scheme's default port dropped, no path, query or trailing
 * slash — so `HTTPS://Shop.example.com:443/` and `https://shop.example.com` are one origin,
 * while another scheme or another port is another origin. No wildcards: each host is listed.
 */

const DEFAULT_PORTS: Readonly<Record<string, string>> = { 'http:': '80', 'https:': '443' };

/** The normal form of `value`, or undefined when it is not an http(s) origin (a path, credentials, `null`). */
export function normalizeOrigin(value: string): string | undefined {
  if (value.length > 300) return undefined;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return undefined;
  }
  if (!(url.protocol in DEFAULT_PORTS)) return undefined;
  // An origin names no user, path, query or fragment; one that does is a page address, refused.
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) return undefined;
  const port = url.port && url.port !== DEFAULT_PORTS[url.protocol] ? `:${url.port}` : '';
  return `${url.protocol}//${url.hostname.toLowerCase()}${port}`;
}

/** Whether the `Origin` header names one of the allowed (normalized) origins; a missing or opaque (`null`) origin never does. */
export function originAllowed(origin: string | undefined, allowed: readonly string[]): boolean {
  if (!origin) return false;
  const normal = normalizeOrigin(origin);
  return normal !== undefined && allowed.includes(normal);
}
