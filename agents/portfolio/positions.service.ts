import { setTimeout as sleep } from 'node:timers/promises';
import { AppError, isAppError } from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { CommitWrite, StoredDocument, StorePort } from '../../kernel/ports/store.port.js';
import { formatUsd, fromBaseUnits } from '../../kernel/vocabulary/amounts.js';
import { type IdRing, idRingOf, ringHas, ringPush } from '../../kernel/vocabulary/id-ring.js';
import { KeyedQueue } from '../trading/keyed-queue.js';
import type { TradingSubject } from './portfolio.types.js';
import { TRADING_RECORDS, subjectKey } from './portfolio.records.js';
import { subjectStream, type TradingEvents } from '../trading/trading-events.js';

/**
 * The trading book: one position per (account, chain, token) with average cost and
 * realized PnL in USD. Written after each fill and each faucet deposit; every write is
 * idempotent by its reference (order id), so a fill booked twice (crash, retry,
 * recovery) counts once.
 */

/**
 * How many recent references a position remembers to refuse a second booking. A booking
 * cut off between its two legs is finished by the order's reconciliation (client retry,
 * the sweep within minutes, or restart); the ring must outlast that many fills of one token.
 */
const APPLIED_RING = 256;
const MAX_ATTEMPTS = 20;

/** Dollar stablecoins by symbol (as the venues' token lists name them): a swap into one books like a sale. */
const STABLECOINS: ReadonlySet<string> = new Set(['USDC', 'USDT', 'DAI', 'USDbC']);

export interface PositionRecord {
  subject: string;
  chain: string;
  token: string;
  symbol: string;
  decimals: number;
  /** Whole tokens (what the portfolio summary shows). */
  amount: string;
  amountBase: string;
  /** USD paid for what is held now (average cost × amount). */
  costBasisUsd: number;
  realizedPnlUsd: number;
  /** References booked (order, withdrawal and deposit ids), oldest first: refused a second time. Absent on documents written before. */
  appliedRing?: IdRing;
  /** The same ring as documents written before held it (an array); read by `appliedOf`, never written. */
  applied?: readonly string[];
  updatedAt: number;
}

/** The references a position booked, whichever form its document was written in. */
function appliedOf(position: PositionRecord): IdRing {
  return position.appliedRing ?? idRingOf(position.applied);
}

export interface TokenLeg {
  chain: string;
  token: string;
  symbol: string;
  decimals: number;
  /** Base units. */
  amount: bigint;
  /** USD price at the time of the fill. */
  priceUsd: number;
}

export class PositionsService {
  private readonly queue = new KeyedQueue();

  constructor(
    private readonly deps: {
      store: StorePort;
      clock: ClockPort;
      events: TradingEvents;
      /** A wrap or unwrap (ETH ↔ WETH): the same coin in another form, not a trade. */
      isWrap?: (chain: string, from: string, to: string) => boolean;
    },
  ) {}

  /**
   * The writes that book a swap, to commit with the order's fill (a `join` of the transition): `sold`
   * leaves the account, realizing the trade's value less its average cost; `bought` enters it
   * at that same value. The trade is valued once, so both legs agree: a buy (or swap) at what
   * was paid, so its fee and price impact are cost of the token bought (unrealized until it
   * is sold); a sell at what was received, so they are realized with the sale instead of
   * sitting on the proceeds (a stablecoin) as a loss for ever. A swap into a stablecoin from
   * anything else is a sale in all but name and is valued so. A wrap carries the cost of the
   * coins wrapped (read off the same read of the sold position). Both positions are read
   * fresh on each call and written with compare-and-set; a position that already booked
   * `ref` is left as it is, so a fill booked twice (crash, retry, recovery) counts once.
   */
  async fillWrites(
    subject: TradingSubject,
    ref: string,
    sold: TokenLeg,
    bought: TokenLeg,
    side: 'buy' | 'sell' | 'swap',
  ): Promise<{ writes: CommitWrite[]; events: PositionEvent[] }> {
    const paidUsd = Number(fromBaseUnits(sold.amount, sold.decimals)) * sold.priceUsd;
    const receivedUsd = Number(fromBaseUnits(bought.amount, bought.decimals)) * bought.priceUsd;
    const asSale = side === 'sell' || (side === 'swap' && STABLECOINS.has(bought.symbol) && !STABLECOINS.has(sold.symbol));
    const [preferred, fallback] = asSale ? [receivedUsd, paidUsd] : [paidUsd, receivedUsd];
    const valued = preferred > 0 ? preferred : fallback; // an unpriced leg: the other one
    const wrap = this.deps.isWrap?.(sold.chain, sold.token, bought.token) ?? false;
    const [soldDoc, boughtDoc] = await Promise.all(
      [sold, bought].map((leg) => this.deps.store.get<PositionRecord>(TRADING_RECORDS.positions, positionId(subject, leg))),
    );
    const tradeUsd = wrap ? carriedCost(soldDoc?.data, sold, valued) : valued;
    const legs = [
      this.legWrite(subject, ref, sold, soldDoc ?? null, (position) => {
        const held = BigInt(position.amountBase);
        const removed = sold.amount > held ? held : sold.amount;
        const costRemoved = held === 0n ? 0 : position.costBasisUsd * (Number(removed) / Number(held));
        return {
          ...position,
          amountBase: (held - removed).toString(),
          costBasisUsd: position.costBasisUsd - costRemoved,
          realizedPnlUsd: position.realizedPnlUsd + (tradeUsd - costRemoved),
        };
      }),
      this.legWrite(subject, ref, bought, boughtDoc ?? null, (position) => ({
        ...position,
        amountBase: (BigInt(position.amountBase) + bought.amount).toString(),
        costBasisUsd: position.costBasisUsd + tradeUsd,
      })),
    ].filter((leg) => leg !== null);
    return { writes: legs.map((leg) => leg.write), events: legs.map((leg) => leg.event) };
  }

  /** One leg's compare-and-set put and its `position.updated`, or null when the position booked `ref` already. */
  private legWrite(
    subject: TradingSubject,
    ref: string,
    leg: TokenLeg,
    doc: StoredDocument<PositionRecord> | null,
    change: (position: PositionRecord) => PositionRecord,
  ): { write: CommitWrite; event: PositionEvent } | null {
    const key = subjectKey(subject);
    const current = doc?.data ?? emptyPosition(key, leg);
    if (ringHas(appliedOf(current), ref)) return null;
    const next = this.next(current, ref, leg, change);
    const write: CommitWrite = {
      op: 'put',
      collection: TRADING_RECORDS.positions,
      id: positionId(subject, leg),
      input: { data: next, expectedVersion: doc?.version ?? 0, indexes: { [TRADING_RECORDS.subjectIndex]: key } },
    };
    return { write, event: { stream: subjectStream(subject), type: 'position.updated', data: positionEventData(next) } };
  }

  /** The position after `change`, with what every write derives (whole amount, rounding, the applied ring). */
  private next(current: PositionRecord, ref: string, leg: TokenLeg, change: (position: PositionRecord) => PositionRecord): PositionRecord {
    // The ring's former array is not carried on: the string below replaces it.
    const { applied: _formerRing, ...changed } = change(current);
    return {
      ...changed,
      amount: fromBaseUnits(changed.amountBase, leg.decimals),
      // Rounding dust of a fully closed position is not a cost.
      costBasisUsd: changed.amountBase === '0' ? 0 : Math.max(0, changed.costBasisUsd),
      appliedRing: ringPush(appliedOf(current), ref, APPLIED_RING).ring,
      updatedAt: this.deps.clock.now(),
    };
  }

  /**
   * The write that books a withdrawal, to commit with the withdrawal's `confirmed`: the
   * tokens leave the account at their average cost (a transfer out is not a sale: no PnL is
   * realized). None when the position booked `ref` already.
   */
  async withdrawalWrites(subject: TradingSubject, ref: string, leg: TokenLeg): Promise<{ writes: CommitWrite[]; events: PositionEvent[] }> {
    const doc = await this.deps.store.get<PositionRecord>(TRADING_RECORDS.positions, positionId(subject, leg));
    const booked = this.legWrite(subject, ref, leg, doc ?? null, (position) => {
      const held = BigInt(position.amountBase);
      const removed = leg.amount > held ? held : leg.amount;
      const costRemoved = held === 0n ? 0 : position.costBasisUsd * (Number(removed) / Number(held));
      return { ...position, amountBase: (held - removed).toString(), costBasisUsd: position.costBasisUsd - costRemoved };
    });
    return booked ? { writes: [booked.write], events: [booked.event] } : { writes: [], events: [] };
  }

  /** A deposit (paper faucet) enters at the current price: it is cost, not profit. */
  async bookDeposit(subject: TradingSubject, ref: string, leg: TokenLeg): Promise<void> {
    await this.update(subject, ref, leg, (position) => ({
      ...position,
      amountBase: (BigInt(position.amountBase) + leg.amount).toString(),
      costBasisUsd: position.costBasisUsd + Number(fromBaseUnits(leg.amount, leg.decimals)) * leg.priceUsd,
    }));
  }

  /** Every position of the account, including closed ones (their realized PnL stays). */
  async list(subject: TradingSubject): Promise<PositionRecord[]> {
    const out: PositionRecord[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.deps.store.find<PositionRecord>(
        TRADING_RECORDS.positions,
        { index: TRADING_RECORDS.subjectIndex, eq: subjectKey(subject) },
        { limit: 200, ...(cursor ? { cursor } : {}) },
      );
      out.push(...page.items.map((doc) => doc.data));
      cursor = page.nextCursor;
    } while (cursor);
    return out;
  }

  private update(subject: TradingSubject, ref: string, leg: TokenLeg, change: (position: PositionRecord) => PositionRecord): Promise<void> {
    const id = positionId(subject, leg);
    return this.queue.run(id, () => this.write(subject, id, ref, leg, change));
  }

  private async write(
    subject: TradingSubject,
    id: string,
    ref: string,
    leg: TokenLeg,
    change: (position: PositionRecord) => PositionRecord,
  ): Promise<void> {
    const key = subjectKey(subject);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const doc = await this.deps.store.get<PositionRecord>(TRADING_RECORDS.positions, id);
      const current = doc?.data ?? emptyPosition(key, leg);
      if (ringHas(appliedOf(current), ref)) return;
      const next = this.next(current, ref, leg, change);
      try {
        await this.deps.store.put(TRADING_RECORDS.positions, id, {
          data: next,
          expectedVersion: doc?.version ?? 0,
          indexes: { [TRADING_RECORDS.subjectIndex]: key },
        });
      } catch (error) {
        if (isAppError(error) && error.code === 'VERSION_CONFLICT') {
          await sleep(Math.random() * Math.min(20, 2 ** attempt));
          continue;
        }
        throw error;
      }
      this.deps.events.publish(subject, 'position.updated', positionEventData(next));
      return;
    }
    throw new AppError('RESOURCE_CONFLICT', `Concurrent updates to position ${leg.symbol}: gave up`, { retryable: true });
  }
}

/** A `position.updated` for the subject's stream, to go out with the write that made it. */
export interface PositionEvent {
  stream: string;
  type: 'position.updated';
  data: Record<string, unknown>;
}

/** USD fields as the position routes write them (two-decimal strings): one type per field on every surface. */
function positionEventData(next: PositionRecord): Record<string, unknown> {
  return {
    chain: next.chain,
    token: next.token,
    symbol: next.symbol,
    amount: next.amount,
    costBasisUsd: formatUsd(next.costBasisUsd),
    realizedPnlUsd: formatUsd(next.realizedPnlUsd),
  };
}

/**
 * What a wrap moves: the cost of the coins wrapped (their average cost), so the wrapped
 * form carries the basis and nothing is realized; coins the book does not hold are taken
 * at market value.
 */
function carriedCost(position: PositionRecord | undefined, sold: TokenLeg, marketUsd: number): number {
  const held = BigInt(position?.amountBase ?? '0');
  if (!position || held === 0n || sold.amount === 0n) return marketUsd;
  const covered = sold.amount > held ? held : sold.amount;
  const coveredCost = position.costBasisUsd * (Number(covered) / Number(held));
  return coveredCost + marketUsd * (Number(sold.amount - covered) / Number(sold.amount));
}

/** One position per (account, chain, token). */
function positionId(subject: TradingSubject, leg: Pick<TokenLeg, 'chain' | 'token'>): string {
  return `${subjectKey(subject)}|${leg.chain}|${leg.token}`;
}

function emptyPosition(subject: string, leg: TokenLeg): PositionRecord {
  return {
    subject,
    chain: leg.chain,
    token: leg.token,
    symbol: leg.symbol,
    decimals: leg.decimals,
    amount: '0',
    amountBase: '0',
    costBasisUsd: 0,
    realizedPnlUsd: 0,
    appliedRing: '',
    updatedAt: 0,
  };
}
