import { createHash } from 'node:crypto';

/** A strong ETag for a body served as it is: its SHA-256, base64url, cut to 27 characters (160 bits). */
export function strongEtag(body: string | Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}
