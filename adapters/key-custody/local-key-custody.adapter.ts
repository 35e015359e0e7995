import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { hexToBytes } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { SecretBox } from '../../kernel/crypto/secret-box.js';
import { AppError } from '../../kernel/errors/app-error.js';
import type { KeyCustodyPort } from '../../kernel/ports/key-custody.port.js';
import type { WalletChain } from '../../kernel/ports/venue.port.js';

/** SecretBox purpose of custodial wallet keys: a box of another purpose cannot open them. */
export const CUSTODIAL_KEYS_PURPOSE = 'custodial-wallet-keys';

/** Plaintext key sizes per chain family (see `KeyCustodyPort`). */
const KEY_BYTES: Readonly<Record<WalletChain, number>> = { solana: nacl.sign.secretKeyLength, evm: 32 };

/**
 * Key custody in this process: keys are generated here and sealed with AES-256-GCM under
 * the data encryption key (`SecretBox`), with `<chain>:<walletId>` as additional
 * authenticated data, so a sealed key copied onto another wallet record does not open.
 *
 * Solana keys come from tweetnacl's `sign.keyPair()`: the same ed25519 64-byte secret
 * key layout as `@solana/web3.js` `Keypair.generate()` (`Keypair.fromSecretKey` takes it
 * as is). Unlike a `Keypair`, which keeps a private copy of the key until garbage
 * collection, every copy made here can be zero-filled.
 */
export class LocalKeyCustody implements KeyCustodyPort {
  constructor(private readonly box: SecretBox) {
    if (box.purpose !== CUSTODIAL_KEYS_PURPOSE)
      throw AppError.internal(`LocalKeyCustody needs a SecretBox for '${CUSTODIAL_KEYS_PURPOSE}'`);
  }

  async generate(chain: WalletChain, walletId: string): Promise<{ address: string; sealedKey: string }> {
    return chain === 'solana' ? this.generateSolana(walletId) : this.generateEvm(walletId);
  }

  async withSecretKey<T>(chain: WalletChain, walletId: string, sealedKey: string, use: (secret: Uint8Array) => Promise<T>): Promise<T> {
    const secret = this.box.open(sealedKey, aadOf(chain, walletId));
    try {
      // A key of the wrong size means a record written for another chain: refuse rather than sign with it.
      if (secret.length !== KEY_BYTES[chain]) throw AppError.internal('Sealed value could not be opened');
      return await use(new Uint8Array(secret.buffer, secret.byteOffset, secret.length));
    } finally {
      secret.fill(0);
    }
  }

  private generateSolana(walletId: string): { address: string; sealedKey: string } {
    const pair = nacl.sign.keyPair();
    const secret = Buffer.from(pair.secretKey);
    try {
      return { address: bs58.encode(pair.publicKey), sealedKey: this.box.seal(secret, aadOf('solana', walletId)) };
    } finally {
      secret.fill(0);
      pair.secretKey.fill(0);
    }
  }

  private generateEvm(walletId: string): { address: string; sealedKey: string } {
    // viem hands the key out as a hex string, which cannot be wiped; the bytes sealed from it are.
    const privateKey = generatePrivateKey();
    const secret = hexToBytes(privateKey);
    try {
      return {
        address: privateKeyToAccount(privateKey).address,
        sealedKey: this.box.seal(Buffer.from(secret.buffer, secret.byteOffset, secret.length), aadOf('evm', walletId)),
      };
    } finally {
      secret.fill(0);
    }
  }
}

function aadOf(chain: WalletChain, walletId: string): string {
  return `custodial-wallet:${chain}:${walletId}`;
}
