/**
 * The signers the SDK signs in with. Both are shapes, not classes: a wallet-standard wallet's
 * `signMessage`, a tweetnacl keypair (through `naclSigner`), a viem account, or anything that
 * signs the same way.
 */
import { base58 } from './base58.js';

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

/**
 * A Solana signer over a Web Crypto Ed25519 key pair (`crypto.subtle.generateKey({name: 'Ed25519'},
 * false, ['sign', 'verify'])`): its private key may be non-extractable, e.g. one a browser keeps in
 * IndexedDB, since it is only ever used to sign. The address is the public key's raw bytes in base58.
 */
export async function cryptoKeySigner(keys: CryptoKeyPair): Promise<SolanaSigner> {
  const address = base58(new Uint8Array(await globalThis.crypto.subtle.exportKey('raw', keys.publicKey)));
  return {
    address,
    signMessage: async (message) =>
      new Uint8Array(await globalThis.crypto.subtle.sign('Ed25519', keys.privateKey, new Uint8Array(message))),
  };
}

/** The PKCS #8 wrapping of an Ed25519 private key (RFC 8410) around its 32-byte seed. */
const ED25519_PKCS8_PREFIX = [0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20];

/**
 * A Solana signer over a tweetnacl keypair (`nacl.sign.keyPair()`, or `Keypair` of @solana/web3.js,
 * which has the same two fields). It signs with Web Crypto's Ed25519 (the same signature
 * tweetnacl makes: Ed25519 is deterministic), so the SDK needs no signing library of its own.
 */
export function naclSigner(keypair: { publicKey: Uint8Array | { toBytes(): Uint8Array }; secretKey: Uint8Array }): SolanaSigner {
  const publicKey = keypair.publicKey instanceof Uint8Array ? keypair.publicKey : keypair.publicKey.toBytes();
  // A 64-byte secret key is the seed followed by the public key.
  const pkcs8 = new Uint8Array([...ED25519_PKCS8_PREFIX, ...keypair.secretKey.slice(0, 32)]);
  let key: Promise<CryptoKey> | undefined;
  return {
    address: base58(publicKey),
    signMessage: async (message) => {
      key ??= globalThis.crypto.subtle.importKey('pkcs8', pkcs8, { name: 'Ed25519' }, false, ['sign']);
      return new Uint8Array(await globalThis.crypto.subtle.sign('Ed25519', await key, new Uint8Array(message)));
    },
  };
}

export interface SiweFields {
  domain: string;
  address: string;
  uri: string;
  chainId: number;
  nonce: string;
  issuedAt: Date;
  statement: string;
  /** The SIWA form (Sign In With Agent): SIWA's header and the ERC-8004 identity's two lines after `Version`. */
  agent?: Erc8004Identity;
}

/** An ERC-8004 identity: its token id on an identity registry. */
export interface Erc8004Identity {
  /** The ERC-721 token id (decimal digits when a string). */
  agentId: bigint | number | string;
  /** The registry as `eip155:<chainId>:<0x address>`. */
  registry: string;
}

const REGISTRY = /^eip155:(\d{1,12}):(0x[0-9a-fA-F]{40})$/;

/** The chain of a registry reference; a TypeError for anything but `eip155:<chainId>:<0x address>` (the service would refuse it). */
export function registryChainId(registry: string): number {
  const match = REGISTRY.exec(registry);
  if (!match) throw new TypeError(`Agent Registry must be eip155:<chainId>:<0x address>, got ${registry}`);
  return Number(match[1]);
}

/**
 * An EIP-4361 message (always with a statement, so no blank-line ambiguity), or its SIWA form
 * as the service reads it (src/identity/onboarding/siwa-message.ts): header `… with your Agent
 * account:`, then `Agent ID: <id>` and `Agent Registry: eip155:<chainId>:<address>` after `Version`.
 */
export function siweMessage(fields: SiweFields): string {
  const { agent } = fields;
  return [
    `${fields.domain} wants you to sign in with your ${agent ? 'Agent' : 'Ethereum'} account:`,
    fields.address,
    '',
    fields.statement,
    '',
    `URI: ${fields.uri}`,
    'Version: 1',
    ...(agent ? [`Agent ID: ${BigInt(agent.agentId).toString()}`, `Agent Registry: ${agent.registry}`] : []),
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
    const padded = payload
      .replace(/-/g, '+')
      .replace(/_/g, '/')
      .padEnd(Math.ceil(payload.length / 4) * 4, '=');
    const claims = JSON.parse(atob(padded)) as { exp?: unknown };
    return typeof claims.exp === 'number' ? claims.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}
