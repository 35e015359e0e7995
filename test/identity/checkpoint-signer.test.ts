/**
 * The audit chain's signer holds the active key: the key ring is read for the first
 * signature, not for every one, and a rotation (here, or in another process as the auth
 * stream tells it) makes the next signature use the new key.
 */
import { compactVerify, decodeProtectedHeader, importJWK } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { InProcessEventBus } from '../../adapters/event-bus/in-process-event-bus.adapter.js';
import { SecretBox } from '../../kernel/crypto/secret-box.js';
import type { StorePort } from '../../kernel/ports/store.port.js';
import { HOLD_KEY_MS, KeyRingSigner } from '../../src/identity/keys/checkpoint-signer.js';
import { SIGNING_KEY_COLLECTIONS, SIGNING_KEYS_COLLECTION, SigningKeys } from '../../src/identity/keys/signing-keys.service.js';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { MemoryStore } from '../support/memory-store.adapter.js';

const box = new SecretBox('a-master-secret-of-at-least-32-characters!', 'identity-signing-key');

/** Counts reads of the key ring made through `store`. */
function countRingReads(store: StorePort): { reads: number } {
  const counter = { reads: 0 };
  const get = store.get.bind(store);
  store.get = ((collection: string, id: string) => {
    if (collection === SIGNING_KEYS_COLLECTION) counter.reads += 1;
    return get(collection, id);
  }) as StorePort['get'];
  return counter;
}

const kidOf = (jws: string) => decodeProtectedHeader(jws).kid;

describe('KeyRingSigner', () => {
  let clock: ManualClock;
  let store: MemoryStore;

  beforeEach(async () => {
    clock = new ManualClock(Date.now());
    store = new MemoryStore(clock);
    await store.init(SIGNING_KEY_COLLECTIONS);
  });

  it('reads the ring for its first signature only, and signs a JWS jose and its own check accept', async () => {
    const keys = new SigningKeys(store, box, clock);
    await keys.ensureActive();
    // The ring as ensureActive left it is stale by now: the first signature reads it.
    await clock.advance(10_000);
    const counter = countRingReads(store);
    const signer = new KeyRingSigner(keys, () => clock.now());
    const signatures: string[] = [];
    for (let i = 0; i < 12; i++) {
      signatures.push(await signer.sign(`{"seq":${i}}`));
      // Well past the ring's own 5 s cache each time.
      await clock.advance(10_000);
    }
    expect(counter.reads).toBe(1);
    const { kid } = await keys.active();
    const header = decodeProtectedHeader(signatures[0]!);
    expect(header).toMatchObject({ alg: 'ES256', kid, jwk: { kty: 'EC', crv: 'P-256' } });
    const { payload } = await compactVerify(signatures[3]!, await importJWK({ ...header.jwk!, alg: 'ES256' }, 'ES256'));
    expect(new TextDecoder().decode(payload)).toBe('{"seq":3}');
    await expect(signer.verify(signatures[11]!)).resolves.toEqual({ payload: '{"seq":11}', knownKey: true, kid });
    // One byte of the payload changed: no longer a signature.
    const [h, p, s] = signatures[5]!.split('.');
    await expect(signer.verify(`${h}.${p!.slice(0, -2)}${p!.slice(-2) === 'fQ' ? 'fA' : 'fQ'}.${s}`)).resolves.toBeUndefined();
  });

  it('signs with the new key right after this process rotates', async () => {
    const keys = new SigningKeys(store, box, clock);
    await keys.ensureActive();
    const signer = new KeyRingSigner(keys, () => clock.now());
    const before = kidOf(await signer.sign('a'));
    const [fresh] = await keys.rotate();
    expect(fresh!.kid).not.toBe(before);
    expect(kidOf(await signer.sign('b'))).toBe(fresh!.kid);
  });

  it('signs with the new key once the auth stream tells of another process’s rotation', async () => {
    const bus = new InProcessEventBus({ clock });
    const here = new SigningKeys(store, box, clock);
    const there = new SigningKeys(store, box, clock);
    const errors: unknown[] = [];
    await here.ensureActive();
    await there.ensureActive();
    await here.listen(bus, (error) => errors.push(error));
    await there.listen(bus, (error) => errors.push(error));
    const signer = new KeyRingSigner(here, () => clock.now());
    const before = kidOf(await signer.sign('a'));
    const counter = countRingReads(store);
    expect(kidOf(await signer.sign('b'))).toBe(before);
    expect(counter.reads).toBe(0);
    const [fresh] = await there.rotate();
    await new Promise((resolve) => setImmediate(resolve));
    expect(kidOf(await signer.sign('c'))).toBe(fresh!.kid);
    expect(errors).toEqual([]);
  });

  it('reads the ring again after holding a key for its bound, should no news of a rotation come', async () => {
    const here = new SigningKeys(store, box, clock);
    const there = new SigningKeys(store, box, clock);
    await here.ensureActive();
    const signer = new KeyRingSigner(here, () => clock.now());
    const before = kidOf(await signer.sign('a'));
    const [fresh] = await there.rotate();
    await clock.advance(HOLD_KEY_MS - 1_000);
    expect(kidOf(await signer.sign('b'))).toBe(before);
    await clock.advance(1_000);
    expect(kidOf(await signer.sign('c'))).toBe(fresh!.kid);
  });
});
