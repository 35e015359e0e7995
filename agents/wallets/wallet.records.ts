import { WALLET_CHAINS } from '../../kernel/vocabulary/chains.js';
import { z } from 'zod';
import { AppError } from '../../kernel/errors/app-error.js';
import type { CollectionSpec, StoredDocument } from '../../kernel/ports/store.port.js';
import type { WalletChain } from '../../kernel/ports/venue.port.js';
import { toMicros } from '../../kernel/vocabulary/amounts.js';
import { derivedId } from '../../kernel/vocabulary/ids.js';
import type { TradingSubject } from '../portfolio/portfolio.types.js';
import { subjectKey } from '../portfolio/portfolio.records.js';
import type { WalletView } from './wallet.types.js';

/**
 * The stored shape of wallets and the pure rules over a subject's wallets of one chain
 * family (its "book"): which one is the default, which custodial wallet `ensure` answers
 * with, how ids are derived. `wallet.service.ts` does the reads and writes.
 */

/**
 * The default wallet of each (subject, chain family): one pointer document, so "exactly
 * one default" is a single compare-and-set instead of flags on several wallet records
 * that no store could change atomically together.
 */
export const WALLET_DEFAULTS_COLLECTION = 'trading.wallet-defaults';
/** Collections this service adds; `trading.wallets` itself is in `TRADING_RECORD_COLLECTIONS`. */
export const WALLET_COLLECTIONS: CollectionSpec[] = [{ name: WALLET_DEFAULTS_COLLECTION, indexes: [] }];

export const WALLET_MESSAGES = {
  notFound: 'Wallet not found',
  alreadyConnected: 'Wallet already connected',
  /** The trading errors: the caller should run `trading_wallet_custodial_ensure`. */
  required: 'Custodial wallet required for this operation',
  capExceeded: (walletId: string) => `Spending cap exceeded for wallet ${walletId}`,
} as const;

/**
 * Whether spending `usd` more would take a delegate wallet past its cap, counted in
 * micro-dollars (the one rule: the safety path's early check and the atomic reservation).
 */
export function exceedsCap(wallet: { spendingCapUsd?: number; spentUsd?: number }, usd: number): boolean {
  return toMicros(wallet.spentUsd ?? 0) + toMicros(usd) > toMicros(wallet.spendingCapUsd ?? 0);
}

/**
 * 400 `Custodial wallet required for this operation`, with where the wallet
 * and the funds come from: a first swap meets it before anything else was set up.
 */
export function walletRequired(chain: WalletChain = 'solana'): AppError {
  return new AppError('WALLET_REQUIRED', WALLET_MESSAGES.required, {
    hint:
      `Create the account's ${chain} custodial wallet first: MCP tool trading_wallet_custodial_ensure {"chain":"${chain}"}, ` +
      'or POST /api/nest/trading/wallets/custodial/:userId (operators). Then fund it: send tokens to its address, or on the ' +
      'paper venue the owner calls POST /api/nest/trading/paper/faucet/:userId {"chain","token","amount"}.',
  });
}

/** A `trading.wallets` record as stored (see `WalletRecord`). */
export const walletRecord = z.object({
  walletId: z.string(),
  subject: z.string(),
  chain: z.enum(WALLET_CHAINS),
  address: z.string(),
  custodial: z.boolean(),
  kind: z.enum(['custodial', 'external', 'delegate']),
  status: z.enum(['active', 'revoked']),
  label: z.string().optional(),
  spendingCapUsd: z.number().optional(),
  spentUsd: z.number().optional(),
  /** Custodial and delegate wallets only; never leaves this service. */
  sealedKey: z.string().optional(),
  createdAt: z.string(),
  revokedAt: z.string().optional(),
});
/** A `trading.wallets` record. The default flag is not stored (see `WALLET_DEFAULTS_COLLECTION`). */
export type WalletRecord = z.infer<typeof walletRecord>;

/** `trading.wallet-defaults` document, id `pointerId(subject, chain)`. */
export interface DefaultPointer {
  walletId: string;
}

/** A subject's wallets of one chain family, oldest first, and the effective default. */
export interface WalletBook {
  wallets: WalletRecord[];
  defaultId: string | null;
  /** The stored default pointer, when there is one (it may name a wallet revoked since). */
  pointer: { walletId: string; version: number } | null;
}

/** The default: the pointer's wallet while it is active, else the oldest active wallet (first wallet → default). */
export function effectiveDefault(wallets: WalletRecord[], pointed: string | undefined): string | null {
  const active = wallets.filter((w) => w.status === 'active');
  return (active.find((w) => w.walletId === pointed) ?? active[0])?.walletId ?? null;
}

/** The wallets whose default flag changed between two reads. */
export function defaultChange(before: { defaultId: string | null }, after: { defaultId: string | null }): (string | null)[] {
  return before.defaultId === after.defaultId ? [] : [before.defaultId, after.defaultId];
}

/** The custodial wallet `ensure` answers with: the default when it is custodial, else the oldest. */
export function custodialOf(book: WalletBook): WalletRecord | undefined {
  const custodial = book.wallets.filter((w) => w.status === 'active' && w.kind === 'custodial');
  return custodial.find((w) => w.walletId === book.defaultId) ?? custodial[0];
}

/** The first slot number whose derived id is not taken yet (taken slots hold revoked wallets). */
export function freeSlot(wallets: WalletRecord[], idOf: (slot: number) => string): number {
  const taken = new Set(wallets.map((w) => w.walletId));
  let slot = 0;
  while (taken.has(idOf(slot))) slot++;
  return slot;
}

/** What surfaces see of a wallet: no sealed key, no owner key; delegate wallets show their cap and spend. */
export function toView(record: WalletRecord, defaultId: string | null): WalletView {
  return {
    walletId: record.walletId,
    chain: record.chain,
    address: record.address,
    custodial: record.custodial,
    kind: record.kind,
    isDefault: record.walletId === defaultId,
    status: record.status,
    ...(record.label === undefined ? {} : { label: record.label }),
    ...(record.kind === 'delegate' ? { spendingCapUsd: record.spendingCapUsd ?? 0, spentUsd: record.spentUsd ?? 0 } : {}),
    createdAt: record.createdAt,
  };
}

/** The wallet of the book with that id, or 404 `Wallet not found`. */
export function requireRecord(wallets: WalletRecord[], walletId: string): WalletRecord {
  const record = wallets.find((w) => w.walletId === walletId);
  if (!record) throw AppError.notFound(WALLET_MESSAGES.notFound);
  return record;
}

/** A stored wallet document's data, checked against `walletRecord`. */
export function parseRecord(doc: StoredDocument<unknown>): WalletRecord {
  const parsed = walletRecord.safeParse(doc.data);
  // A malformed record is a bug in its writer: say so rather than act on a guess.
  if (!parsed.success) throw AppError.internal(`Wallet record ${doc.id} does not have the expected fields`);
  return parsed.data;
}

/** Wallet ids look alike whether random or derived: `wal_` + 24 base64url characters, the service's one id format. */
export function derivedWalletId(...parts: string[]): string {
  return derivedId('wal', parts.join('\n'));
}

/** Id of the default pointer of a subject's chain family. */
export function pointerId(subject: TradingSubject, chain: WalletChain): string {
  return `${subjectKey(subject)}|${chain}`;
}

/** A trimmed label, or none for a blank one. */
export function labelOf(label: string | undefined): { label?: string } {
  const trimmed = label?.trim();
  return trimmed ? { label: trimmed } : {};
}

/** Oldest first; ties (same millisecond) by id, so every reader picks the same default. */
export function oldestFirst(wallets: WalletRecord[]): WalletRecord[] {
  return [...wallets].sort((a, b) => (a.createdAt === b.createdAt ? compare(a.walletId, b.walletId) : compare(a.createdAt, b.createdAt)));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
