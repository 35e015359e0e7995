import { KeyObject, sign } from 'node:crypto';
import { calculateJwkThumbprint, compactVerify, decodeProtectedHeader, importJWK } from 'jose';
import { SIGNING_ALG, type SigningKeys } from './signing-keys.service.js';

/** A signature check's answer: the signed text, and whether the key is one of the service's own. */
export interface CheckedSignature {
  payload: string;
  /** The signing key is in the service's key ring now (a key retired long ago has left it). */
  knownKey: boolean;
  kid: string;
}

/** Signs texts with the service's active ES256 key and checks such signatures. */
export interface StatementSigner {
  sign(payload: string): Promise<string>;
  /** undefined when the signature does not hold (or the JWS is malformed). */
  verify(jws: string): Promise<CheckedSignature | undefined>;
}

/** The key ring as the signer uses it; `onRotation` tells it to drop the key it holds. */
export type SignerKeys = Pick<SigningKeys, 'active' | 'jwks'> & Partial<Pick<SigningKeys, 'onRotation'>>;

/**
 * How long the signer holds the active key without hearing of a rotation: a bound should the
 * bus lose that news. A retired key stays published an hour after rotation, and a quiet
 * chain's head is signed again 30 minutes after its last signature, so a head signed with a
 * key up to this long retired is signed again with the new one before its key leaves the ring.
 */
export const HOLD_KEY_MS = 10 * 60 * 1000;

/** What signing needs of the active key, made once per key: the private key and the JWS header text. */
interface HeldKey {
  privateKey: KeyObject;
  /** base64url of the protected header, ending in `.`. */
  headerPrefix: string;
}

/**
 * Compact JWS over a text with the identity key ring's active key (the audit chain's signed
 * heads). The public key travels in the JWS header (`jwk`), its RFC 7638 thumbprint being
 * the `kid`: a signature stays checkable after its key left the ring (retired keys are
 * dropped once their tokens expired), and the ring says whether the key was the service's.
 *
 * The active key is read once and held until the ring says it rotated (or `HOLD_KEY_MS`):
 * heads are signed every few seconds, and each signature read the ring and the JWKS before.
 * Signing is node:crypto's synchronous ECDSA over the held header: the same JWS as jose's
 * `CompactSign` (ES256, r‖s), for a third of its CPU, without a thread-pool round trip.
 */
export class KeyRingSigner implements StatementSigner {
  private held: { key: Promise<HeldKey>; until: number } | undefined;

  constructor(
    private readonly keys: SignerKeys,
    private readonly now: () => number = Date.now,
  ) {
    keys.onRotation?.(() => {
      this.held = undefined;
    });
  }

  async sign(payload: string): Promise<string> {
    const held = await this.activeKey();
    const input = held.headerPrefix + Buffer.from(payload, 'utf8').toString('base64url');
    const signature = sign('sha256', Buffer.from(input, 'latin1'), { key: held.privateKey, dsaEncoding: 'ieee-p1363' });
    return `${input}.${signature.toString('base64url')}`;
  }

  private activeKey(): Promise<HeldKey> {
    const now = this.now();
    if (this.held && this.held.until > now) return this.held.key;
    const key = this.readActiveKey();
    const held = { key, until: now + HOLD_KEY_MS };
    this.held = held;
    // A failed read is not held: the next signature reads again.
    key.catch(() => {
      if (this.held === held) this.held = undefined;
    });
    return key;
  }

  private async readActiveKey(): Promise<HeldKey> {
    const { kid, privateKey } = await this.keys.active();
    const ring = await this.keys.jwks();
    const publicJwk = ring.keys.find((key) => key.kid === kid);
    if (!publicJwk) throw new Error('the active signing key is not published');
    const { kty, crv, x, y } = publicJwk;
    const header = JSON.stringify({ alg: SIGNING_ALG, kid, jwk: { kty, crv, x, y } });
    return { privateKey: KeyObject.from(privateKey), headerPrefix: `${Buffer.from(header, 'utf8').toString('base64url')}.` };
  }

  async verify(jws: string): Promise<CheckedSignature | undefined> {
    try {
      const header = decodeProtectedHeader(jws);
      if (header.alg !== SIGNING_ALG || !header.jwk || typeof header.kid !== 'string') return undefined;
      if ((await calculateJwkThumbprint(header.jwk)) !== header.kid) return undefined;
      const key = await importJWK({ ...header.jwk, alg: SIGNING_ALG }, SIGNING_ALG);
      const { payload } = await compactVerify(jws, key, { algorithms: [SIGNING_ALG] });
      const ring = await this.keys.jwks();
      return { payload: new TextDecoder().decode(payload), knownKey: ring.keys.some((k) => k.kid === header.kid), kid: header.kid };
    } catch {
      return undefined;
    }
  }
}
