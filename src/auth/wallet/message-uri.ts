/**
 * The `domain` and `URI` lines of a sign-in message (SIWS and EIP-4361) name the site the
 * signature is for. A wallet shows them and compares `domain` with the page asking to sign,
 * so they must name that page's origin: the service's own (PUBLIC_URL) for every sign-in but
 * the chat widget's, whose page is the shop's origin (its session's, checked against the
 * bot's allowed origins). A message is accepted only for the one origin its sign-in expects:
 * `domain` exactly its host, `URI` on it (scheme, host and port). The path is the client's to
 * choose (dapps often sign for `/login`).
 */

/** Where a sign-in message must point: `domain` is `origin`'s host (port included). */
export interface SignInTarget {
  /** As the URL standard serialises it: lower-case host, default port dropped. */
  origin: string;
  domain: string;
}

/** The target of sign-ins on `url`'s origin (PUBLIC_URL, or a widget session's origin). */
export function signInTarget(url: string): SignInTarget {
  const parsed = new URL(url);
  // `origin` is "null" for schemes without one (did:, urn:): nothing a page can be on.
  if (parsed.origin === 'null') throw new RangeError(`url has no origin: ${url}`);
  return { origin: parsed.origin, domain: parsed.host };
}

/** True when `uri` is an absolute URI on `origin` (`https://agents.example.com`). */
export function isOnOrigin(uri: string, origin: string): boolean {
  try {
    const parsed = new URL(uri);
    return parsed.origin !== 'null' && parsed.origin === origin && parsed.username === '' && parsed.password === '';
  } catch {
    return false;
  }
}
