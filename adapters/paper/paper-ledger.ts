/**
 * Balances and fills of the paper venue, kept in the store so every process sees one
 * ledger. Exactly-once rests on two compare-and-set documents:
 * - `paper.fills/<clientOrderId>` is created once (expectedVersion 0): the first writer
 *   fixes the outcome (or, while pending, the amount and signature of the fill);
 * - `paper.balances/<chain>:<address>` records, in the same write that moves funds, which
 *   order ids it applied (or refused for lack of funds), so replaying a half-finished
 *   fill never moves funds twice and the decision is taken once.
 * A new fill writes both in one atomic `commit` (the fill already final, with the balances);
 * the three-step path (fill pending, balances, fill final) remains for fills an older
 * version left pending.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError, isAppError } from '../../kernel/errors/app-error.js';
import type { CollectionSpec, CommitWrite, StoredDocument, StorePort } from '../../kernel/ports/store.port.js';
import { walletChainOf, type Chain, type ExecutionResult } from '../../kernel/ports/venue.port.js';
import { type IdRing, idRingOf, ringHas, ringIds, ringPush } from '../../kernel/vocabulary/id-ring.js';
import { invalidAddress, parseAddress } from '../../kernel/vocabulary/chain-address.js';

export const BALANCES_COLLECTION = 'paper.balances';
export const FILLS_COLLECTION = 'paper.fills';
/** Paper transfers (withdrawals) by their signature: created once, with the balances they move. */
const TRANSFERS_COLLECTION = 'paper.transfers';
/** Collections the composition root declares for the paper venue. */
export const PAPER_COLLECTIONS: CollectionSpec[] = [
  { name: BALANCES_COLLECTION, indexes: [] },
  { name: FILLS_COLLECTION, indexes: [] },
  { name: TRANSFERS_COLLECTION, indexes: [] },
];

/** Document `paper.transfers/<txSignature>`: a transfer between two addresses of one chain, applied once. */
export interface TransferDoc {
  chain: Chain;
  /** Normalized addresses. */
  from: string;
  to: string;
  token: string;
  amount: string;
  at: number;
}

/** Balance reads kept for the settlement that follows them (see `PaperLedger.remember`). */
const RECENT_READS = 1_024;
/** How many settled order ids a balance document remembers per kind (applied, rejected). */
const SETTLED_RING_SIZE = 256;
export const SLIPPAGE_MESSAGE = 'Slippage tolerance exceeded';
export const INSUFFICIENT_BALANCE_MESSAGE = 'Insufficient balance for requested swap amount';
const INSUFFICIENT_WITHDRAWAL_MESSAGE = 'Insufficient balance for requested withdrawal amount';

/** Balances of one address on one chain; document id `<chain>:<address>`. */
export interface BalanceDoc {
  /** Base units as decimal strings by token address; zero balances are dropped. */
  balances: Record<string, string>;
  /** Order ids whose swap moved these balances, oldest first (bounded ring). */
  appliedRing: IdRing;
  /** Order ids refused for insufficient balance, oldest first (bounded ring). */
  rejectedRing: IdRing;
  /** References of credits applied (faucet deposits), oldest first (bounded ring). */
  creditRing: IdRing;
}

/**
 * A balance document as it may be stored: documents written before hold each ring as an array
 * under another name (`credits` absent on the oldest). Read through `currentForm`; only
 * `BalanceDoc` is written.
 */
export type StoredBalanceDoc = Pick<BalanceDoc, 'balances'> &
  Partial<Omit<BalanceDoc, 'balances'>> & { applied?: readonly string[]; rejected?: readonly string[]; credits?: readonly string[] };

/** The request fields a fill keeps. */
export interface FillRequest {
  clientOrderId: string;
  chain: Chain;
  /** Normalized (checksummed on EVM). */
  address: string;
  inputMint: string;
  outputMint: string;
  amountIn: string;
  minOut: string;
  slippageBps: number;
}

/** Decided, not yet applied to balances: fixed here so every resumer applies the same fill. */
export interface PendingOutcome {
  status: 'pending';
  filledOut: string;
  txSignature: string;
  at: number;
}

/** Document `paper.fills/<clientOrderId>`. */
export interface FillDoc extends FillRequest {
  outcome: ExecutionResult | PendingOutcome;
}

type Decision = 'applied' | 'rejected';

export interface PaperLedgerOptions {
  store: StorePort;
  /** Size of the settled-id rings (default 256). */
  ringSize?: number;
  /** Attempts of one compare-and-set write before the conflict is thrown (default 64). */
  maxAttempts?: number;
}

/** Store-backed balances and fills with exactly-once settlement. */
export class PaperLedger {
  private readonly store: StorePort;
  private readonly ringSize: number;
  private readonly maxAttempts: number;
  /** Balance documents as last read by `balances`, by id, oldest first (see `remember`). */
  private readonly recentReads = new Map<string, StoredDocument<StoredBalanceDoc> | null>();

  constructor(options: PaperLedgerOptions) {
    this.store = options.store;
    this.ringSize = Math.max(1, options.ringSize ?? SETTLED_RING_SIZE);
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 64);
  }

  /** Balances of a normalized address in base units by token address. */
  async balances(chain: Chain, address: string): Promise<Record<string, string>> {
    const id = balanceId(chain, address);
    const doc = await this.store.get<StoredBalanceDoc>(BALANCES_COLLECTION, id);
    this.remember(id, doc);
    return { ...(doc?.data.balances ?? {}) };
  }

  /**
   * A trade's checks (or a withdrawal's) read the wallet's balances just before its fill (its
   * transfer) is settled: the settlement decides on that read instead of reading again. One
   * kept read, not one each caller hands on: the read is made before the account's queue and
   * its concurrent sends, so the last read of the wallet is the freshest this process holds,
   * where each caller's own would be stale behind the others' commits. Safe because its write is
   * conditional on the version read (a balance that moved meanwhile fails the commit, and the
   * retry reads afresh: an entry is taken once). Bounded: the oldest reads are forgotten.
   */
  private remember(id: string, doc: StoredDocument<StoredBalanceDoc> | null): void {
    this.recentReads.delete(id);
    this.recentReads.set(id, doc);
    if (this.recentReads.size > RECENT_READS) this.recentReads.delete(this.recentReads.keys().next().value!);
  }

  private async freshOrRecent(id: string): Promise<StoredDocument<StoredBalanceDoc> | null> {
    const recent = this.recentReads.get(id);
    if (recent === undefined) return this.store.get<StoredBalanceDoc>(BALANCES_COLLECTION, id);
    this.recentReads.delete(id);
    return recent;
  }

  /**
   * Adds `amount` base units of `token` (an address) and returns the new balance. A `ref`
   * is remembered in the same write, so a second credit under it (a deposit finished after a
   * crash) changes nothing.
   */
  async credit(chain: Chain, address: string, token: string, amount: bigint, ref?: string): Promise<bigint> {
    const id = balanceId(chain, address);
    return this.retry(async () => {
      const doc = await this.store.get<StoredBalanceDoc>(BALANCES_COLLECTION, id);
      const data = currentForm(doc?.data);
      if (ref !== undefined && ringHas(data.creditRing, ref)) return BigInt(data.balances[token] ?? '0');
      const balances = adjust(data.balances, token, amount);
      const creditRing = ref === undefined ? data.creditRing : ringPush(data.creditRing, ref, this.ringSize).ring;
      const next: BalanceDoc = { ...data, balances, creditRing };
      await this.store.put<BalanceDoc>(BALANCES_COLLECTION, id, { data: next, expectedVersion: doc?.version ?? 0 });
      return BigInt(balances[token] ?? '0');
    });
  }

  async readFill(clientOrderId: string): Promise<FillDoc | null> {
    return (await this.store.get<FillDoc>(FILLS_COLLECTION, clientOrderId))?.data ?? null;
  }

  /** Creates the fill once; when another writer got there first, returns theirs instead. */
  async recordFill(fill: FillDoc): Promise<FillDoc> {
    try {
      await this.store.put<FillDoc>(FILLS_COLLECTION, fill.clientOrderId, { data: fill, expectedVersion: 0 });
      return fill;
    } catch (error) {
      const existing = isConflict(error) ? await this.readFill(fill.clientOrderId) : null;
      if (existing) return existing;
      throw error;
    }
  }

  /**
   * Records a new fill and settles it in one commit: the fill, already final, with the
   * balances it moves (or its refusal for lack of funds). A fill that another writer recorded
   * first is answered (and finished, when it was left pending) instead.
   */
  async fill(fill: FillDoc): Promise<ExecutionResult> {
    if (fill.outcome.status !== 'pending') return (await this.recordFill(fill)).outcome as ExecutionResult;
    return this.retry(async () => {
      const { outcome, writes } = await this.settlement(fill);
      try {
        await this.store.commit(writes);
        return outcome;
      } catch (error) {
        // Another caller of the same order id recorded its fill first: its outcome stands.
        const existing = isConflict(error) ? await this.readFill(fill.clientOrderId) : null;
        if (existing) return this.settle(existing);
        throw error;
      }
    });
  }

  /**
   * The writes of `fill` when the wallet can pay it, for the caller to commit with its own
   * (the order and its positions); null when it cannot (the caller records that through
   * `fill`). Conditional on the balance version read and on no fill of the id existing.
   */
  async planFill(fill: FillDoc): Promise<{ outcome: Extract<ExecutionResult, { status: 'filled' }>; writes: CommitWrite[] } | null> {
    if (fill.outcome.status !== 'pending') return null;
    const { outcome, writes } = await this.settlement(fill);
    return outcome.status === 'filled' ? { outcome, writes } : null;
  }

  /** A pending fill decided on the balances as they stand: its final outcome and the writes recording it. */
  private async settlement(fill: FillDoc): Promise<{ outcome: ExecutionResult; writes: CommitWrite[] }> {
    const pending = fill.outcome as PendingOutcome;
    const id = balanceId(fill.chain, fill.address);
    const orderId = fill.clientOrderId;
    const doc = await this.freshOrRecent(id);
    const data = currentForm(doc?.data);
    const amountIn = BigInt(fill.amountIn);
    const funded = BigInt(data.balances[fill.inputMint] ?? '0') >= amountIn;
    // Evicted ids are final already (their fills committed so) or finalized by `push`.
    const next: BalanceDoc = funded
      ? {
          ...data,
          balances: adjust(adjust(data.balances, fill.inputMint, -amountIn), fill.outputMint, BigInt(pending.filledOut)),
          appliedRing: await this.push(data.appliedRing, orderId, 'applied'),
        }
      : { ...data, rejectedRing: await this.push(data.rejectedRing, orderId, 'rejected') };
    const outcome: ExecutionResult = funded
      ? { status: 'filled', filledOut: pending.filledOut, txSignature: pending.txSignature, at: pending.at }
      : { status: 'failed', reason: 'insufficient_balance', message: INSUFFICIENT_BALANCE_MESSAGE, at: pending.at };
    return {
      outcome,
      writes: [
        { op: 'put', collection: FILLS_COLLECTION, id: orderId, input: { data: { ...fill, outcome }, expectedVersion: 0 } },
        { op: 'put', collection: BALANCES_COLLECTION, id, input: { data: next, expectedVersion: doc?.version ?? 0 } },
      ],
    };
  }

  async readTransfer(txSignature: string): Promise<TransferDoc | null> {
    return (await this.store.get<TransferDoc>(TRANSFERS_COLLECTION, txSignature))?.data ?? null;
  }

  /**
   * Moves `amount` of `token` from one address to another, once per signature: the transfer
   * document is created (expectedVersion 0) in the same commit as both balances, so a
   * second send of the same signature finds it and moves nothing. Throws
   * INSUFFICIENT_BALANCE when the sender cannot pay (nothing is written then).
   */
  async transfer(txSignature: string, transfer: TransferDoc): Promise<void> {
    await this.retry(async () => {
      if (await this.readTransfer(txSignature)) return;
      await this.store.commit(await this.transferWrites(txSignature, transfer));
    });
  }

  /**
   * The writes of a transfer, to commit alone (`transfer`) or with the caller's own records:
   * the transfer document created (expectedVersion 0, so a signature applies once) with both
   * balances, each conditional on the version read. The sender's balance is the last read of it
   * (`balances`: the withdrawal's check, a moment ago) when there is one, taken once, so it is
   * not read again; a commit on a stale one fails and the writes computed again read afresh.
   * No effect; throws INSUFFICIENT_BALANCE when the sender cannot pay (an earlier read that
   * shows too little is checked against a fresh one first).
   */
  async transferWrites(txSignature: string, transfer: TransferDoc): Promise<CommitWrite[]> {
    const fromId = balanceId(transfer.chain, transfer.from);
    const toId = balanceId(transfer.chain, transfer.to);
    const amount = BigInt(transfer.amount);
    const pays = (doc: StoredDocument<StoredBalanceDoc> | null) => BigInt(doc?.data.balances[transfer.token] ?? '0') >= amount;
    const recent = this.recentReads.has(fromId);
    let fromDoc = await this.freshOrRecent(fromId);
    if (recent && !pays(fromDoc)) fromDoc = await this.store.get<StoredBalanceDoc>(BALANCES_COLLECTION, fromId);
    if (!pays(fromDoc)) throw new AppError('INSUFFICIENT_BALANCE', INSUFFICIENT_WITHDRAWAL_MESSAGE);
    const writes: CommitWrite[] = [
      { op: 'put', collection: TRANSFERS_COLLECTION, id: txSignature, input: { data: transfer, expectedVersion: 0 } },
    ];
    // A transfer to itself moves nothing: only its document is written.
    if (fromId === toId) return writes;
    const fromData = currentForm(fromDoc?.data);
    const toDoc = await this.store.get<StoredBalanceDoc>(BALANCES_COLLECTION, toId);
    const toData = currentForm(toDoc?.data);
    writes.push(
      {
        op: 'put',
        collection: BALANCES_COLLECTION,
        id: fromId,
        input: {
          data: { ...fromData, balances: adjust(fromData.balances, transfer.token, -amount) },
          expectedVersion: fromDoc?.version ?? 0,
        },
      },
      {
        op: 'put',
        collection: BALANCES_COLLECTION,
        id: toId,
        input: { data: { ...toData, balances: adjust(toData.balances, transfer.token, amount) }, expectedVersion: toDoc?.version ?? 0 },
      },
    );
    return writes;
  }

  /** Brings a fill to its final outcome: applies a pending one to balances (at most once) and records the result. */
  async settle(fill: FillDoc): Promise<ExecutionResult> {
    if (fill.outcome.status !== 'pending') return fill.outcome;
    const decision = await this.apply(fill, fill.outcome);
    const outcome = await this.finalize(fill.clientOrderId, decision);
    if (!outcome) throw AppError.internal(`Paper fill ${fill.clientOrderId} disappeared while settling`);
    return outcome;
  }

  /** One CAS write on the balance document: debit and credit, or refuse; either way remember the id. */
  private async apply(fill: FillDoc, pending: PendingOutcome): Promise<Decision> {
    const id = balanceId(fill.chain, fill.address);
    const orderId = fill.clientOrderId;
    return this.retry(async () => {
      const doc = await this.store.get<StoredBalanceDoc>(BALANCES_COLLECTION, id);
      const data = currentForm(doc?.data);
      if (ringHas(data.appliedRing, orderId)) return 'applied';
      if (ringHas(data.rejectedRing, orderId)) return 'rejected';
      const amountIn = BigInt(fill.amountIn);
      const funded = BigInt(data.balances[fill.inputMint] ?? '0') >= amountIn;
      const next: BalanceDoc = funded
        ? {
            ...data,
            balances: adjust(adjust(data.balances, fill.inputMint, -amountIn), fill.outputMint, BigInt(pending.filledOut)),
            appliedRing: await this.push(data.appliedRing, orderId, 'applied'),
          }
        : { ...data, rejectedRing: await this.push(data.rejectedRing, orderId, 'rejected') };
      await this.store.put<BalanceDoc>(BALANCES_COLLECTION, id, { data: next, expectedVersion: doc?.version ?? 0 });
      return funded ? 'applied' : 'rejected';
    });
  }

  /**
   * Appends to a ring. An id leaves the ring only after its fill is final, so "pending and
   * not in the ring" always means "not applied", however many orders came since.
   */
  private async push(ring: IdRing, orderId: string, decision: Decision): Promise<IdRing> {
    const pushed = ringPush(ring, orderId, this.ringSize);
    for (const evicted of pushed.evicted) await this.finalize(evicted, decision);
    return pushed.ring;
  }

  /** Records the final outcome of a pending fill; returns the stored final outcome (null when no fill). */
  private async finalize(clientOrderId: string, decision: Decision): Promise<ExecutionResult | null> {
    return this.retry(async () => {
      const doc = await this.store.get<FillDoc>(FILLS_COLLECTION, clientOrderId);
      if (!doc) return null;
      const { outcome } = doc.data;
      if (outcome.status !== 'pending') return outcome;
      const final: ExecutionResult =
        decision === 'applied'
          ? { status: 'filled', filledOut: outcome.filledOut, txSignature: outcome.txSignature, at: outcome.at }
          : { status: 'failed', reason: 'insufficient_balance', message: INSUFFICIENT_BALANCE_MESSAGE, at: outcome.at };
      await this.store.put<FillDoc>(FILLS_COLLECTION, clientOrderId, {
        data: { ...doc.data, outcome: final },
        expectedVersion: doc.version,
      });
      return final;
    });
  }

  /** Re-runs `attempt` after a lost compare-and-set, with a short jittered pause. */
  private async retry<T>(attempt: () => Promise<T>): Promise<T> {
    for (let n = 1; ; n++) {
      try {
        return await attempt();
      } catch (error) {
        if (!isConflict(error) || n >= this.maxAttempts) throw error;
        // Real time, not the ClockPort: this only spreads contending writers apart (a few
        // ms); a manual clock would never let it end.
        await sleep(Math.random() * Math.min(50, 2 ** n));
      }
    }
  }
}

/**
 * The canonical form of an address, so one wallet maps to one balance document: EIP-55 on
 * EVM chains, a 32-byte base58 key as given on Solana. Throws a validation error otherwise.
 */
export function normalizeAddress(chain: Chain, address: string): string {
  const parsed = parseAddress(walletChainOf(chain), address);
  if (!parsed) throw AppError.validation([invalidAddress('address', chain)]);
  return parsed;
}

function balanceId(chain: Chain, address: string): string {
  return `${chain}:${address}`;
}

/** The document in this build's form, rings as strings, whichever form it was stored in (none: empty). */
function currentForm(stored: StoredBalanceDoc | undefined): BalanceDoc {
  if (!stored) return { balances: {}, appliedRing: '', rejectedRing: '', creditRing: '' };
  return {
    balances: stored.balances,
    appliedRing: ringOf(stored.appliedRing, stored.applied),
    rejectedRing: ringOf(stored.rejectedRing, stored.rejected),
    creditRing: ringOf(stored.creditRing, stored.credits),
  };
}

/**
 * One ring of a stored document: the string, the former array, or both, when a build from
 * before credited a document this build had written (it keeps the fields it does not know and
 * adds to an array of its own): then the array's ids are newer and follow the string's.
 */
function ringOf(ring: IdRing | undefined, former: readonly string[] | undefined): IdRing {
  if (ring === undefined) return idRingOf(former);
  return former && former.length > 0 ? idRingOf([...ringIds(ring), ...former]) : ring;
}

/** A copy of `balances` with `delta` added to `token`; zero drops the entry. Callers check for negatives. */
function adjust(balances: Record<string, string>, token: string, delta: bigint): Record<string, string> {
  const value = BigInt(balances[token] ?? '0') + delta;
  const next = { ...balances };
  if (value === 0n) delete next[token];
  else next[token] = value.toString();
  return next;
}

function isConflict(error: unknown): boolean {
  return isAppError(error) && error.code === 'VERSION_CONFLICT';
}
