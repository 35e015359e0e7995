import type { WalletChain } from './venue.port.js';

/**
 * Key custody port (DESIGN "Custodial wallet keys"): generates custodial wallet keys and
 * lends the plaintext key to a signing callback, KMS style. The service stores only the
 * sealed (encrypted) key; adapters decide how it is sealed: a local AES-256-GCM box
 * under the data encryption key, or a cloud KMS.
 *
 * Key formats handed to `withSecretKey` callbacks:
 * - `solana`: the 64-byte ed25519 secret key (32-byte seed followed by the 32-byte
 *   public key), the layout of `Keypair.secretKey` in `@solana/web3.js` and of tweetnacl.
 * - `evm`: the 32-byte secp256k1 private key (`bytesToHex` it for viem's `privateKeyToAccount`).
 */
export interface KeyCustodyPort {
  /**
   * Creates a fresh key for `walletId`. The sealed key is bound to the wallet id (and
   * chain): opening it under another wallet's id fails.
   * @returns the public address (base58 public key on Solana, checksummed 0x address on EVM)
   * and the sealed key to store; never the plaintext.
   */
  generate(chain: WalletChain, walletId: string): Promise<{ address: string; sealedKey: string }>;

  /**
   * Decrypts the key only for the duration of `use` and zero-fills it afterwards, whether
   * `use` resolves or throws. `use` must not keep the buffer (it is wiped).
   * @throws AppError INTERNAL_SERVICE_ERROR when the sealed key cannot be opened for this
   * wallet (tampered with, sealed for another wallet, or under another key).
   */
  withSecretKey<T>(chain: WalletChain, walletId: string, sealedKey: string, use: (secret: Uint8Array) => Promise<T>): Promise<T>;
}
