/**
 * Single-use sign-in nonces (sessions: single use, 5 minutes). A nonce lives in
 * the store until its expiry; consuming it is a compare-and-set write that turns it into a
 * tombstone, so a replay inside the window is told apart from an unknown nonce.
 */
import type { WalletChain } from '../../../kernel/vocabulary/chains.js';
import { randomBytes } from 'node:crypto';
import { isAppError } from '../../../kernel/errors/app-error.js';
import type { ClockPort } from '../../../kernel/ports/clock.port.js';
import type { CollectionSpec, StoredDocument, StorePort } from '../../../kernel/ports/store.port.js';
import { ISSUED_BEFORE_NONCE_SKEW_MS } from './message-times.js';
import { WALLET_AUTH_MESSAGES, walletAuthError } from './wallet-auth.errors.js';

/** The wallet family a sign-in message is for. */
export type WalletKind = WalletChain;

const NONCES = 'auth_nonces';

/** Collections this service needs; the composition root passes them to `store.init`. */
export const NONCE_COLLECTIONS: CollectionSpec[] = [{ name: NONCES, indexes: [] }];

/** EIP-4361 `nonce = 8*( ALPHA / DIGIT )`, capped so a store id stays small. */
const NONCE_PATTERN = /^[A-Za-z0-9]{8,128}$/;

/** Five minutes, as the contract says. */
const DEFAULT_NONCE_TTL_MS = 5 * 60_000;

interface NonceRecord {
  kind: WalletKind;
  /** Set when the nonce was requested for one wallet; consume then requires the same one. */
  walletAddress?: string;
  status: 'issued' | 'consumed';
  issuedAt: number;
  consumedAt?: number;
}

export interface IssuedNonce {
  nonce: string;
  /** ISO 8601; also the SIWS message's `Expiration Time`. */
  expiresAt: string;
  /** Epoch ms of the same instant, for callers that compute with it. */
  expiresAtMs: number;
}

export interface ConsumedNonce {
  kind: WalletKind;
  walletAddress?: string;
}

export interface NonceServiceOptions {
  store: StorePort;
  clock: ClockPort;
  ttlMs?: number;
}

/** Issues and atomically consumes wallet sign-in nonces. */
export class NonceService {
  private readonly store: StorePort;
  private readonly clock: ClockPort;
  readonly ttlMs: number;

  constructor({ store, clock, ttlMs = DEFAULT_NONCE_TTL_MS }: NonceServiceOptions) {
    if (!Number.isInteger(ttlMs) || ttlMs <= 0) throw new RangeError('ttlMs must be a positive integer');
    this.store = store;
    this.clock = clock;
    this.ttlMs = ttlMs;
  }

  /** Declares the nonce collection; call once before use (idempotent). */
  async init(): Promise<void> {
    await this.store.init(NONCE_COLLECTIONS);
  }

  /** A fresh nonce, stored with its TTL and, when given, the wallet it was requested for. */
  async issue(kind: WalletKind, walletAddress?: string): Promise<IssuedNonce> {
    // 128 random bits as hex: alphanumeric and ≥ 8 chars as EIP-4361 requires, and safe in
    // a SIWS line and a store id without escaping.
    const nonce = randomBytes(16).toString('hex');
    const issuedAt = this.clock.now();
    const expiresAtMs = issuedAt + this.ttlMs;
    const data: NonceRecord = {
      kind,
      status: 'issued',
      issuedAt,
      ...(walletAddress === undefined ? {} : { walletAddress }),
    };
    await this.store.put<NonceRecord>(NONCES, docId(kind, nonce), { data, expectedVersion: 0, expiresAt: expiresAtMs });
    return { nonce, expiresAt: new Date(expiresAtMs).toISOString(), expiresAtMs };
  }

  /**
   * Marks the nonce used, exactly once across concurrent callers (CAS on the read version).
   * Throws 401 `Invalid or expired nonce`, `Nonce already consumed`,
   * `Wallet address does not match signed message`, or `Unauthorized` when the message's
   * `messageIssuedAt` (epoch ms) is before the nonce was issued, beyond
   * `ISSUED_BEFORE_NONCE_SKEW_MS` (the nonce then stays usable).
   */
  async consume(kind: WalletKind, nonce: string, walletAddress?: string, messageIssuedAt?: number): Promise<ConsumedNonce> {
    // The nonce comes from signed client text; reject odd shapes before they reach a store id.
    if (!NONCE_PATTERN.test(nonce)) throw walletAuthError(WALLET_AUTH_MESSAGES.invalidNonce, 'malformed');
    const now = this.clock.now();
    const doc = await this.store.get<NonceRecord>(NONCES, docId(kind, nonce));
    // Checked here too because a store may sweep TTL documents lazily.
    if (!doc || doc.data.kind !== kind || isExpired(doc, now)) {
      throw walletAuthError(WALLET_AUTH_MESSAGES.invalidNonce, 'unknown or expired');
    }
    if (doc.data.status === 'consumed') throw walletAuthError(WALLET_AUTH_MESSAGES.nonceConsumed);
    const bound = doc.data.walletAddress;
    // Fail closed: a nonce bound to a wallet is never consumed without naming that wallet.
    if (bound !== undefined && (walletAddress === undefined || !sameAddress(kind, bound, walletAddress))) {
      throw walletAuthError(WALLET_AUTH_MESSAGES.addressMismatch, 'nonce bound to another wallet');
    }
    if (messageIssuedAt !== undefined && messageIssuedAt < doc.data.issuedAt - ISSUED_BEFORE_NONCE_SKEW_MS) {
      throw walletAuthError(WALLET_AUTH_MESSAGES.unauthorized, 'message issued before its nonce');
    }
    const tombstone: NonceRecord = { ...doc.data, status: 'consumed', consumedAt: now };
    try {
      // Keep the original expiry so a replay is recognised until the nonce would have expired.
      await this.store.put<NonceRecord>(NONCES, doc.id, {
        data: tombstone,
        expectedVersion: doc.version,
        ...(doc.expiresAt === undefined ? {} : { expiresAt: doc.expiresAt }),
      });
    } catch (error) {
      // Losing the CAS means a concurrent caller consumed it first.
      if (isAppError(error) && error.code === 'VERSION_CONFLICT') {
        throw walletAuthError(WALLET_AUTH_MESSAGES.nonceConsumed, 'lost concurrent consume');
      }
      throw error;
    }
    return { kind, ...(bound === undefined ? {} : { walletAddress: bound }) };
  }
}

function docId(kind: WalletKind, nonce: string): string {
  // The kind is part of the id so a Solana nonce can never log in an EVM wallet.
  return `${kind}:${nonce}`;
}

function isExpired(doc: StoredDocument<NonceRecord>, now: number): boolean {
  return doc.expiresAt !== undefined && doc.expiresAt <= now;
}

function sameAddress(kind: WalletKind, a: string, b: string): boolean {
  // EVM hex addresses differ only in checksum casing; base58 is case-sensitive.
  return kind === 'evm' ? a.toLowerCase() === b.toLowerCase() : a === b;
}
