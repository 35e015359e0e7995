import { isAppError } from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { Chain, FaucetPort } from '../../kernel/ports/venue.port.js';
import type { CollectionSpec, StorePort } from '../../kernel/ports/store.port.js';
import type { TradingSubject } from '../portfolio/portfolio.types.js';
import type { PositionsService } from '../portfolio/positions.service.js';

/**
 * Paper faucet deposits, booked as one unit: the venue balance and the position move
 * together or the deposit stays `pending` until both have. A deposit is a document created
 * first, under an id the service draws (never one a client sends, such as `X-Request-Id`),
 * and both sides are written with that id as their reference, each refusing it a second
 * time. So a client retry is a new deposit on both sides, and a crash between the two writes
 * is finished by `finishPending` (at start and by the reconciliation sweep) without doubling
 * or dropping either.
 */

export const DEPOSITS_COLLECTION: CollectionSpec = { name: 'trading.deposits', indexes: ['state'] };

export interface DepositRequest {
  chain: Chain;
  /** The custodial wallet credited. */
  address: string;
  token: { address: string; symbol: string; decimals: number };
  /** Base units. */
  amount: bigint;
  /** Price at the deposit: its cost in the book, the same on a recovery. */
  priceUsd: number;
}

interface DepositDoc {
  subject: TradingSubject;
  chain: Chain;
  address: string;
  token: string;
  symbol: string;
  decimals: number;
  amountBase: string;
  priceUsd: number;
  state: 'pending' | 'booked';
  createdAt: number;
}

export interface DepositsDeps {
  store: StorePort;
  clock: ClockPort;
  faucet: FaucetPort;
  positions: PositionsService;
  /** A fresh unguessable deposit id. */
  newId: () => string;
}

const PAGE = 200;
/** How long a booked deposit is kept (its references live on in the balance and the position). */
const BOOKED_KEPT_MS = 7 * 24 * 60 * 60 * 1000;

export class DepositsService {
  constructor(private readonly deps: DepositsDeps) {}

  /** Credits the wallet and books the position; answers the wallet's new balance of the token (base units). */
  async deposit(subject: TradingSubject, request: DepositRequest): Promise<{ depositId: string; balance: string }> {
    const depositId = this.deps.newId();
    const doc: DepositDoc = {
      subject,
      chain: request.chain,
      address: request.address,
      token: request.token.address,
      symbol: request.token.symbol,
      decimals: request.token.decimals,
      amountBase: request.amount.toString(),
      priceUsd: request.priceUsd,
      state: 'pending',
      createdAt: this.deps.clock.now(),
    };
    // The intent is durable before either side moves: whatever happens next, it gets finished.
    await this.deps.store.put(DEPOSITS_COLLECTION.name, depositId, { data: doc, expectedVersion: 0, indexes: { state: 'pending' } });
    const balance = await this.book(depositId, doc, 1);
    return { depositId, balance };
  }

  /**
   * Finishes deposits a crash left half-booked (created before `before`, when given: younger
   * ones are most likely still running, though finishing them too would be harmless).
   */
  async finishPending(before?: number): Promise<number> {
    let finished = 0;
    let cursor: string | undefined;
    do {
      const page = await this.deps.store.find<DepositDoc>(
        DEPOSITS_COLLECTION.name,
        { index: 'state', eq: 'pending' },
        { limit: PAGE, ...(cursor ? { cursor } : {}) },
      );
      for (const doc of page.items) {
        if (before !== undefined && doc.data.createdAt >= before) continue;
        await this.book(doc.id, doc.data, doc.version);
        finished++;
      }
      cursor = page.nextCursor;
    } while (cursor);
    return finished;
  }

  /** Both sides under the deposit's id (each applies it once), then the deposit is `booked`. */
  private async book(depositId: string, doc: DepositDoc, version: number): Promise<string> {
    const amount = BigInt(doc.amountBase);
    const balance = await this.deps.faucet.credit(doc.chain, doc.address, doc.token, doc.amountBase, `deposit:${depositId}`);
    await this.deps.positions.bookDeposit(doc.subject, `deposit:${depositId}`, {
      chain: doc.chain,
      token: doc.token,
      symbol: doc.symbol,
      decimals: doc.decimals,
      amount,
      priceUsd: doc.priceUsd,
    });
    try {
      await this.deps.store.put(DEPOSITS_COLLECTION.name, depositId, {
        data: { ...doc, state: 'booked' },
        expectedVersion: version,
        indexes: { state: 'booked' },
        expiresAt: this.deps.clock.now() + BOOKED_KEPT_MS,
      });
    } catch (error) {
      // Another process finished it first: the same writes, already applied.
      if (!isAppError(error) || error.code !== 'VERSION_CONFLICT') throw error;
    }
    return balance;
  }
}
