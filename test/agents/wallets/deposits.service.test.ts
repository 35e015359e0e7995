import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../support/manual-clock.adapter.js';
import { MemoryStore } from '../../support/memory-store.adapter.js';
import { PAPER_COLLECTIONS } from '../../../adapters/paper/paper-ledger.js';
import { PaperVenue } from '../../../adapters/paper/paper-venue.adapter.js';
import { DEPOSITS_COLLECTION, DepositsService } from '../../../agents/wallets/deposits.service.js';
import type { TradingSubject } from '../../../agents/portfolio/portfolio.types.js';
import { TRADING_RECORD_COLLECTIONS, TRADING_RECORDS } from '../../../agents/portfolio/portfolio.records.js';
import { ringIds } from '../../../kernel/vocabulary/id-ring.js';
import { type PositionRecord, PositionsService } from '../../../agents/portfolio/positions.service.js';
import { TradingEvents } from '../../../agents/trading/trading-events.js';

const WALLET = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const USDC = { address: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', symbol: 'USDC', decimals: 6 };
const subject: TradingSubject = { type: 'agent', id: 'a1' };

async function setUp() {
  const clock = new ManualClock(1_700_000_000_000);
  const store = new MemoryStore(clock);
  await store.init([...TRADING_RECORD_COLLECTIONS, ...PAPER_COLLECTIONS, DEPOSITS_COLLECTION]);
  const venue = new PaperVenue({ store, clock, seed: 'test' });
  const positions = new PositionsService({ store, clock, events: new TradingEvents({ publish: () => undefined }) });
  let n = 0;
  const deposits = new DepositsService({ store, clock, faucet: venue, positions, newId: () => `dep_${++n}` });
  const position = async () => (await positions.list(subject)).find((p) => p.symbol === 'USDC');
  const balance = async () => (await venue.balances('solana', WALLET))[USDC.address];
  return { clock, store, venue, positions, deposits, position, balance };
}

const request = { chain: 'solana' as const, address: WALLET, token: USDC, amount: 100_000_000n, priceUsd: 1 };

describe('paper faucet deposits: balance and position as one unit', () => {
  it('every deposit books both sides once, under its own id', async () => {
    const { deposits, position, balance } = await setUp();
    for (let i = 0; i < 3; i++) await deposits.deposit(subject, request);
    expect(await balance()).toBe('300000000');
    expect(await position()).toMatchObject({ amountBase: '300000000', costBasisUsd: 300 });
  });

  it('a crash between the two sides is finished once, neither doubling the balance nor dropping the position', async () => {
    const { deposits, positions, position, balance } = await setUp();
    const book = positions.bookDeposit.bind(positions);
    positions.bookDeposit = async () => {
      throw new Error('process died');
    };
    await expect(deposits.deposit(subject, request)).rejects.toThrow('process died');
    expect(await balance()).toBe('100000000');
    expect(await position()).toBeUndefined();

    positions.bookDeposit = book;
    expect(await deposits.finishPending()).toBe(1);
    expect(await deposits.finishPending()).toBe(0);
    expect(await balance()).toBe('100000000');
    expect(await position()).toMatchObject({ amountBase: '100000000', costBasisUsd: 100 });
  });

  it('the sweep leaves a deposit younger than its cut-off to the call still running it', async () => {
    const { deposits, positions, clock } = await setUp();
    positions.bookDeposit = async () => {
      throw new Error('process died');
    };
    await expect(deposits.deposit(subject, request)).rejects.toThrow();
    expect(await deposits.finishPending(clock.now() - 60_000)).toBe(0);
  });

  it('the venue credits a reference once', async () => {
    const { venue } = await setUp();
    expect(await venue.credit('solana', WALLET, 'USDC', '5', 'deposit:x')).toBe('5');
    expect(await venue.credit('solana', WALLET, 'USDC', '5', 'deposit:x')).toBe('5');
    expect(await venue.credit('solana', WALLET, 'USDC', '5')).toBe('10');
  });

  it('a position written before the one-string rings still refuses what it booked, and is rewritten in the new form', async () => {
    const { store, positions, position } = await setUp();
    const leg = { chain: 'solana', token: USDC.address, symbol: 'USDC', decimals: 6, amount: 100_000_000n, priceUsd: 1 };
    await positions.bookDeposit(subject, 'dep_old', leg);
    const { id, version, data } = (
      await store.find<PositionRecord>(TRADING_RECORDS.positions, { index: TRADING_RECORDS.subjectIndex }, { limit: 10 })
    ).items[0]!;
    // The document as builds before this one stored it: the ring an array under `applied`.
    const { appliedRing, ...rest } = data;
    await store.put(TRADING_RECORDS.positions, id, {
      data: { ...rest, applied: ringIds(appliedRing!) },
      expectedVersion: version,
      indexes: { [TRADING_RECORDS.subjectIndex]: data.subject },
    });

    await positions.bookDeposit(subject, 'dep_old', leg);
    expect(await position()).toMatchObject({ amountBase: '100000000', applied: ['dep_old'] });
    await positions.bookDeposit(subject, 'dep_new', leg);
    const rewritten = await position();
    expect(rewritten).toMatchObject({ amountBase: '200000000', appliedRing: 'dep_old\ndep_new', costBasisUsd: 200 });
    expect(rewritten).not.toHaveProperty('applied');
  });
});
