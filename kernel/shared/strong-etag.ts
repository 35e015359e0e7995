import { createHash } from 'node:crypto';

/** A strong ETag for a body served as it is: its SHA-256, base64url, cut to 27 characters (160 bits). */
export function strongEtag(body: string | Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/** RFC 9110 13.1.2: `If-None-Match` is `*` or a list of tags, compared weakly (a `W/` tag matches its strong twin). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
