/**
 * Redirect URIs: which a client may register, and whether a request's matches one. OAuth 2.1
 * asks for exact string matching, with one exception for native apps (RFC 8252 §7.3): a
 * loopback redirect may use any port, since the app picks a free one at run time.
 */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Why a redirect URI cannot be registered, or undefined when it can. */
export function redirectUriProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.hash !== '') return 'must not have a fragment';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:') return isLoopback(url) ? undefined : 'must use https (http only for a loopback address)';
  // A native app's private-use scheme (RFC 8252 §7.1): reverse domain notation, never a web or script scheme.
  if (/^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/.test(url.protocol)) return undefined;
  return 'must use https, a loopback http address or a private-use scheme';
}

/** True when the request's `redirect_uri` is one of the registered ones. */
export function redirectUriAllowed(requested: string, registered: readonly string[]): boolean {
  if (registered.includes(requested)) return true;
  let url: URL;
  try {
    url = new URL(requested);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' || !isLoopback(url)) return false;
  return registered.some((candidate) => {
    try {
      const allowed = new URL(candidate);
      return allowed.protocol === 'http:' && isLoopback(allowed) && sameExceptPort(allowed, url);
    } catch {
      return false;
    }
  });
}

/** The host a person sees on the consent page: whom the code goes to. */
export function redirectHostOf(uri: string): string {
  try {
    const url = new URL(uri);
    return url.host === '' ? url.protocol.replace(/:$/, '') : url.host;
  } catch {
    return uri;
  }
}

function isLoopback(url: URL): boolean {
  return LOOPBACK_HOSTS.has(url.hostname);
}

function sameExceptPort(a: URL, b: URL): boolean {
  return a.hostname === b.hostname && a.pathname === b.pathname && a.search === b.search;
}
