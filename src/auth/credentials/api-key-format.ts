import { randomBytes } from 'node:crypto';
import type { SecretBox } from '../../../kernel/crypto/secret-box.js';

/**
 * What an API key secret looks like and how it is hashed: one definition for the account
 * service that issues keys and the authenticator that checks them (auth never imports accounts).
 */
export const KEY_PREFIX = 'mcpk_';
const SECRET_PATTERN = /^mcpk_[A-Za-z0-9_-]{43}$/;

/** A fresh secret: the prefix and 32 random bytes (base64url, 43 characters). */
export function newKeySecret(): string {
  return `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** True when `secret` has the shape of a key (cheap: checked before any hashing or lookup). */
export function looksLikeKey(secret: string): boolean {
  return SECRET_PATTERN.test(secret);
}

/** Keyed hash under which a secret is stored and looked up (`box` of purpose `api-key`). */
export function hashKeySecret(box: Pick<SecretBox, 'keyedHash'>, secret: string): string {
  return box.keyedHash(secret);
}
