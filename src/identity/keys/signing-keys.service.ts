/**
 * The ES256 keys identity access tokens are signed with (identity access tokens).
 * The service generates them (jose), keeps the private halves sealed with the data key
 * (purpose `identity-signing-key`, the kid as additional data), and keeps one key ring
 * record in the store: one active key, and retired ones until every token they signed has
 * expired. Every change is a compare-and-set of that one record (`updateRecord`), so
 * processes sharing a store agree on the ring; each process re-reads it at most every
 * `RING_CACHE_MS` (and at once when it meets a kid it does not know). A rotation is told to
 * every process on the auth stream (`signing_key.rotated`), so a holder of the active key
 * (the audit chain's signer) drops it at once instead of re-reading the ring to find out.
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import type { SecretBox } from '../../../kernel/crypto/secret-box.js';
import type { ClockPort } from '../../../kernel/ports/clock.port.js';
import type { EventBusPort } from '../../../kernel/ports/event-bus.port.js';
import type { CollectionSpec, StorePort } from '../../../kernel/ports/store.port.js';
import { updateRecord } from '../../../kernel/shared/record-update.js';
import { AUTH_STREAM } from '../../../machines/auth-stream.js';
import { MAX_TOKEN_LIFETIME_S } from '../tokens/token-lifetimes.js';

export const SIGNING_KEYS_COLLECTION = 'identity_signing_keys';
export const SIGNING_KEY_COLLECTIONS: CollectionSpec[] = [{ name: SIGNING_KEYS_COLLECTION, indexes: [] }];
const RING_ID = 'ring';
export const SIGNING_ALG = 'ES256';
/** The auth stream's event that tells every process the active key changed. */
const SIGNING_KEY_ROTATED = 'signing_key.rotated';

/** How long a process trusts its copy of the ring before it reads the store again. */
const RING_CACHE_MS = 5_000;
/** Least time between two extra ring reads for kids this process does not know. */
const MISS_READ_INTERVAL_MS = 1_000;
/**
 * A retired key stays published this long after the longest token lifetime: another process
 * may sign with it until its ring copy is refreshed, and verifiers' clocks may lag a little.
 */
export const RETIREMENT_MARGIN_MS = 60_000 + RING_CACHE_MS;

interface StoredKey {
  kid: string;
  /** Public JWK (kty, crv, x, y), as published. */
  publicJwk: JWK;
  /** The private JWK, sealed (SecretBox, aad = kid). */
  sealedPrivateJwk: string;
  createdAt: number;
  retiredAt?: number;
}

interface KeyRing {
  activeKid: string;
  keys: StoredKey[];
}

/** A key as `ops_signing_keys_*` shows it: never any private material. */
export interface SigningKeySummary {
  kid: string;
  status: 'active' | 'retired';
  createdAt: string;
  retiredAt?: string;
  /** When a retired key leaves the JWKS: the last token it can have signed has expired by then. */
  removeAfter?: string;
}

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
}

/** Key ring of the identity tokens: sign with the active key, verify with any published one. */
export class SigningKeys {
  private ring: { value: KeyRing; readAt: number } | undefined;
  private lastMissRead = Number.NEGATIVE_INFINITY;
  private readonly privateKeys = new Map<string, Promise<CryptoKey>>();
  private readonly publicKeys = new Map<string, Promise<CryptoKey>>();
  private readonly rotationListeners = new Set<() => void>();
  private bus: { publish: EventBusPort['publish']; onError: (error: unknown) => void } | undefined;

  constructor(
    private readonly store: StorePort,
    /** The `identity-signing-key` box. */
    private readonly box: Pick<SecretBox, 'seal' | 'openText'>,
    private readonly clock: ClockPort,
    private readonly maxTokenLifetimeMs = MAX_TOKEN_LIFETIME_S * 1000,
  ) {}

  /** Creates the first key when the store has none (a lost race reads the winner's). */
  async ensureActive(): Promise<void> {
    const existing = await this.store.get<KeyRing>(SIGNING_KEYS_COLLECTION, RING_ID);
    if (existing) return this.remember(existing.data);
    const fresh = await newKey(this.box, this.clock.now());
    const { doc } = await updateRecord<KeyRing>(this.store, { collection: SIGNING_KEYS_COLLECTION, id: RING_ID }, (current) =>
      current ? null : { data: { activeKid: fresh.kid, keys: [fresh] } },
    );
    this.remember(doc!.data);
  }

  /**
   * Hears rotations made by other processes on the auth stream (their ring copy is dropped
   * and `onRotation` listeners are told), and tells them of this one's from now on.
   */
  async listen(bus: Pick<EventBusPort, 'publish' | 'subscribe'>, onError: (error: unknown) => void): Promise<void> {
    this.bus = { publish: (stream, event) => bus.publish(stream, event), onError };
    await bus.subscribe(AUTH_STREAM, (event) => {
      if (event.type !== SIGNING_KEY_ROTATED) return;
      // This process's own rotation comes back too: it already holds the new ring.
      if (this.ring && event.data.activeKid === this.ring.value.activeKid) return;
      this.ring = undefined;
      this.rotated();
    });
  }

  /** `listener` runs whenever the active key changes (here, or in another process as this one learns of it). */
  onRotation(listener: () => void): void {
    this.rotationListeners.add(listener);
  }

  /**
   * Retires the active key and makes a new one active; drops retired keys whose every token
   * has expired. Tokens signed before keep verifying until they expire.
   */
  async rotate(): Promise<SigningKeySummary[]> {
    const now = this.clock.now();
    const fresh = await newKey(this.box, now);
    const { doc } = await updateRecord<KeyRing>(this.store, { collection: SIGNING_KEYS_COLLECTION, id: RING_ID }, (current) => {
      const keys = (current?.data.keys ?? [])
        .map((key) => (key.retiredAt === undefined ? { ...key, retiredAt: now } : key))
        .filter((key) => !this.gone(key, now));
      return { data: { activeKid: fresh.kid, keys: [fresh, ...keys] } };
    });
    this.remember(doc!.data);
    // Committed before it is told: a process that hears of it reads the new ring. Should the
    // bus lose it, holders of the old key still drop it within their bound (the key stays published meanwhile).
    await this.bus
      ?.publish(AUTH_STREAM, { type: SIGNING_KEY_ROTATED, data: { activeKid: doc!.data.activeKid } })
      .catch((error: unknown) => this.bus?.onError(error));
    return this.summaries(doc!.data, now);
  }

  /** The ring as ops see it. */
  async list(): Promise<SigningKeySummary[]> {
    return this.summaries(await this.current(), this.clock.now());
  }

  /** The key new tokens are signed with. */
  async active(): Promise<SigningKey> {
    const ring = await this.current();
    const key = ring.keys.find((candidate) => candidate.kid === ring.activeKid);
    if (!key) throw new Error('signing key ring has no active key');
    return { kid: key.kid, privateKey: await this.privateKeyOf(key) };
  }

  /** Public keys of `/.well-known/jwks.json`: the active one and retired ones still needed. */
  async jwks(): Promise<{ keys: JWK[] }> {
    const now = this.clock.now();
    const ring = await this.current();
    return {
      keys: ring.keys
        .filter((key) => !this.gone(key, now))
        .map((key) => ({ ...key.publicJwk, kid: key.kid, alg: SIGNING_ALG, use: 'sig' })),
    };
  }

  /**
   * The public key of `kid` when it is published; a kid this process does not know makes it
   * read the ring again once (another process may have rotated), an unknown one is undefined.
   */
  async verificationKey(kid: string): Promise<CryptoKey | undefined> {
    const now = this.clock.now();
    let key = (await this.current()).keys.find((candidate) => candidate.kid === kid);
    // At most one extra read a second: made-up kids must not turn into a store read each.
    if (!key && now - this.lastMissRead >= MISS_READ_INTERVAL_MS) {
      this.lastMissRead = now;
      key = (await this.current(true)).keys.find((candidate) => candidate.kid === kid);
    }
    if (!key || this.gone(key, now)) return undefined;
    let cached = this.publicKeys.get(kid);
    if (!cached) {
      cached = importJWK({ ...key.publicJwk, alg: SIGNING_ALG }, SIGNING_ALG) as Promise<CryptoKey>;
      this.publicKeys.set(kid, cached);
    }
    return cached;
  }

  private gone(key: StoredKey, now: number): boolean {
    return key.retiredAt !== undefined && key.retiredAt + this.maxTokenLifetimeMs + RETIREMENT_MARGIN_MS <= now;
  }

  private async current(refresh = false): Promise<KeyRing> {
    const now = this.clock.now();
    if (!refresh && this.ring && now - this.ring.readAt < RING_CACHE_MS) return this.ring.value;
    const doc = await this.store.get<KeyRing>(SIGNING_KEYS_COLLECTION, RING_ID);
    if (!doc) {
      await this.ensureActive();
      return this.ring!.value;
    }
    this.remember(doc.data);
    return doc.data;
  }

  private remember(value: KeyRing): void {
    const before = this.ring?.value.activeKid;
    this.ring = { value, readAt: this.clock.now() };
    if (before !== undefined && before !== value.activeKid) this.rotated();
  }

  private rotated(): void {
    for (const listener of this.rotationListeners) listener();
  }

  private privateKeyOf(key: StoredKey): Promise<CryptoKey> {
    let cached = this.privateKeys.get(key.kid);
    if (!cached) {
      const jwk = JSON.parse(this.box.openText(key.sealedPrivateJwk, key.kid)) as JWK;
      cached = importJWK({ ...jwk, alg: SIGNING_ALG }, SIGNING_ALG) as Promise<CryptoKey>;
      this.privateKeys.set(key.kid, cached);
    }
    return cached;
  }

  private summaries(ring: KeyRing, now: number): SigningKeySummary[] {
    const iso = (ms: number) => new Date(ms).toISOString();
    return ring.keys
      .filter((key) => !this.gone(key, now))
      .map((key) => ({
        kid: key.kid,
        status: key.kid === ring.activeKid ? ('active' as const) : ('retired' as const),
        createdAt: iso(key.createdAt),
        ...(key.retiredAt === undefined
          ? {}
          : { retiredAt: iso(key.retiredAt), removeAfter: iso(key.retiredAt + this.maxTokenLifetimeMs + RETIREMENT_MARGIN_MS) }),
      }));
  }
}

async function newKey(box: Pick<SecretBox, 'seal'>, now: number): Promise<StoredKey> {
  const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  // The RFC 7638 thumbprint: unique per key, and anyone can recompute it from the JWKS.
  const kid = await calculateJwkThumbprint(publicJwk);
  const privateJwk = await exportJWK(privateKey);
  return {
    kid,
    publicJwk: { kty: publicJwk.kty, crv: publicJwk.crv, x: publicJwk.x, y: publicJwk.y } as JWK,
    sealedPrivateJwk: box.seal(JSON.stringify(privateJwk), kid),
    createdAt: now,
  };
}
