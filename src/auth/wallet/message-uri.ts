/**
 * The `URI` line of a sign-in message (SIWS and EIP-4361) names the resource the signature is
 * for. Besides `domain`, it must be on this service's own origin (PUBLIC_URL's scheme, host and
 * port): a signature made for another site, or for our host over another scheme, is not a
 * sign-in here. The path is the client's to choose (dapps often sign for `/login`).
 */

/** True when `uri` is an absolute URI on `origin` (`https://agents.example.com`). */
export function isOnServiceOrigin(uri: string, origin: string): boolean {
  try {
    const parsed = new URL(uri);
    // `origin` is "null" for schemes without one (did:, urn:): never ours.
    return parsed.origin !== 'null' && parsed.origin === origin && parsed.username === '' && parsed.password === '';
  } catch {
    return false;
  }
}

/** The origin of `publicUrl` as the URL standard serialises it (lower-case host, default port dropped). */
export function serviceOrigin(publicUrl: string): string {
  const { origin } = new URL(publicUrl);
  if (origin === 'null') throw new RangeError(`publicUrl has no origin: ${publicUrl}`);
  return origin;
}
