import { AppError } from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { KeyCustodyPort } from '../../kernel/ports/key-custody.port.js';
import type { StoredDocument, StorePort } from '../../kernel/ports/store.port.js';
import type { WalletChain, WalletSigner } from '../../kernel/ports/venue.port.js';
import { isVersionConflict } from '../../kernel/shared/conflict-backoff.js';
import { invalidAddress, parseEvmAddress } from '../../kernel/vocabulary/chain-address.js';
import { retryOnConflict, updateRecord } from '../../kernel/shared/record-update.js';
import { fromMicros, toMicros } from '../../kernel/vocabulary/amounts.js';
import { randomId } from '../../kernel/vocabulary/ids.js';
import type { TradingSubject } from '../portfolio/portfolio.types.js';
import { TRADING_RECORDS, subjectKey } from '../portfolio/portfolio.records.js';
import type { TradingEvents } from '../trading/trading-events.js';
import {
  WALLET_DEFAULTS_COLLECTION,
  WALLET_MESSAGES,
  custodialOf,
  defaultChange,
  derivedWalletId,
  effectiveDefault,
  exceedsCap,
  freeSlot,
  labelOf,
  oldestFirst,
  parseRecord,
  pointerId,
  requireRecord,
  toView,
  walletRequired,
  type DefaultPointer,
  type WalletBook,
  type WalletRecord,
} from './wallet.records.js';
import type { WalletDirectory, WalletKind, WalletView } from './wallet.types.js';

/** The kinds of wallet the service signs with (an external wallet's key is not here). */
const SIGNING_KINDS: readonly WalletKind[] = ['custodial', 'delegate'];

/** What a caller decides about a new wallet; the rest (ids, key, status, time) is the service's. */
interface NewWallet {
  kind: WalletKind;
  /** External wallets only: custodial addresses come from the generated key. */
  address?: string;
  label?: string;
  spendingCapUsd?: number;
  spentUsd?: number;
}

export interface WalletServiceDeps {
  store: StorePort;
  custody: KeyCustodyPort;
  clock: ClockPort;
  events: TradingEvents;
}

const WALLETS = TRADING_RECORDS.wallets;
const PAGE = 200;

/**
 * Wallets of a trading account: custodial keys generated through the key custody port,
 * external (address-only) EVM wallets, and delegate wallets (custodial with a spending cap).
 * Views never carry key material; the sealed key is read only to build a signer.
 */
export class WalletService implements WalletDirectory {
  constructor(private readonly deps: WalletServiceDeps) {}

  /** Every wallet of the chain family, oldest first, revoked ones included (with their status). */
  async list(subject: TradingSubject, chain: WalletChain): Promise<WalletView[]> {
    const { wallets, defaultId } = await this.book(subject, chain);
    return wallets.map((record) => toView(record, defaultId));
  }

  /**
   * The active custodial wallet of the chain family, created when there is none. Concurrent
   * calls agree: the wallet created here gets an id derived from (subject, chain, slot), so
   * racing creations collide on one create-only write and the losers read the winner's wallet.
   */
  async ensureCustodial(subject: TradingSubject, chain: WalletChain, onCreated?: () => void): Promise<WalletView> {
    return retryOnConflict(bookKey(subject, chain), async () => {
      const book = await this.book(subject, chain);
      const existing = custodialOf(book);
      if (existing) return toView(existing, book.defaultId);
      const slotId = (slot: number) => derivedWalletId('custodial-slot', subjectKey(subject), chain, String(slot));
      const created = await this.insert(subject, chain, slotId(freeSlot(book.wallets, slotId)), { kind: 'custodial' });
      // Only once the insert won: one that lost a race retries and finds the winner's wallet.
      onCreated?.();
      return created;
    });
  }

  /** The active custodial wallet of the chain family, or null (no creation). */
  async custodialState(subject: TradingSubject, chain: WalletChain): Promise<WalletView | null> {
    const book = await this.book(subject, chain);
    const existing = custodialOf(book);
    return existing ? toView(existing, book.defaultId) : null;
  }

  /**
   * Connects an address-only EVM wallet (no signing). 409 `Wallet already connected` when the
   * address is an active wallet of this account already; the id is derived from the address
   * so that two concurrent connections of one address collide on a create-only write.
   */
  async addExternal(subject: TradingSubject, input: { address: string; label?: string }): Promise<WalletView> {
    if (!parseEvmAddress(input.address)) throw AppError.validation([invalidAddress('address', 'EVM')]);
    const address = input.address;
    const slotId = (slot: number) => derivedWalletId('external', subjectKey(subject), 'evm', address.toLowerCase(), String(slot));
    return retryOnConflict(bookKey(subject, 'evm'), async () => {
      const book = await this.book(subject, 'evm');
      const connected = book.wallets.some((w) => w.status === 'active' && w.address.toLowerCase() === address.toLowerCase());
      if (connected) throw AppError.conflict(WALLET_MESSAGES.alreadyConnected);
      return this.insert(subject, 'evm', slotId(freeSlot(book.wallets, slotId)), { kind: 'external', address, ...labelOf(input.label) });
    });
  }

  /**
   * A new custodial wallet. With `requestKey` (the idempotency key) its id derives from the
   * key, so a guarded call re-run after a crash finds the wallet of the first run.
   */
  async createCustodial(
    subject: TradingSubject,
    chain: WalletChain,
    input: { label?: string; requestKey?: string } = {},
  ): Promise<WalletView> {
    return this.createKeyed(subject, chain, 'custodial', input.requestKey, labelOf(input.label));
  }

  /** A custodial wallet that may spend at most `spendingCapUsd` in total (see `reserveSpend`). */
  async createDelegate(
    subject: TradingSubject,
    chain: WalletChain,
    input: { spendingCapUsd: number; label?: string; requestKey?: string },
  ): Promise<WalletView> {
    if (!Number.isFinite(input.spendingCapUsd) || input.spendingCapUsd <= 0)
      throw AppError.validation(['spendingCapUsd must be a positive number']);
    return this.createKeyed(subject, chain, 'delegate', input.requestKey, {
      ...labelOf(input.label),
      spendingCapUsd: input.spendingCapUsd,
      spentUsd: 0,
    });
  }

  /** Makes an active wallet of the chain family its default; the previous default stops being one. */
  async setDefault(subject: TradingSubject, chain: WalletChain, walletId: string): Promise<WalletView> {
    const before = await this.book(subject, chain);
    const target = before.wallets.find((w) => w.walletId === walletId && w.status === 'active');
    if (!target) throw AppError.notFound(WALLET_MESSAGES.notFound);
    // Last writer wins between two setDefault calls; CAS only keeps a pin from undoing one.
    await updateRecord<DefaultPointer>(
      this.deps.store,
      { collection: WALLET_DEFAULTS_COLLECTION, id: pointerId(subject, chain) },
      (pointer) => (pointer?.data.walletId === walletId ? null : { data: { walletId } }),
    );
    const after = await this.book(subject, chain);
    await this.announce(subject, after, defaultChange(before, after));
    return toView(requireRecord(after.wallets, walletId), after.defaultId);
  }

  /**
   * Revokes a wallet for good: it no longer signs nor counts as connected. A custodial key
   * stays sealed in the record so that funds left on it can still be recovered by an operator.
   * Revoking the default makes the oldest remaining active wallet the default (or none).
   */
  async revoke(subject: TradingSubject, chain: WalletChain, walletId: string): Promise<WalletView> {
    const before = await this.book(subject, chain);
    if (!before.wallets.some((w) => w.walletId === walletId)) throw AppError.notFound(WALLET_MESSAGES.notFound);
    await updateRecord<unknown>(this.deps.store, { collection: WALLETS, id: walletId }, (doc) => {
      const record = ownedRecord(subject, doc);
      if (record.status === 'revoked') return null;
      return walletPut({ ...record, status: 'revoked', revokedAt: this.isoNow() });
    });
    const after = await this.pinnedBook(subject, chain);
    const wasActive = before.wallets.find((w) => w.walletId === walletId)?.status === 'active';
    await this.announce(subject, after, [...(wasActive ? [walletId] : []), ...defaultChange(before, after)]);
    return toView(requireRecord(after.wallets, walletId), after.defaultId);
  }

  /**
   * The wallet a trade signs with: `walletId` when it names an active signing wallet of the
   * family; else the default when it can sign; else the oldest active custodial wallet, then
   * delegate (a user whose default is an external wallet still trades with their custodial one).
   */
  async signingWallet(
    subject: TradingSubject,
    chain: WalletChain,
    walletId?: string,
    kinds: readonly WalletKind[] = SIGNING_KINDS,
  ): Promise<WalletView | null> {
    const book = await this.book(subject, chain);
    // A wallet that does not exist is 404, as on every wallet route; one that cannot sign (external, revoked, or a kind the wallet mode excludes) is "required".
    if (walletId !== undefined) requireRecord(book.wallets, walletId);
    const signing = book.wallets.filter((w) => w.status === 'active' && w.kind !== 'external' && kinds.includes(w.kind));
    const chosen =
      walletId !== undefined
        ? signing.find((w) => w.walletId === walletId)
        : (signing.find((w) => w.walletId === book.defaultId) ?? signing.find((w) => w.kind === 'custodial') ?? signing[0]);
    return chosen ? toView(chosen, book.defaultId) : null;
  }

  /** `signingWallet`, or 400 `Custodial wallet required for this operation`. */
  async requireSigningWallet(subject: TradingSubject, chain: WalletChain, walletId?: string): Promise<WalletView> {
    const wallet = await this.signingWallet(subject, chain, walletId);
    if (!wallet) throw walletRequired(chain);
    return wallet;
  }

  /** An active wallet of the family by id (404 otherwise), or the default one when no id is given (null if none). */
  async activeWallet(subject: TradingSubject, chain: WalletChain, walletId?: string): Promise<WalletView | null> {
    const book = await this.book(subject, chain);
    const id = walletId ?? book.defaultId;
    const record = book.wallets.find((w) => w.walletId === id && w.status === 'active');
    if (!record && walletId !== undefined) throw AppError.notFound(WALLET_MESSAGES.notFound);
    return record ? toView(record, book.defaultId) : null;
  }

  /**
   * A signer for an active custodial or delegate wallet of the subject (404 otherwise). The
   * wallet is read again at signing time, so a revocation in between stops the signature.
   * `checked`: the wallet as the request's checks read it just before (the same request, never
   * an earlier one's), when it could sign then: it is not read a second time here.
   */
  async signer(subject: TradingSubject, walletId: string, checked?: WalletView): Promise<WalletSigner> {
    const record = checked?.walletId === walletId && canSign(checked) ? checked : await this.signable(subject, walletId);
    return {
      walletId,
      chain: record.chain,
      address: record.address,
      withSecretKey: async (use) => {
        const current = await this.signable(subject, walletId);
        return this.deps.custody.withSecretKey(current.chain, walletId, current.sealedKey, use);
      },
    };
  }

  /** Delegate wallets: adds `usd` to `spentUsd`, or 400 when that would pass the cap. No-op for other kinds. */
  async reserveSpend(subject: TradingSubject, walletId: string, usd: number): Promise<void> {
    await this.adjustSpend(subject, walletId, nonNegative(usd));
  }

  /** Gives back a reservation whose trade moved nothing (never below zero). No-op for other kinds. */
  async releaseSpend(subject: TradingSubject, walletId: string, usd: number): Promise<void> {
    await this.adjustSpend(subject, walletId, -nonNegative(usd));
  }

  private async adjustSpend(subject: TradingSubject, walletId: string, deltaUsd: number): Promise<void> {
    const { doc, changed } = await updateRecord<unknown>(this.deps.store, { collection: WALLETS, id: walletId }, (current) => {
      const record = ownedRecord(subject, current);
      if (record.status !== 'active') throw AppError.notFound(WALLET_MESSAGES.notFound);
      if (record.kind !== 'delegate' || deltaUsd === 0) return null;
      if (deltaUsd > 0 && exceedsCap(record, deltaUsd)) throw new AppError('RISK_LIMIT_EXCEEDED', WALLET_MESSAGES.capExceeded(walletId));
      const spent = Math.max(0, toMicros(record.spentUsd ?? 0) + toMicros(deltaUsd));
      return walletPut({ ...record, spentUsd: fromMicros(spent) });
    });
    if (changed && doc) {
      const updated = parseRecord(doc);
      this.publish(subject, updated, (await this.book(subject, updated.chain)).defaultId);
    }
  }

  private async createKeyed(
    subject: TradingSubject,
    chain: WalletChain,
    kind: 'custodial' | 'delegate',
    requestKey: string | undefined,
    extra: Omit<NewWallet, 'kind'>,
  ): Promise<WalletView> {
    if (requestKey === undefined) return this.insert(subject, chain, randomId('wal'), { kind, ...extra });
    const walletId = derivedWalletId('request', subjectKey(subject), chain, kind, requestKey);
    try {
      return await this.insert(subject, chain, walletId, { kind, ...extra });
    } catch (error) {
      if (!isVersionConflict(error)) throw error;
      // A re-run of the same request: answer with the wallet its first run created.
      const book = await this.book(subject, chain);
      const first = book.wallets.find((w) => w.walletId === walletId && w.kind === kind);
      if (!first) throw AppError.internal('Wallet id collision');
      return toView(first, book.defaultId);
    }
  }

  /** Create-only write of a new wallet (VERSION_CONFLICT when the id exists), then its event. */
  private async insert(subject: TradingSubject, chain: WalletChain, walletId: string, fields: NewWallet): Promise<WalletView> {
    const { kind, address: given, ...rest } = fields;
    const key = kind === 'external' ? undefined : await this.deps.custody.generate(chain, walletId);
    const address = key?.address ?? given;
    if (!address) throw AppError.internal('A wallet needs an address');
    const record: WalletRecord = {
      walletId,
      subject: subjectKey(subject),
      chain,
      address,
      custodial: kind !== 'external',
      kind,
      status: 'active',
      ...rest,
      ...(key ? { sealedKey: key.sealedKey } : {}),
      createdAt: this.isoNow(),
    };
    await this.deps.store.put<WalletRecord>(WALLETS, walletId, {
      data: record,
      expectedVersion: 0,
      indexes: { [TRADING_RECORDS.subjectIndex]: record.subject },
    });
    const { defaultId } = await this.pinnedBook(subject, chain);
    this.publish(subject, record, defaultId);
    return toView(record, defaultId);
  }

  /** Wallets of the family, oldest first, and the effective default (see `effectiveDefault`). */
  private async book(subject: TradingSubject, chain: WalletChain): Promise<WalletBook> {
    const [wallets, pointer] = await Promise.all([
      this.records(subject),
      this.deps.store.get<DefaultPointer>(WALLET_DEFAULTS_COLLECTION, pointerId(subject, chain)),
    ]);
    const ofChain = oldestFirst(wallets.filter((w) => w.chain === chain));
    return {
      wallets: ofChain,
      defaultId: effectiveDefault(ofChain, pointer?.data.walletId),
      pointer: pointer ? { walletId: pointer.data.walletId, version: pointer.version } : null,
    };
  }

  /**
   * The book after storing its effective default in the pointer when the pointer names no
   * active wallet (a first wallet, a revoked default). Pinning keeps the default where it
   * was announced: without it a later wallet created in the same millisecond, with a
   * smaller id, would become "oldest" and silently take over.
   */
  private async pinnedBook(subject: TradingSubject, chain: WalletChain): Promise<WalletBook> {
    return retryOnConflict(bookKey(subject, chain), async () => {
      const book = await this.book(subject, chain);
      if (book.defaultId === null || book.defaultId === book.pointer?.walletId) return book;
      const doc = await this.deps.store.put<DefaultPointer>(WALLET_DEFAULTS_COLLECTION, pointerId(subject, chain), {
        data: { walletId: book.defaultId },
        expectedVersion: book.pointer?.version ?? 0,
      });
      return { ...book, pointer: { walletId: book.defaultId, version: doc.version } };
    });
  }

  private async records(subject: TradingSubject): Promise<WalletRecord[]> {
    const out: WalletRecord[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.deps.store.find<unknown>(
        WALLETS,
        { index: TRADING_RECORDS.subjectIndex, eq: subjectKey(subject) },
        { limit: PAGE, ...(cursor ? { cursor } : {}) },
      );
      out.push(...page.items.map(parseRecord));
      cursor = page.nextCursor;
    } while (cursor);
    return out;
  }

  /** An active wallet the service holds the key of; external and revoked wallets are 404 like unknown ones. */
  private async signable(subject: TradingSubject, walletId: string): Promise<WalletRecord & { sealedKey: string }> {
    const data = ownedRecord(subject, await this.deps.store.get<unknown>(WALLETS, walletId));
    const { sealedKey } = data;
    if (data.status !== 'active' || data.kind === 'external' || !sealedKey) throw AppError.notFound(WALLET_MESSAGES.notFound);
    return { ...data, sealedKey };
  }

  /** One `wallet.updated` per changed wallet, each with its state after the change. */
  private async announce(subject: TradingSubject, after: WalletBook, walletIds: (string | null)[]): Promise<void> {
    for (const id of new Set(walletIds)) {
      const record = after.wallets.find((w) => w.walletId === id);
      if (record) this.publish(subject, record, after.defaultId);
    }
  }

  private publish(subject: TradingSubject, record: WalletRecord, defaultId: string | null): void {
    const view = toView(record, defaultId);
    const { walletId, chain, address, kind, status, isDefault, spendingCapUsd, spentUsd } = view;
    this.deps.events.publish(subject, 'wallet.updated', {
      walletId,
      chain,
      address,
      kind,
      status,
      isDefault,
      ...(kind === 'delegate' ? { spendingCapUsd, spentUsd } : {}),
    });
  }

  private isoNow(): string {
    return new Date(this.deps.clock.now()).toISOString();
  }
}

/** The wallet of a document when it belongs to the subject; 404 otherwise (another account's id is as unknown as a made-up one). */
function ownedRecord(subject: TradingSubject, doc: StoredDocument<unknown> | null): WalletRecord {
  if (!doc) throw AppError.notFound(WALLET_MESSAGES.notFound);
  const data = parseRecord(doc);
  if (data.subject !== subjectKey(subject)) throw AppError.notFound(WALLET_MESSAGES.notFound);
  return data;
}

/** A wallet's write, with its subject index. */
function walletPut(record: WalletRecord) {
  return { data: record, indexes: { [TRADING_RECORDS.subjectIndex]: record.subject } };
}

/** What the give-up 409 names for a read-modify-write of a whole book: the book's default pointer. */
function bookKey(subject: TradingSubject, chain: WalletChain): () => string {
  return () => `${WALLET_DEFAULTS_COLLECTION}/${pointerId(subject, chain)}`;
}

function nonNegative(usd: number): number {
  if (!Number.isFinite(usd) || usd < 0) throw AppError.validation(['usd must be a non-negative number']);
  return usd;
}

/** A wallet a signer may be made for: active, and one whose key the service holds. */
function canSign(wallet: Pick<WalletView, 'status' | 'kind'>): boolean {
  return wallet.status === 'active' && wallet.kind !== 'external';
}
