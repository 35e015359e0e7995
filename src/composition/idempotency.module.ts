import { SecretBox } from '../../kernel/crypto/secret-box.js';
import { DEFAULT_IDEMPOTENCY_OPTIONS, IDEMPOTENCY_COLLECTION, IdempotencyGuard } from '../operations/idempotency-guard.js';
import type { KeyedHash } from '../operations/request-digest.js';
import { locksDataDir } from './data-dir-lock.js';
import type { FeatureModule, ModuleContext } from './feature-module.types.js';

/**
 * The first answers of guarded calls, replayed under the same idempotency key. The invoker
 * holds the guard and hashes fingerprints with `fingerprintHash`.
 */
export function idempotencyModule(ctx: ModuleContext) {
  const module: FeatureModule = {
    name: 'idempotency',
    definitions: [],
    collections: [IDEMPOTENCY_COLLECTION],
    operations: [],
    bindings: [],
    routers: [],
    dueJobs: [],
  };
  return {
    ...module,
    guard: new IdempotencyGuard(ctx.store, ctx.clock, { ...DEFAULT_IDEMPOTENCY_OPTIONS, soleWriter: isSoleWriter(ctx) }),
    fingerprintHash: idempotencyFingerprints(ctx.secrets.DATA_ENCRYPTION_KEY),
  };
}

/**
 * HMAC-SHA256 of idempotency fingerprints under a key of their own derived from the master
 * key: a stored fingerprint covers every field of a request, and without the key nobody can
 * test guesses of a short value in it (a code, an amount) against it.
 */
function idempotencyFingerprints(masterKey: string): KeyedHash {
  const box = new SecretBox(masterKey, 'idempotency-fingerprint');
  return (text) => box.keyedHash(text);
}

/**
 * Whether this process is the only writer of its store: the embedded store in a data
 * directory locked to this process (data-dir-lock.ts). MongoDB is shared by design.
 */
function isSoleWriter(ctx: ModuleContext): boolean {
  return locksDataDir(ctx.config) && !ctx.config.mongo;
}
