/**
 * An OpenID-style identity provider on a real localhost port for onboarding tests: jose signs
 * its tokens, `/jwks.json` serves its public keys. It rotates its key on demand, counts JWKS
 * fetches, and can be made slow (to exercise the service's JWKS timeout).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

export class TestIdentityProvider {
  jwksFetches = 0;
  /** Milliseconds the JWKS answer is held back. */
  delayMs = 0;
  private keys: Array<{ kid: string; privateKey: CryptoKey; publicJwk: JWK }> = [];
  private kidSeq = 0;

  private constructor(
    private readonly server: Server,
    readonly issuer: string,
    readonly audience: string,
  ) {}

  static async start(audience = 'agent-service'): Promise<TestIdentityProvider> {
    let provider: TestIdentityProvider | undefined;
    const server = createServer((req, res) => {
      if (req.url !== '/jwks.json') return void res.writeHead(404).end();
      provider!.jwksFetches++;
      const body = JSON.stringify({ keys: provider!.keys.map((key) => ({ ...key.publicJwk, kid: key.kid, alg: 'ES256', use: 'sig' })) });
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(body), provider!.delayMs);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    provider = new TestIdentityProvider(server, base, audience);
    await provider.rotate();
    return provider;
  }

  get jwksUrl(): string {
    return `${this.issuer}/jwks.json`;
  }

  /** A new signing key; the old one is dropped from the JWKS (a provider that rotated). */
  async rotate(): Promise<string> {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const kid = `provider-key-${++this.kidSeq}`;
    this.keys = [{ kid, privateKey, publicJwk: await exportJWK(publicKey) }];
    return kid;
  }

  /** A token for `sub`; `overrides` change claims (a wrong audience, an old expiry). */
  async token(sub: string, overrides: { audience?: string; issuer?: string; expiresAt?: number } = {}): Promise<string> {
    const key = this.keys[0]!;
    return new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: key.kid })
      .setIssuer(overrides.issuer ?? this.issuer)
      .setAudience(overrides.audience ?? this.audience)
      .setSubject(sub)
      .setIssuedAt()
      .setExpirationTime(overrides.expiresAt ?? '10m')
      .sign(key.privateKey);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
