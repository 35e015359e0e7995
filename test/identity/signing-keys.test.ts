import { compactVerify, createLocalJWKSet, decodeProtectedHeader, jwtVerify, SignJWT } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { MemoryStore } from '../support/memory-store.adapter.js';
import { SecretBox } from '../../kernel/crypto/secret-box.js';
import {
  RETIREMENT_MARGIN_MS,
  SIGNING_KEY_COLLECTIONS,
  SIGNING_KEYS_COLLECTION,
  SigningKeys,
} from '../../src/identity/keys/signing-keys.service.js';
import { MAX_TOKEN_LIFETIME_S } from '../../src/identity/tokens/token-lifetimes.js';

const MASTER = 'a-master-secret-of-at-least-32-characters!';

async function sign(keys: SigningKeys): Promise<string> {
  const { kid, privateKey } = await keys.active();
  return new SignJWT({ scope: 'read' }).setProtectedHeader({ alg: 'ES256', kid }).setIssuedAt().setExpirationTime('1h').sign(privateKey);
}

describe('identity signing keys', () => {
  let clock: ManualClock;
  let store: MemoryStore;
  const box = new SecretBox(MASTER, 'identity-signing-key');

  beforeEach(async () => {
    clock = new ManualClock(Date.now());
    store = new MemoryStore(clock);
    await store.init(SIGNING_KEY_COLLECTIONS);
  });

  it('generates one ES256 key whose private half is stored sealed, never in clear', async () => {
    const keys = new SigningKeys(store, box, clock);
    await keys.ensureActive();
    const doc = await store.get<{ keys: Array<{ sealedPrivateJwk: string; publicJwk: Record<string, unknown> }> }>(
      SIGNING_KEYS_COLLECTION,
      'ring',
    );
    const stored = doc!.data.keys[0]!;
    expect(stored.publicJwk).not.toHaveProperty('d');
    expect(JSON.stringify(doc!.data)).not.toMatch(/"d":/);
    expect(stored.sealedPrivateJwk).toMatch(/^v1\./);
    // Sealed under the data key's purpose: another purpose cannot open it.
    expect(() => new SecretBox(MASTER, 'other').open(stored.sealedPrivateJwk)).toThrow();
    const jwks = await keys.jwks();
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(jwks.keys[0]).not.toHaveProperty('d');
  });

  it('two processes on one store agree on the ring; a rotation on one is seen by the other', async () => {
    const a = new SigningKeys(store, box, clock);
    const b = new SigningKeys(store, box, clock);
    await Promise.all([a.ensureActive(), b.ensureActive()]);
    expect((await a.active()).kid).toBe((await b.active()).kid);
    const before = await sign(b);
    await a.rotate();
    // b verifies a token of the new key at once (unknown kid → it reads the ring again).
    const after = await sign(a);
    const kid = decodeProtectedHeader(after).kid!;
    expect(await b.verificationKey(kid)).toBeDefined();
    const oldKid = decodeProtectedHeader(before).kid!;
    await expect(compactVerify(before, (await a.verificationKey(oldKid))!)).resolves.toBeDefined();
  });

  it('a retired key stays in the JWKS until every token it signed has expired, then leaves', async () => {
    const keys = new SigningKeys(store, box, clock);
    await keys.ensureActive();
    const old = await sign(keys);
    const summary = await keys.rotate();
    expect(summary.map((key) => key.status)).toEqual(['active', 'retired']);
    const jwks = createLocalJWKSet(await keys.jwks());
    await expect(jwtVerify(old, jwks, { currentDate: new Date(clock.now()) })).resolves.toBeDefined();
    await expect(jwtVerify(await sign(keys), jwks, { currentDate: new Date(clock.now()) })).resolves.toBeDefined();

    await clock.advance(MAX_TOKEN_LIFETIME_S * 1000 + RETIREMENT_MARGIN_MS - 1);
    expect((await keys.jwks()).keys).toHaveLength(2);
    await clock.advance(1);
    expect((await keys.jwks()).keys).toHaveLength(1);
    expect(await keys.verificationKey(decodeProtectedHeader(old).kid!)).toBeUndefined();
    // The next rotation drops it from the stored ring too.
    await keys.rotate();
    expect((await keys.list()).map((key) => key.status)).toEqual(['active', 'retired']);
  });

  it('a kid the service never had is unknown', async () => {
    const keys = new SigningKeys(store, box, clock);
    await keys.ensureActive();
    expect(await keys.verificationKey('not-a-kid')).toBeUndefined();
  });
});
