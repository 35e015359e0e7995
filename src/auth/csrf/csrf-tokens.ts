import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Synchronizer CSRF tokens (sessions): `<nonce>.<HMAC(binding, nonce)>`.
 * The binding is the session id after login, or the id in the pre-login cookie before
 * it, so a token from one session never passes for another.
 */
export class CsrfTokens {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = createHmac('sha256', 'csrf').update(secret).digest();
  }

  issue(binding: string): string {
    const nonce = randomBytes(16).toString('base64url');
    return `${nonce}.${this.mac(binding, nonce)}`;
  }

  verify(binding: string, token: string): boolean {
    const [nonce, mac, extra] = token.split('.');
    if (!nonce || !mac || extra !== undefined || nonce.length > 64) return false;
    const expected = Buffer.from(this.mac(binding, nonce));
    const given = Buffer.from(mac);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private mac(binding: string, nonce: string): string {
    return createHmac('sha256', this.key).update(`${binding}\n${nonce}`).digest('base64url');
  }
}
