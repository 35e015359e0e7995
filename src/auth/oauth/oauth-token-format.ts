import { randomBytes } from 'node:crypto';
import type { SecretBox } from '../../../kernel/crypto/secret-box.js';

/**
 * What the OAuth secrets look like: `<prefix><grantId>.<43 random base64url characters>`.
 * The grant's id inside lets a token be checked by one read of its grant (no index of
 * hashes to keep), and the prefix tells an access token from an API key or a JWT before
 * anything is decoded. Only keyed hashes of them are stored.
 */
const OAUTH_ACCESS_PREFIX = 'mcpat_';
const OAUTH_REFRESH_PREFIX = 'mcprt_';
const OAUTH_CODE_PREFIX = 'mcpac_';

export type OAuthSecretKind = 'access' | 'refresh' | 'code';
const PREFIX: Record<OAuthSecretKind, string> = { access: OAUTH_ACCESS_PREFIX, refresh: OAUTH_REFRESH_PREFIX, code: OAUTH_CODE_PREFIX };

const GRANT_ID = /^grt_[A-Za-z0-9_-]{22}$/;
const SECRET = /^(mcpat|mcprt|mcpac)_(grt_[A-Za-z0-9_-]{22})\.[A-Za-z0-9_-]{43}$/;

/** A new grant id (`grt_` and 16 random bytes). */
export function newGrantId(): string {
  return `grt_${randomBytes(16).toString('base64url')}`;
}

export function isGrantId(value: string): boolean {
  return GRANT_ID.test(value);
}

/** A fresh secret of `kind` for `grantId`. */
export function newOAuthSecret(kind: OAuthSecretKind, grantId: string): string {
  return `${PREFIX[kind]}${grantId}.${randomBytes(32).toString('base64url')}`;
}

/** The grant a secret of `kind` names, or undefined when it does not have that shape. */
export function grantIdOf(kind: OAuthSecretKind, secret: string): string | undefined {
  const match = SECRET.exec(secret);
  return match && `${match[1]}_` === PREFIX[kind] ? match[2] : undefined;
}

/** True for a bearer that is one of our access tokens by its shape (cheap: before any hashing). */
export function looksLikeAccessToken(token: string): boolean {
  return token.startsWith(OAUTH_ACCESS_PREFIX);
}

/** Keyed hash under which a code or token is stored (`box` of purpose `oauth-token`). */
export function hashOAuthSecret(box: Pick<SecretBox, 'keyedHash'>, secret: string): string {
  return box.keyedHash(secret);
}
