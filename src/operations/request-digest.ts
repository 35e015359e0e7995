import { hash } from 'node:crypto';
import { redactSecrets } from '../observability/logger.js';
import { isPlainObject } from '../../kernel/shared/is-plain-object.js';

/**
 * Two digests of a call's arguments, for two jobs:
 * - `digestArguments` goes into the audit trail, which owners read: secret-named fields and
 *   TOTP codes are removed first, so it can be shown and compared without revealing them.
 * - `requestFingerprint` tells the idempotency guard whether a key is reused for the same
 *   request: it covers every field (a field the logs treat as secret, like an approval's
 *   `token` address, changes the request as much as any other), under a keyed hash so the
 *   stored value lets nobody test guesses of a short secret in the arguments.
 */

/** Keyed hash (hex) of a canonical text; the composition passes HMAC-SHA256 under a server key. */
export type KeyedHash = (text: string) => string;

/** A digest that identifies the arguments without storing them (or any secret in them). */
export function digestArguments(input: unknown): string {
  // Most reads take no arguments: their digest is known.
  if (isEmptyObject(input ?? {})) return EMPTY_ARGUMENTS_DIGEST;
  return sha256Hex(canonicalJson(auditable(input ?? {})));
}

/** Marks fingerprints that cover every field; the ones stored before (`<name>:<digest>`) lack it. */
const FINGERPRINT_VERSION = 'k1';

/**
 * The idempotency fingerprint of operation `name` called with `args` (the key already
 * removed), and the form records stored before this one took, when that one is just as
 * exact for these arguments (nothing in them was redacted), so a retry across the upgrade
 * still replays. Where the old form dropped a field it is not offered: that request is a
 * 422 rather than a replay of an answer to another request.
 */
export function requestFingerprint(name: string, args: unknown, keyedHash: KeyedHash): { fingerprint: string; legacy?: string } {
  const whole = canonicalJson(args ?? {});
  const fingerprint = `${name}:${FINGERPRINT_VERSION}:${keyedHash(whole)}`;
  const exactBefore = canonicalJson(auditable(args ?? {})) === whole;
  // Nothing was redacted, so the audit digest is the hash of `whole` (no third canonical pass).
  return exactBefore ? { fingerprint, legacy: `${name}:${sha256Hex(whole)}` } : { fingerprint };
}

/**
 * What a keyed order or withdrawal keeps of the request that made it: `kind` and the plain
 * SHA-256 (hex) of the canonical `args`, every field (they carry no secret), so the same
 * idempotency key reused for another request is refused even after its idempotency record expired.
 */
export function keyedRequestDigest(kind: string, args: unknown): string {
  return `${kind}:${sha256Hex(canonicalJson(args ?? {}))}`;
}

/** One-shot `hash` (no Hash object): every audit entry's chain link is one of these. */
export const sha256Hex = (text: string) => hash('sha256', text, 'hex');
const EMPTY_ARGUMENTS_DIGEST = sha256Hex('{}');

/** What the audit digest may cover: secret-named fields (at any depth) and a top-level TOTP `code` removed. */
function auditable(input: unknown): unknown {
  return redactSecrets(withoutTotpCode(input));
}

/** An object `canonicalJson` writes as `{}` (it writes own enumerable string keys). */
function isEmptyObject(value: unknown): boolean {
  return isPlainObject(value) && Object.keys(value).length === 0;
}

/** A 6-digit TOTP `code` is a secret too short to hash: a million tries would recover it from the digest. */
function withoutTotpCode(input: unknown): unknown {
  if (!isPlainObject(input) || !('code' in input)) return input;
  const { code: _code, ...rest } = input;
  return rest;
}

/** JSON with object keys sorted at every depth: equal values, equal text. */
function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}
