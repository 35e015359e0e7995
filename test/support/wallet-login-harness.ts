/**
 * Shared set-up for the wallet sign-in tests: a real MemoryStore + ManualClock and real keys
 * (tweetnacl ed25519 for Solana, a viem local account for EVM), so every signature checked
 * is one a wallet could have produced.
 */
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { Address } from 'viem';
import { createSiweMessage } from 'viem/siwe';
import { expect } from 'vitest';
import { ManualClock } from './manual-clock.adapter.js';
import { MemoryStore } from './memory-store.adapter.js';
import { NonceService } from '../../src/auth/wallet/nonce.service.js';
import { WalletLoginService, type WalletLoginServiceOptions } from '../../src/auth/wallet/wallet-login.service.js';
import type { AppError } from '../../kernel/errors/app-error.js';
import { httpStatusOf } from '../../src/surface-common/http-status.js';

export const DOMAIN = 'agents.example.com';
/** The service's PUBLIC_URL in these tests: its host is DOMAIN. */
export const PUBLIC_URL = `https://${DOMAIN}`;

export interface Harness {
  clock: ManualClock;
  store: MemoryStore;
  nonces: NonceService;
  service: WalletLoginService;
}

export async function makeHarness(options: Partial<WalletLoginServiceOptions> = {}): Promise<Harness> {
  const clock = new ManualClock();
  const store = new MemoryStore(clock);
  const nonces = new NonceService({ store, clock });
  await nonces.init();
  const service = new WalletLoginService({ nonces, clock, publicUrl: PUBLIC_URL, ...options });
  return { clock, store, nonces, service };
}

export interface SolanaWallet {
  address: string;
  /** base58 detached ed25519 signature of the UTF-8 text. */
  sign(message: string): string;
}

export function solanaWallet(): SolanaWallet {
  const keys = nacl.sign.keyPair();
  return {
    address: bs58.encode(keys.publicKey),
    sign: (message) => bs58.encode(nacl.sign.detached(new TextEncoder().encode(message), keys.secretKey)),
  };
}

export function evmAccount(): PrivateKeyAccount {
  return privateKeyToAccount(generatePrivateKey());
}

export interface SiweOptions {
  nonce: string;
  issuedAt: Date;
  domain?: string;
  /** Default `https://<domain>/login`: a path on the service's origin, as dapps sign. */
  uri?: string;
  chainId?: number;
  expirationTime?: Date;
  notBefore?: Date;
}

/** An EIP-4361 message built as a client would (viem's builder, not the code under test). */
export function siweText(address: Address, options: SiweOptions): string {
  const domain = options.domain ?? DOMAIN;
  return createSiweMessage({
    address,
    chainId: options.chainId ?? 1,
    domain,
    uri: options.uri ?? `https://${domain}/login`,
    version: '1',
    nonce: options.nonce,
    issuedAt: options.issuedAt,
    statement: 'Sign in to the agent service',
    ...(options.expirationTime ? { expirationTime: options.expirationTime } : {}),
    ...(options.notBefore ? { notBefore: options.notBefore } : {}),
  });
}

/** Asserts an AppError that REST answers with this HTTP status and message, word for word. */
export async function expectAppError(promise: Promise<unknown>, status: number, message: string): Promise<void> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toMatchObject({ name: 'AppError', message });
  expect(httpStatusOf(error as AppError)).toBe(status);
}
