import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors/app-error.js';

/** Shortest master secret accepted; matches the config's minimum secret length. */
const MIN_MASTER_SECRET_LENGTH = 32;

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
// A fixed salt is fine for HKDF when the input is already high-entropy; it namespaces
// this service's keys so the same master secret reused elsewhere derives different ones.
const HKDF_SALT = 'agent-runtime-service/secret-box';

/**
 * Authenticated encryption at rest (AES-256-GCM) and keyed hashing (HMAC-SHA256), each
 * under a key derived from one master secret and a `purpose` label. Two boxes with
 * different purposes cannot open each other's values or reproduce each other's hashes,
 * so a leak or misuse in one feature does not cross into another.
 */
export class SecretBox {
  private readonly encryptionKey: Buffer;
  private readonly hashKey: Buffer;

  constructor(
    masterSecret: string,
    readonly purpose: string,
  ) {
    if (typeof masterSecret !== 'string' || masterSecret.length < MIN_MASTER_SECRET_LENGTH) {
      throw AppError.internal(`SecretBox master secret must be at least ${MIN_MASTER_SECRET_LENGTH} characters`);
    }
    if (!purpose) throw AppError.internal('SecretBox purpose must be a non-empty label');
    this.encryptionKey = derive(masterSecret, `${purpose}/aes-256-gcm`);
    this.hashKey = derive(masterSecret, `${purpose}/hmac-sha256`);
  }

  /**
   * Encrypts `plaintext` under a fresh random IV. `aad` (e.g. the owning user id) is
   * authenticated but not stored, so a sealed value copied onto another record fails to open.
   * @returns `v1.<iv>.<ciphertext>.<tag>`, each part base64url.
   */
  seal(plaintext: string | Buffer, aad?: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.encryptionKey, iv, { authTagLength: TAG_BYTES });
    if (aad !== undefined) cipher.setAAD(Buffer.from(aad, 'utf8'));
    const data = typeof plaintext === 'string' ? Buffer.from(plaintext, 'utf8') : plaintext;
    const ciphertext = Buffer.concat([cipher.update(data), cipher.final()]);
    return [VERSION, iv, ciphertext, cipher.getAuthTag()]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  /**
   * Decrypts a value from `seal` with the same `aad`.
   * @throws AppError INTERNAL_SERVICE_ERROR when the value is malformed, tampered with,
   * sealed under another key or purpose, or opened with a different `aad`.
   */
  open(sealed: string, aad?: string): Buffer {
    const parts = typeof sealed === 'string' ? sealed.split('.') : [];
    const [version, ivText, ciphertextText, tagText] = parts;
    if (parts.length !== 4 || version !== VERSION || ivText === undefined || tagText === undefined) {
      throw cannotOpen();
    }
    const iv = Buffer.from(ivText, 'base64url');
    const tag = Buffer.from(tagText, 'base64url');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw cannotOpen();
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.encryptionKey, iv, { authTagLength: TAG_BYTES });
      if (aad !== undefined) decipher.setAAD(Buffer.from(aad, 'utf8'));
      decipher.setAuthTag(tag);
      const ciphertext = Buffer.from(ciphertextText ?? '', 'base64url');
      // `final` throws when the tag does not verify, so no unauthenticated bytes escape.
      return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
    } catch (cause) {
      throw cannotOpen(cause);
    }
  }

  /** `open` decoded as UTF-8, for values sealed from strings. */
  openText(sealed: string, aad?: string): string {
    return this.open(sealed, aad).toString('utf8');
  }

  /** HMAC-SHA256 (hex) under this purpose's key: lookup hashes for API-key secrets and tokens. */
  keyedHash(value: string): string {
    return createHmac('sha256', this.hashKey).update(value, 'utf8').digest('hex');
  }

  /** Same as the module function; here so callers holding a box need no second import. */
  constantTimeEqual(a: string | Buffer, b: string | Buffer): boolean {
    return constantTimeEqual(a, b);
  }
}

/**
 * Compares two secrets without a timing side channel on their content. Only the length
 * can leak, which is public for the hashes and tokens compared here.
 */
export function constantTimeEqual(a: string | Buffer, b: string | Buffer): boolean {
  const left = typeof a === 'string' ? Buffer.from(a, 'utf8') : a;
  const right = typeof b === 'string' ? Buffer.from(b, 'utf8') : b;
  return left.length === right.length && timingSafeEqual(left, right);
}

function derive(masterSecret: string, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(masterSecret, 'utf8'), HKDF_SALT, info, KEY_BYTES));
}

function cannotOpen(cause?: unknown): AppError {
  // One message for every failure so callers (and logs) learn nothing about which check failed.
  return AppError.internal('Sealed value could not be opened', cause);
}
