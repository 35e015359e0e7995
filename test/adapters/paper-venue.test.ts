import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bs58 from 'bs58';
import fc from 'fast-check';
import { getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { LmdbStore } from '../../adapters/lmdb/lmdb-store.adapter.js';
import { MemoryStore } from '../support/memory-store.adapter.js';
import {
  BALANCES_COLLECTION,
  FILLS_COLLECTION,
  INSUFFICIENT_BALANCE_MESSAGE,
  PAPER_COLLECTIONS,
  PaperLedger,
  SLIPPAGE_MESSAGE,
  type BalanceDoc,
  type StoredBalanceDoc,
  type FillDoc,
} from '../../adapters/paper/paper-ledger.js';
import { quotePool } from '../../adapters/paper/paper-pools.js';
import { PaperPriceFeed } from '../../adapters/paper/paper-price-feed.js';
import { findPaperToken, PAPER_ASSETS, PAPER_TOKENS, type PaperToken } from '../../adapters/paper/paper-tokens.js';
import { minOutOf, PaperVenue, paperTxSignature } from '../../adapters/paper/paper-venue.adapter.js';
import { EVM_CHAINS, NATIVE_EVM_ADDRESS, NATIVE_SOL_MINT, type Chain, type WalletSigner } from '../../kernel/ports/venue.port.js';
import { describeVenueContract, type VenueSubject } from '../contracts/venue.contract.js';

const SEED = 'paper-test-seed';
const DAY = 86_400_000;

function subjectOn(
  store: MemoryStore | LmdbStore,
  clock: ManualClock,
  cleanup: () => Promise<void>,
): VenueSubject & { venue: PaperVenue; cleanup: () => Promise<void> } {
  const venue = new PaperVenue({ store, clock, seed: SEED });
  const fund = async (chain: Chain, address: string, token: string, amount: string) => {
    await venue.credit(chain, address, token, amount);
  };
  return { venue, fund, cleanup };
}

async function memoryVenue() {
  const clock = new ManualClock();
  const store = new MemoryStore(clock);
  await store.init(PAPER_COLLECTIONS);
  return { ...subjectOn(store, clock, () => store.close()), store, clock };
}

async function lmdbVenue() {
  const path = await mkdtemp(join(tmpdir(), 'paper-venue-'));
  const clock = new ManualClock();
  const store = new LmdbStore({ path, clock, sweepIntervalMs: 3_600_000 });
  await store.init(PAPER_COLLECTIONS);
  return subjectOn(store, clock, async () => {
    await store.close();
    await rm(path, { recursive: true, force: true });
  });
}

describeVenueContract('PaperVenue on MemoryStore (solana)', memoryVenue, { chain: 'solana' });
describeVenueContract('PaperVenue on MemoryStore (base)', memoryVenue, { chain: 'base' });
describeVenueContract('PaperVenue on LmdbStore (solana)', lmdbVenue, { chain: 'solana' });
describeVenueContract('PaperVenue on LmdbStore (ethereum)', lmdbVenue, { chain: 'ethereum' });

const token = (chain: Chain, symbol: string): PaperToken => findPaperToken(chain, symbol) ?? expect.unreachable(`${symbol} on ${chain}`);
const WALLET = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const signer = (address = WALLET, chain: WalletSigner['chain'] = 'solana'): WalletSigner => ({
  walletId: 'w',
  chain,
  address,
  withSecretKey: () => Promise.reject(new Error('the paper venue never signs')),
});

describe('paper tokens', () => {
  it('lists EVM addresses in their EIP-55 form and Solana mints as 32-byte keys', () => {
    for (const chain of EVM_CHAINS) for (const { address } of PAPER_TOKENS[chain]) expect(getAddress(address)).toBe(address);
    for (const { address } of PAPER_TOKENS.solana) expect(bs58.decode(address)).toHaveLength(32);
  });

  it('has the mainnet mints and decimals of the Solana majors', () => {
    const expected: Record<string, [string, number]> = {
      SOL: [NATIVE_SOL_MINT, 9],
      USDC: ['EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', 6],
      USDT: ['Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB', 6],
      BONK: ['DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263', 5],
      JTO: ['jtojtomepa8beP8AuQc6eXt5FriJwfFMwQx2v2f9mCL', 9],
    };
    for (const [symbol, [address, decimals]] of Object.entries(expected))
      expect(token('solana', symbol)).toMatchObject({ address, decimals });
    expect(token('ethereum', 'WBTC').decimals).toBe(8);
    expect(token('arbitrum', 'eth')).toMatchObject({ native: true, decimals: 18 });
  });

  it('keeps symbols and addresses unique per chain', () => {
    for (const tokens of Object.values(PAPER_TOKENS)) {
      expect(new Set(tokens.map((t) => t.symbol.toLowerCase())).size).toBe(tokens.length);
      expect(new Set(tokens.map((t) => t.address.toLowerCase())).size).toBe(tokens.length);
    }
  });

  it('finds EVM addresses in any case and Solana mints only exactly', async () => {
    const { venue } = await memoryVenue();
    expect(await venue.findToken('base', '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913')).toMatchObject({ symbol: 'USDC' });
    expect(await venue.findToken('solana', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'.toLowerCase())).toBeNull();
    expect(await venue.findToken('solana', 'WETH')).toBeNull();
    expect(await venue.findToken('polygon' as Chain, 'USDC')).toBeNull();
    expect(await venue.findToken('solana', 'sol')).toEqual({
      chain: 'solana',
      address: NATIVE_SOL_MINT,
      symbol: 'SOL',
      name: 'Solana',
      decimals: 9,
      native: true,
    });
  });

  it('searches symbol, name and address, best match first, within the limit', async () => {
    const { venue } = await memoryVenue();
    expect((await venue.searchTokens('sol', { chain: 'solana', limit: 10 })).map((t) => t.symbol)).toEqual(['SOL', 'mSOL']);
    expect((await venue.searchTokens('usd', { chain: 'solana', limit: 1 })).map((t) => t.symbol)).toEqual(['USDC']);
    expect((await venue.searchTokens('staked', { chain: 'solana', limit: 5 })).map((t) => t.symbol)).toEqual(['mSOL']);
    expect((await venue.searchTokens('JUPyiw', { chain: 'solana', limit: 5 })).map((t) => t.symbol)).toEqual(['JUP']);
    const everywhere = await venue.searchTokens('USDC', { limit: 10 });
    expect(new Set(everywhere.map((t) => t.chain))).toEqual(new Set(['solana', 'ethereum', 'base', 'arbitrum', 'optimism']));
  });
});

describe('paper price feed', () => {
  const clock = new ManualClock();
  const sol = token('solana', 'SOL');
  const times = Array.from({ length: 200 }, (_, i) => clock.now() + i * 7_919_311);

  it('gives the same prices for the same seed and other prices for another seed', () => {
    const [a, b, other] = [
      new PaperPriceFeed({ seed: SEED, clock }),
      new PaperPriceFeed({ seed: SEED, clock }),
      new PaperPriceFeed({ seed: 'other', clock }),
    ];
    expect(times.map((t) => a.priceUsd(sol, t))).toEqual(times.map((t) => b.priceUsd(sol, t)));
    expect(times.filter((t) => a.priceUsd(sol, t) !== other.priceUsd(sol, t)).length).toBeGreaterThan(190);
  });

  it('keeps stablecoins at exactly 1 and moves other tokens within their band', () => {
    const feed = new PaperPriceFeed({ seed: SEED, clock });
    for (const t of times) expect(feed.priceUsd(token('ethereum', 'DAI'), t)).toBe(1);
    const { basePriceUsd, volatility } = PAPER_ASSETS.SOL;
    const prices = times.map((t) => feed.priceUsd(sol, t));
    for (const p of prices) expect(p >= basePriceUsd * Math.exp(-volatility) && p <= basePriceUsd * Math.exp(volatility)).toBe(true);
    expect(Math.max(...prices) / Math.min(...prices)).toBeGreaterThan(1.05);
    expect(feed.priceUsd(token('solana', 'mSOL'), times[0]!) / prices[0]!).toBeCloseTo(1.27, 10);
  });

  it('is continuous: prices move by little within a millisecond and within a minute', () => {
    const feed = new PaperPriceFeed({ seed: SEED, clock });
    for (const t of times) {
      expect(Math.abs(feed.priceUsd(sol, t + 1) / feed.priceUsd(sol, t) - 1)).toBeLessThan(1e-6);
      expect(Math.abs(feed.priceUsd(sol, t + 60_000) / feed.priceUsd(sol, t) - 1)).toBeLessThan(0.005);
    }
  });

  it('reads now from the clock', async () => {
    const manual = new ManualClock();
    const feed = new PaperPriceFeed({ seed: SEED, clock: manual });
    const first = feed.priceUsd(sol);
    expect(first).toBe(feed.priceUsd(sol, manual.now()));
    await manual.advance(DAY);
    expect(feed.priceUsd(sol)).not.toBe(first);
  });
});

describe('paper pools', () => {
  const side = (priceUsd: number, decimals: number, depthUsd: number) => ({ priceUsd, decimals, depthUsd });

  it('moves the price of a $1M SOL order against a $50M pool by about 4%', () => {
    const q = quotePool(side(100, 9, 50e6), side(1, 6, 200e6), 10_000n * 10n ** 9n);
    expect(q.priceImpactBps).toBeGreaterThan(370);
    expect(q.priceImpactBps).toBeLessThan(400);
    expect(q.feeAmount).toBe(30n * 10n ** 9n);
    expect(q.spotOut).toBe(1_000_000n * 10n ** 6n);
    const loss = 1 - Number(q.expectedOut) / Number(q.spotOut);
    expect(loss).toBeCloseTo(1 - 0.997 * (1 - q.priceImpactBps / 10_000), 4);
  });

  it('never pays more than spot, and without a fee a tiny trade pays spot', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 24n }), fc.integer({ min: 0, max: 1_000 }), (amount, feeBps) => {
        const q = quotePool(side(3_000, 18, 100e6), side(0.00002, 5, 10e6), amount, feeBps);
        expect(q.expectedOut <= q.spotOut).toBe(true);
        // The fee rounds up: dust pays a base unit, never nothing.
        expect(q.feeAmount).toBe((amount * BigInt(feeBps) + 9_999n) / 10_000n);
        if (feeBps > 0) expect(q.feeAmount).toBeGreaterThan(0n);
      }),
    );
    const tiny = quotePool(side(1, 6, 1e8), side(1, 6, 1e8), 1_000_000n, 0);
    expect(Number(tiny.spotOut - tiny.expectedOut)).toBeLessThanOrEqual(1);
  });
});

describe('paper venue quotes', () => {
  const request = { chain: 'solana' as const, inputMint: NATIVE_SOL_MINT, outputMint: 'USDC', amountIn: '1000000000', slippageBps: 50 };

  it('prices a large order with a large impact and derives minOut from the tolerance', async () => {
    const { venue } = await memoryVenue();
    const price = (await venue.priceUsd('solana', NATIVE_SOL_MINT))!;
    const million = BigInt(Math.round((1e6 / price) * 1e9));
    const large = await venue.quote({ ...request, amountIn: million.toString() });
    expect(large.priceImpactBps).toBeGreaterThan(350);
    expect(large.priceImpactBps).toBeLessThan(420);
    for (const slippageBps of [0, 50, 10_000]) {
      const q = await venue.quote({ ...request, slippageBps });
      expect(q.minOut).toBe(((BigInt(q.expectedOut) * BigInt(10_000 - slippageBps)) / 10_000n).toString());
    }
    expect(minOutOf(1_000n, 10_000)).toBe(0n);
    expect(await venue.priceUsd('arbitrum', 'USDC')).toBe(1);
  });

  it('refuses bad amounts, a swap into itself and a dust amount with a validation error', async () => {
    const { venue } = await memoryVenue();
    for (const amountIn of ['0', '-5', '1.5', 'abc', '']) {
      await expect(venue.quote({ ...request, amountIn })).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
        kind: 'invalid',
        envelope: 'validation',
      });
    }
    await expect(venue.quote({ ...request, outputMint: 'sol' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(venue.quote({ ...request, inputMint: 'BONK', amountIn: '1' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(venue.quote({ ...request, outputMint: 'NOPE' })).rejects.toMatchObject({
      code: 'TOKEN_NOT_FOUND',
      envelope: 'domain',
      message: 'Token not found: NOPE',
    });
  });
});

describe('paper venue execution', () => {
  const base = { chain: 'solana' as const, inputMint: 'USDC', outputMint: 'SOL', amountIn: '100000000', slippageBps: 50 };
  const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
  const balanceId = `solana:${WALLET}`;
  const pendingFill = (clientOrderId: string): FillDoc => ({
    clientOrderId,
    chain: 'solana',
    address: WALLET,
    inputMint: USDC,
    outputMint: NATIVE_SOL_MINT,
    amountIn: '100000000',
    minOut: '1',
    slippageBps: 50,
    outcome: { status: 'pending', filledOut: '650000000', txSignature: paperTxSignature('solana', clientOrderId), at: 1 },
  });
  // Balance documents as builds before the one-string rings wrote them (arrays): what a crash
  // left behind may be in that form, and must be finished exactly as it was then.
  const balanceDoc = (usdc: string, applied: string[], sol?: string): StoredBalanceDoc => ({
    balances: { [USDC]: usdc, ...(sol ? { [NATIVE_SOL_MINT]: sol } : {}) },
    applied,
    rejected: [],
  });

  it('finishes a fill whose balances were applied before a crash without debiting again', async () => {
    const { venue, store } = await memoryVenue();
    const id = randomUUID();
    await store.put(FILLS_COLLECTION, id, { data: pendingFill(id), expectedVersion: 0 });
    await store.put(BALANCES_COLLECTION, balanceId, { data: balanceDoc('50000000', [id], '650000000'), expectedVersion: 0 });
    const expected = { status: 'filled', filledOut: '650000000', txSignature: paperTxSignature('solana', id), at: 1 };
    expect(await venue.execute({ ...base, clientOrderId: id, minOut: '1', signer: signer() })).toEqual(expected);
    expect(await venue.balances('solana', WALLET)).toEqual({ [USDC]: '50000000', [NATIVE_SOL_MINT]: '650000000' });
    expect(await venue.lookup(id, 'solana')).toEqual(expected);
  });

  it('applies a fill recorded just before a crash exactly once when looked up', async () => {
    const { venue, store } = await memoryVenue();
    const id = randomUUID();
    await store.put(FILLS_COLLECTION, id, { data: pendingFill(id), expectedVersion: 0 });
    await store.put(BALANCES_COLLECTION, balanceId, { data: balanceDoc('150000000', []), expectedVersion: 0 });
    expect(await venue.lookup(id, 'solana')).toMatchObject({ status: 'filled', filledOut: '650000000' });
    expect(await venue.execute({ ...base, clientOrderId: id, minOut: '1', signer: signer() })).toMatchObject({ status: 'filled' });
    expect(await venue.balances('solana', WALLET)).toEqual({ [USDC]: '50000000', [NATIVE_SOL_MINT]: '650000000' });
    expect((await store.get<FillDoc>(FILLS_COLLECTION, id))?.data.outcome.status).toBe('filled');
  });

  it('finishes a pending fill before its id leaves the applied ring, so it is never applied twice', async () => {
    const { store } = await memoryVenue();
    const ledger = new PaperLedger({ store, ringSize: 2 });
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of [a, b, c]) await store.put(FILLS_COLLECTION, id, { data: pendingFill(id), expectedVersion: 0 });
    await store.put(BALANCES_COLLECTION, balanceId, { data: balanceDoc('300000000', [a], '650000000'), expectedVersion: 0 });
    await ledger.settle(pendingFill(b));
    await ledger.settle(pendingFill(c)); // evicts a from the ring
    expect((await store.get<FillDoc>(FILLS_COLLECTION, a))?.data.outcome.status).toBe('filled');
    expect(await ledger.settle((await ledger.readFill(a))!)).toMatchObject({ status: 'filled' });
    expect(await ledger.balances('solana', WALLET)).toEqual({ [USDC]: '100000000', [NATIVE_SOL_MINT]: '1950000000' });
  });

  it('keeps a refusal for insufficient balance even when funds arrive before the fill is marked', async () => {
    const { venue, store } = await memoryVenue();
    const id = randomUUID();
    await store.put(FILLS_COLLECTION, id, { data: pendingFill(id), expectedVersion: 0 });
    const refused: StoredBalanceDoc = { ...balanceDoc('500000000', []), rejected: [id] };
    await store.put(BALANCES_COLLECTION, balanceId, { data: refused, expectedVersion: 0 });
    expect(await venue.lookup(id, 'solana')).toEqual({
      status: 'failed',
      reason: 'insufficient_balance',
      message: INSUFFICIENT_BALANCE_MESSAGE,
      at: 1,
    });
    expect(await venue.balances('solana', WALLET)).toEqual({ [USDC]: '500000000' });
  });

  it('carries the rings of a balance document written before over to one-string rings on its next write', async () => {
    const { store } = await memoryVenue();
    const ledger = new PaperLedger({ store, ringSize: 3 });
    const [a, b, c, d] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    for (const id of [a, b, c, d]) await store.put(FILLS_COLLECTION, id, { data: pendingFill(id), expectedVersion: 0 });
    const former: StoredBalanceDoc = { ...balanceDoc('300000000', [a, b], '1300000000'), rejected: ['refused-1'], credits: ['deposit-1'] };
    await store.put(BALANCES_COLLECTION, balanceId, { data: former, expectedVersion: 0 });
    // Ids the former arrays hold are still known: settled as they were, not applied again.
    expect(await ledger.settle(pendingFill(a))).toMatchObject({ status: 'filled' });
    expect(await ledger.credit('solana', WALLET, USDC, 5n, 'deposit-1')).toBe(300000000n);
    await ledger.settle(pendingFill(c));
    await ledger.settle(pendingFill(d)); // the ring holds 3: a leaves it, finished first
    const stored = (await store.get<StoredBalanceDoc>(BALANCES_COLLECTION, balanceId))!.data;
    expect(stored).toEqual({
      balances: { [USDC]: '100000000', [NATIVE_SOL_MINT]: '2600000000' },
      appliedRing: [b, c, d].join('\n'),
      rejectedRing: 'refused-1',
      creditRing: 'deposit-1',
    } satisfies BalanceDoc);
    expect((await store.get<FillDoc>(FILLS_COLLECTION, a))?.data.outcome.status).toBe('filled');
    expect(await ledger.settle((await ledger.readFill(b))!)).toMatchObject({ status: 'filled' });
    expect(await ledger.balances('solana', WALLET)).toEqual({ [USDC]: '100000000', [NATIVE_SOL_MINT]: '2600000000' });
  });

  it('keeps the credits a build from before added beside a one-string ring', async () => {
    const { store } = await memoryVenue();
    const ledger = new PaperLedger({ store, ringSize: 3 });
    expect(await ledger.credit('solana', WALLET, USDC, 5n, 'deposit-new')).toBe(5n);
    const doc = (await store.get<StoredBalanceDoc>(BALANCES_COLLECTION, balanceId))!;
    // What a build from before writes on this document: the fields it does not know kept, its own array added.
    await store.put(BALANCES_COLLECTION, balanceId, {
      data: { ...doc.data, balances: { [USDC]: '12' }, credits: ['deposit-old'] },
      expectedVersion: doc.version,
    });
    expect(await ledger.credit('solana', WALLET, USDC, 5n, 'deposit-old')).toBe(12n);
    expect(await ledger.credit('solana', WALLET, USDC, 5n, 'deposit-new')).toBe(12n);
    expect(await ledger.credit('solana', WALLET, USDC, 1n, 'deposit-3')).toBe(13n);
    expect((await store.get<StoredBalanceDoc>(BALANCES_COLLECTION, balanceId))!.data).toEqual({
      balances: { [USDC]: '13' },
      appliedRing: '',
      rejectedRing: '',
      creditRing: 'deposit-new\ndeposit-old\ndeposit-3',
    });
  });

  it('records the first outcome of an order id and answers every later writer with it', async () => {
    const { venue, store } = await memoryVenue();
    const ledger = new PaperLedger({ store });
    const first = pendingFill('once');
    expect(await ledger.recordFill(first)).toEqual(first);
    expect(await ledger.recordFill({ ...first, outcome: { status: 'failed', reason: 'rejected', message: 'other', at: 2 } })).toEqual(
      first,
    );
    expect(await ledger.readFill('once')).toEqual(first);
    await venue.credit('solana', WALLET, 'USDC', '1000000000');
    const id = randomUUID();
    const racers = Array.from({ length: 10 }, (_, i) =>
      venue.execute({ ...base, clientOrderId: id, minOut: i % 2 ? '1' : '10000000000000', signer: signer() }),
    );
    const results = await Promise.all(racers);
    for (const result of results) expect(result).toEqual(results[0]);
  });

  it('records slippage, insufficient balance and unknown tokens with their messages', async () => {
    const { venue } = await memoryVenue();
    await venue.credit('solana', WALLET, 'USDC', '100000000');
    const slip = await venue.execute({ ...base, clientOrderId: randomUUID(), minOut: '10000000000000', signer: signer() });
    expect(slip).toMatchObject({ status: 'failed', reason: 'slippage', message: SLIPPAGE_MESSAGE });
    const broke = await venue.execute({ ...base, amountIn: '100000001', clientOrderId: randomUUID(), minOut: '1', signer: signer() });
    expect(broke).toMatchObject({ status: 'failed', reason: 'insufficient_balance', message: INSUFFICIENT_BALANCE_MESSAGE });
    const id = randomUUID();
    const unknown = await venue.execute({ ...base, outputMint: 'NOPE', clientOrderId: id, minOut: '1', signer: signer() });
    expect(unknown).toMatchObject({ status: 'failed', reason: 'unknown_token', message: 'Token not found: NOPE' });
    expect(await venue.lookup(id, 'solana')).toEqual(unknown);
    expect(await venue.balances('solana', WALLET)).toEqual({ [USDC]: '100000000' });
  });

  it('signs fills deterministically in the shape of the chain', async () => {
    expect(bs58.decode(paperTxSignature('solana', 'o-1'))).toHaveLength(64);
    expect(paperTxSignature('solana', 'o-1')).toBe(paperTxSignature('solana', 'o-1'));
    expect(paperTxSignature('base', 'o-1')).toMatch(/^0x[0-9a-f]{64}$/);
    const { venue, store } = await memoryVenue();
    await venue.credit('solana', WALLET, 'USDC', '100000000');
    const result = await venue.execute({ ...base, clientOrderId: 'o-1', minOut: '1', signer: signer() });
    expect(result).toMatchObject({ status: 'filled', txSignature: paperTxSignature('solana', 'o-1') });
    expect((await store.get<FillDoc>(FILLS_COLLECTION, 'o-1'))?.data).toMatchObject({
      address: WALLET,
      inputMint: USDC,
      outputMint: NATIVE_SOL_MINT,
      outcome: result,
    });
  });

  it('wraps and unwraps the native coin 1:1 with no fee and no impact, whatever the size, debiting one and crediting the other', async () => {
    const evm = '0x52908400098527886E0F7030069857D2E4169EE7';
    const { venue } = await memoryVenue();
    const [ETH, ONE] = [NATIVE_EVM_ADDRESS, 10n ** 18n];
    for (const chain of EVM_CHAINS) {
      const WETH = token(chain, 'WETH').address;
      for (const [inputMint, outputMint] of [
        [ETH, WETH],
        [WETH, ETH],
      ]) {
        for (const amountIn of [ONE, 1n, 10n ** 9n * ONE]) {
          const q = await venue.quote({
            chain,
            inputMint: inputMint!,
            outputMint: outputMint!,
            amountIn: amountIn.toString(),
            slippageBps: 50,
          });
          expect(q).toMatchObject({ expectedOut: amountIn.toString(), spotOut: amountIn.toString(), feeAmount: '0', priceImpactBps: 0 });
        }
      }
      await venue.credit(chain, evm, 'ETH', (3n * ONE).toString());
      const wrap = await venue.execute({
        chain,
        inputMint: 'ETH',
        outputMint: 'WETH',
        amountIn: (2n * ONE).toString(),
        minOut: (2n * ONE).toString(),
        slippageBps: 0,
        clientOrderId: `wrap-${chain}`,
        signer: signer(evm, 'evm'),
      });
      expect(wrap).toMatchObject({ status: 'filled', filledOut: (2n * ONE).toString() });
      const unwrap = await venue.execute({
        chain,
        inputMint: WETH,
        outputMint: ETH,
        amountIn: ONE.toString(),
        minOut: ONE.toString(),
        slippageBps: 0,
        clientOrderId: `unwrap-${chain}`,
        signer: signer(evm, 'evm'),
      });
      expect(unwrap).toMatchObject({ status: 'filled', filledOut: ONE.toString() });
      expect(await venue.balances(chain, evm)).toEqual({ [ETH]: (2n * ONE).toString(), [WETH]: ONE.toString() });
    }
    // ETH to anything else still goes through a pool.
    expect(
      await venue.quote({ chain: 'base', inputMint: ETH, outputMint: 'USDC', amountIn: ONE.toString(), slippageBps: 50 }),
    ).toMatchObject({ feeAmount: (3n * 10n ** 15n).toString() });
  });

  it('refuses a signer of the wrong family and answers lookups on another chain with null', async () => {
    const { venue } = await memoryVenue();
    await expect(venue.execute({ ...base, clientOrderId: 'x', minOut: '1', signer: signer(WALLET, 'evm') })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    await venue.credit('solana', WALLET, 'USDC', '100000000');
    await venue.execute({ ...base, clientOrderId: 'y', minOut: '1', signer: signer() });
    expect(await venue.lookup('y', 'base')).toBeNull();
    expect(await venue.health('base')).toMatchObject({ chain: 'base', reachable: true });
  });
});

describe('paper venue fills planned as writes', () => {
  const base = { chain: 'solana' as const, inputMint: 'USDC', outputMint: 'SOL', amountIn: '100000000', slippageBps: 50 };
  const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

  it('plans a fill without writing; committed, it is the fill execute would have made, answered once', async () => {
    const { venue, store } = await memoryVenue();
    await venue.credit('solana', WALLET, 'USDC', '100000000');
    const request = { ...base, clientOrderId: 'p1', minOut: '1', signer: signer() };
    const planned = await venue.planFill(request);
    expect(planned?.result).toMatchObject({ status: 'filled', txSignature: paperTxSignature('solana', 'p1') });
    // Nothing moved until the caller commits.
    expect(await venue.lookup('p1', 'solana')).toBeNull();
    expect(await venue.balances('solana', WALLET)).toEqual({ [USDC]: '100000000' });
    await store.commit(planned!.writes);
    expect(await venue.lookup('p1', 'solana')).toEqual(planned!.result);
    expect(await venue.balances('solana', WALLET)).toEqual({ [NATIVE_SOL_MINT]: planned!.result.filledOut });
    // The id is spent: executing it again answers the recorded fill and moves nothing.
    expect(await venue.execute(request)).toEqual(planned!.result);
    expect(await venue.balances('solana', WALLET)).toEqual({ [NATIVE_SOL_MINT]: planned!.result.filledOut });
  });

  it('plans nothing for a fill that would fail (funds, slippage): execute records those', async () => {
    const { venue } = await memoryVenue();
    await venue.credit('solana', WALLET, 'USDC', '1000');
    expect(await venue.planFill({ ...base, clientOrderId: 'p2', minOut: '1', signer: signer() })).toBeNull();
    await venue.credit('solana', WALLET, 'USDC', '100000000');
    expect(await venue.planFill({ ...base, clientOrderId: 'p3', minOut: (10n ** 30n).toString(), signer: signer() })).toBeNull();
  });

  it('decides on the balance the checks just read; one that moved since fails the commit instead of misbooking, and a retry reads afresh', async () => {
    const { venue, store } = await memoryVenue();
    await venue.credit('solana', WALLET, 'USDC', '100000000');
    const request = { ...base, clientOrderId: 'p4', minOut: '1', signer: signer() };
    // The trade's checks read the balance; another writer moves it before the plan.
    await venue.balances('solana', WALLET);
    await venue.credit('solana', WALLET, 'USDC', '1');
    const stale = await venue.planFill(request);
    await expect(store.commit(stale!.writes)).rejects.toMatchObject({ code: 'VERSION_CONFLICT' });
    expect(await venue.lookup('p4', 'solana')).toBeNull();
    const retried = await venue.planFill(request);
    await store.commit(retried!.writes);
    expect(await venue.balances('solana', WALLET)).toEqual({ [USDC]: '1', [NATIVE_SOL_MINT]: retried!.result.filledOut });
  });
});

describe('paper faucet', () => {
  const evm = '0x52908400098527886E0F7030069857D2E4169EE7';

  it('credits by symbol or address, accumulates, and keys balances by checksummed address', async () => {
    const { venue } = await memoryVenue();
    expect(await venue.credit('base', evm.toLowerCase(), 'usdc', '5')).toBe('5');
    expect(await venue.credit('base', evm, '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', '7')).toBe('12');
    expect(await venue.balances('base', evm.toLowerCase())).toEqual({ '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913': '12' });
    expect(await venue.balances('ethereum', evm)).toEqual({});
  });

  it('refuses unknown tokens (404), bad amounts and bad addresses (400)', async () => {
    const { venue } = await memoryVenue();
    await expect(venue.credit('solana', WALLET, 'NOPE', '1')).rejects.toMatchObject({
      code: 'TOKEN_NOT_FOUND',
      kind: 'not_found',
      message: 'Token not found: NOPE',
    });
    for (const amount of ['0', '-1', '1.5', 'x'])
      await expect(venue.credit('solana', WALLET, 'SOL', amount)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(venue.credit('solana', 'not-base58-0OIl', 'SOL', '1')).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(venue.credit('base', '0x1234', 'ETH', '1')).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('loses no credit when 20 land at once', async () => {
    const { venue, cleanup } = await lmdbVenue();
    try {
      await Promise.all(Array.from({ length: 20 }, () => venue.credit('arbitrum', evm, 'ARB', '3')));
      expect(await venue.balances('arbitrum', evm)).toEqual({ '0x912CE59144191C1204E64559FE8253a0e49E6548': '60' });
    } finally {
      await cleanup();
    }
  });
});
