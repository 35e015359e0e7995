import { CompactSign, calculateJwkThumbprint, compactVerify, decodeProtectedHeader, importJWK, type JWK } from 'jose';
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

/**
 * Compact JWS over a text with the identity key ring's active key (the audit chain's signed
 * heads). The public key travels in the JWS header (`jwk`), its RFC 7638 thumbprint being
 * the `kid`: a signature stays checkable after its key left the ring (retired keys are
 * dropped once their tokens expired), and the ring says whether the key was the service's.
 */
export class KeyRingSigner implements StatementSigner {
  constructor(private readonly keys: Pick<SigningKeys, 'active' | 'jwks'>) {}

  async sign(payload: string): Promise<string> {
    const { kid, privateKey } = await this.keys.active();
    const ring = await this.keys.jwks();
    const publicJwk = ring.keys.find((key) => key.kid === kid);
    if (!publicJwk) throw new Error('the active signing key is not published');
    const { kty, crv, x, y } = publicJwk;
    return new CompactSign(new TextEncoder().encode(payload))
      .setProtectedHeader({ alg: SIGNING_ALG, kid, jwk: { kty, crv, x, y } as JWK })
      .sign(privateKey);
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
