import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { bytesToHex, recoverMessageAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { CUSTODIAL_KEYS_PURPOSE, LocalKeyCustody } from '../../adapters/key-custody/local-key-custody.adapter.js';
import { SecretBox } from '../../kernel/crypto/secret-box.js';
import type { WalletChain } from '../../kernel/ports/venue.port.js';

const MASTER = 'a-master-secret-of-at-least-32-characters!';
const custody = () => new LocalKeyCustody(new SecretBox(MASTER, CUSTODIAL_KEYS_PURPOSE));
const message = new TextEncoder().encode('sign me');

/** A copy of the plaintext key, taken inside the callback (the lent buffer is wiped after). */
async function reveal(subject: LocalKeyCustody, chain: WalletChain, walletId: string, sealedKey: string): Promise<Uint8Array> {
  return subject.withSecretKey(chain, walletId, sealedKey, async (secret) => Uint8Array.from(secret));
}

/** Every text form a leaked key could take in a log line or a stored record. */
function encodings(secret: Uint8Array): string[] {
  const bytes = Buffer.from(secret);
  return [
    bytes.toString('hex'),
    bytes.toString('hex').toUpperCase(),
    bytes.toString('base64'),
    bytes.toString('base64url'),
    bs58.encode(bytes),
  ];
}

describe('LocalKeyCustody', () => {
  it('Solana: the decrypted key signs, and the signature verifies against the wallet address', async () => {
    const keys = custody();
    const { address, sealedKey } = await keys.generate('solana', 'wal_sol');
    expect(bs58.decode(address)).toHaveLength(32);
    const signature = await keys.withSecretKey('solana', 'wal_sol', sealedKey, async (secret) => {
      expect(secret).toHaveLength(64);
      return nacl.sign.detached(message, secret);
    });
    expect(nacl.sign.detached.verify(message, signature, bs58.decode(address))).toBe(true);
    // The layout is web3.js's: a venue can rebuild the Keypair from the lent key.
    const rebuilt = await keys.withSecretKey('solana', 'wal_sol', sealedKey, async (secret) =>
      Keypair.fromSecretKey(secret).publicKey.toBase58(),
    );
    expect(rebuilt).toBe(address);
  });

  it('EVM: the decrypted key is the account of the stored checksummed address', async () => {
    const keys = custody();
    const { address, sealedKey } = await keys.generate('evm', 'wal_evm');
    expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(address).not.toBe(address.toLowerCase());
    const signed = await keys.withSecretKey('evm', 'wal_evm', sealedKey, async (secret) => {
      expect(secret).toHaveLength(32);
      const account = privateKeyToAccount(bytesToHex(secret));
      expect(account.address).toBe(address);
      return account.signMessage({ message: 'sign me' });
    });
    expect(await recoverMessageAddress({ message: 'sign me', signature: signed })).toBe(address);
  });

  it('every wallet gets its own key', async () => {
    const keys = custody();
    const addresses = new Set(await Promise.all(['a', 'b', 'c'].map(async (id) => (await keys.generate('solana', id)).address)));
    expect(addresses.size).toBe(3);
  });

  it("swapping two wallets' sealed keys makes decryption fail, and so does another chain or another master secret", async () => {
    const keys = custody();
    const first = await keys.generate('solana', 'wal_1');
    const second = await keys.generate('solana', 'wal_2');
    const evm = await keys.generate('evm', 'wal_3');
    const never = async () => 'opened';
    await expect(keys.withSecretKey('solana', 'wal_1', second.sealedKey, never)).rejects.toMatchObject({
      code: 'INTERNAL_SERVICE_ERROR',
      message: 'Sealed value could not be opened',
    });
    await expect(keys.withSecretKey('solana', 'wal_2', first.sealedKey, never)).rejects.toMatchObject({
      message: 'Sealed value could not be opened',
    });
    await expect(keys.withSecretKey('solana', 'wal_3', evm.sealedKey, never)).rejects.toMatchObject({
      message: 'Sealed value could not be opened',
    });
    const stranger = new LocalKeyCustody(new SecretBox(`${MASTER}-other`, CUSTODIAL_KEYS_PURPOSE));
    await expect(stranger.withSecretKey('solana', 'wal_1', first.sealedKey, never)).rejects.toMatchObject({
      message: 'Sealed value could not be opened',
    });
    // The right pairing still opens: the failures above are the binding, not a broken box.
    await expect(keys.withSecretKey('solana', 'wal_1', first.sealedKey, never)).resolves.toBe('opened');
  });

  it('refuses a box made for another purpose', () => {
    expect(() => new LocalKeyCustody(new SecretBox(MASTER, 'api-keys'))).toThrow(/custodial-wallet-keys/);
  });

  it('wipes the lent key after the callback, whether it resolves or throws', async () => {
    const keys = custody();
    const { sealedKey } = await keys.generate('solana', 'wal_w');
    let lent: Uint8Array | undefined;
    await keys.withSecretKey('solana', 'wal_w', sealedKey, async (secret) => {
      lent = secret;
      expect(secret.some((byte) => byte !== 0)).toBe(true);
    });
    expect(lent!.every((byte) => byte === 0)).toBe(true);

    let failed: Uint8Array | undefined;
    const failing = keys.withSecretKey('solana', 'wal_w', sealedKey, async (secret) => {
      failed = secret;
      throw new Error('signing failed');
    });
    await expect(failing).rejects.toThrow('signing failed');
    expect(failed!.every((byte) => byte === 0)).toBe(true);
  });

  it('the sealed key contains the secret in no encoding, and sealing twice never repeats', async () => {
    const keys = custody();
    for (const chain of ['solana', 'evm'] as const) {
      const { sealedKey, address } = await keys.generate(chain, `wal_${chain}`);
      const secret = await reveal(keys, chain, `wal_${chain}`, sealedKey);
      // The Solana secret key ends with the public key (the address): only the seed half is secret.
      const secretPart = chain === 'solana' ? secret.slice(0, 32) : secret;
      for (const form of [...encodings(secret), ...encodings(secretPart)]) expect(sealedKey).not.toContain(form);
      expect(sealedKey).not.toContain(address);
      expect(sealedKey).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    }
    const one = await keys.generate('evm', 'same');
    const two = await keys.generate('evm', 'same');
    expect(one.sealedKey).not.toBe(two.sealedKey);
  });
});
