/**
 * The backup's secrets section: sealed with AES-256-GCM under a key derived from the
 * operator's passphrase with scrypt. The archive is meant to leave the machine (another disk,
 * object storage), and the secrets it carries (DATA_ENCRYPTION_KEY above all, which unseals the
 * custodial wallets' keys and checks every API key) would make a copy of it as good as the
 * service itself; sealed, a stolen archive is a store whose secret fields are still sealed.
 */
import { createCipheriv, createDecipheriv, randomBytes, scrypt } from 'node:crypto';
import { z } from 'zod';

/** scrypt cost: 2^17 × 8 × 128 bytes = 128 MiB and a fraction of a second, per backup and per restore. */
const COST = { N: 2 ** 17, r: 8, p: 1 } as const;
/** The largest cost a restore accepts from an archive (256 MiB): a doctored one must not ask for gigabytes. */
const MAX_COST_N = 2 ** 18;

export const sealSchema = z.object({
  cipher: z.literal('aes-256-gcm'),
  kdf: z.object({
    name: z.literal('scrypt'),
    N: z
      .number()
      .int()
      .min(2 ** 14)
      .max(MAX_COST_N)
      .refine((n) => (n & (n - 1)) === 0, 'must be a power of two'),
    r: z.number().int().min(1).max(8),
    p: z.number().int().min(1).max(4),
    salt: z.string().regex(/^[0-9a-f]{32}$/),
  }),
  iv: z.string().regex(/^[0-9a-f]{24}$/),
  tag: z.string().regex(/^[0-9a-f]{32}$/),
});
export type Seal = z.infer<typeof sealSchema>;

/** A passphrase shorter than this is refused for a new backup. */
export const MIN_PASSPHRASE_LENGTH = 12;

export class WrongPassphraseError extends Error {}

/** Encrypts `plain`; `bound` (the archive's identity) is authenticated with it, so a secrets section moved to another archive does not open. */
export async function seal(plain: Buffer, passphrase: string, bound: Buffer): Promise<{ sealed: Buffer; seal: Seal }> {
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const key = await derive(passphrase, salt, COST);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(bound);
  const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
  return {
    sealed,
    seal: {
      cipher: 'aes-256-gcm',
      kdf: { name: 'scrypt', ...COST, salt: salt.toString('hex') },
      iv: iv.toString('hex'),
      tag: cipher.getAuthTag().toString('hex'),
    },
  };
}

/** Decrypts a section whose bytes are known intact (checksum): a failure then means another passphrase. */
export async function unseal(sealed: Buffer, passphrase: string, bound: Buffer, how: Seal): Promise<Buffer> {
  const key = await derive(passphrase, Buffer.from(how.kdf.salt, 'hex'), how.kdf);
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(how.iv, 'hex'));
  decipher.setAAD(bound);
  decipher.setAuthTag(Buffer.from(how.tag, 'hex'));
  try {
    return Buffer.concat([decipher.update(sealed), decipher.final()]);
  } catch {
    throw new WrongPassphraseError('wrong passphrase: the secrets section does not open with it');
  }
}

function derive(passphrase: string, salt: Buffer, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(passphrase.normalize('NFC'), salt, 32, { ...cost, maxmem: 256 * cost.N * cost.r + 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}
