/**
 * The signers the SDK signs in with. Both are shapes, not classes: a wallet-standard wallet's
 * `signMessage`, a tweetnacl keypair (through `naclSigner`), a viem account, or anything that
 * signs the same way.
 */
import bs58 from 'bs58';
import nacl from 'tweetnacl';

/** A Solana signer: its base58 address and an ed25519 signature over the message bytes. */
export interface SolanaSigner {
  address: string;
  signMessage(message: Uint8Array): Promise<Uint8Array> | Uint8Array;
}

/** An EVM signer: what a viem `Account` (local or JSON-RPC) offers, EIP-191 personal_sign. */
export interface EvmSigner {
  /** Checksummed 0x address. */
  address: string;
  signMessage(args: { message: string }): Promise<string>;
}

/** A Solana signer over a tweetnacl keypair (`nacl.sign.keyPair()`, or `Keypair` of @solana/web3.js, which has the same two fields). */
export function naclSigner(keypair: { publicKey: Uint8Array | { toBytes(): Uint8Array }; secretKey: Uint8Array }): SolanaSigner {
  const publicKey = keypair.publicKey instanceof Uint8Array ? keypair.publicKey : keypair.publicKey.toBytes();
  return {
    address: bs58.encode(publicKey),
    signMessage: (message) => nacl.sign.detached(message, keypair.secretKey),
  };
}

/** base58, as the Solana login route takes signatures. */
export const base58 = (bytes: Uint8Array): string => bs58.encode(bytes);

export interface SiweFields {
  domain: string;
  address: string;
  uri: string;
  chainId: number;
  nonce: string;
  issuedAt: Date;
  statement: string;
}

/** An EIP-4361 message (always with a statement, so no blank-line ambiguity). */
export function siweMessage(fields: SiweFields): string {
  return [
    `${fields.domain} wants you to sign in with your Ethereum account:`,
    fields.address,
    '',
    fields.statement,
    '',
    `URI: ${fields.uri}`,
    'Version: 1',
    `Chain ID: ${fields.chainId}`,
    `Nonce: ${fields.nonce}`,
    `Issued At: ${fields.issuedAt.toISOString()}`,
  ].join('\n');
}

/** The `exp` claim of a JWT in epoch ms (unverified: only to know when to renew), or undefined. */
export function jwtExpiryMs(token: string): number | undefined {
  const payload = token.split('.')[1];
  if (!payload) return undefined;
  try {
    const padded = payload.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(payload.length / 4) * 4, '=');
    const claims = JSON.parse(atob(padded)) as { exp?: unknown };
    return typeof claims.exp === 'number' ? claims.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}
