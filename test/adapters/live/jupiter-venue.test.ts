import { Keypair, LAMPORTS_PER_SOL } from '@solana/web3.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../support/manual-clock.adapter.js';
import { MemoryStore } from '../../support/memory-store.adapter.js';
import { BreakerVenue } from '../../../adapters/resilience/breaker-venue.adapter.js';
import { LIVE_EXECUTIONS, type LiveExecutionRecord } from '../../../adapters/resilience/execution-journal.js';
import { JupiterVenue, type JupiterVenueOptions } from '../../../adapters/solana/jupiter-venue.adapter.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import { NATIVE_SOL_MINT, type ExecuteRequest } from '../../../kernel/ports/venue.port.js';
import { json } from './support/fake-http-server.js';
import { FakeJupiter } from './support/fake-jupiter.js';
import { LiteSvmRpc } from './support/litesvm-rpc.js';
import { setTokenBalance, solanaSigner } from './support/solana-fixtures.js';
import { httpStatusOf } from '../../../src/surface-common/http-status.js';

let rpc: LiteSvmRpc;
let fake: FakeJupiter;
let store: MemoryStore;
let clock: ManualClock;
let user: Keypair;

beforeEach(async () => {
  rpc = new LiteSvmRpc();
  fake = await FakeJupiter.start(rpc);
  clock = new ManualClock();
  store = new MemoryStore(clock);
  await store.init([LIVE_EXECUTIONS]);
  user = Keypair.generate();
  rpc.airdrop(user.publicKey, BigInt(10 * LAMPORTS_PER_SOL));
});
afterEach(() => fake.server.close());

const venue = (options: Partial<JupiterVenueOptions> = {}) =>
  new JupiterVenue({ apiUrl: fake.apiUrl, rpc, store, clock, confirm: { timeoutMs: 0, pollMs: 5 }, ...options });
const buy = (overrides: Partial<ExecuteRequest> = {}): ExecuteRequest => ({
  clientOrderId: 'order-1',
  chain: 'solana',
  signer: solanaSigner(user),
  inputMint: NATIVE_SOL_MINT,
  outputMint: fake.mint.toBase58(),
  amountIn: String(LAMPORTS_PER_SOL),
  minOut: '140000000',
  slippageBps: 100,
  ...overrides,
});
async function failure(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('JupiterVenue: tokens, prices, quotes', () => {
  it('finds tokens by symbol (case-insensitive) and by mint, and caches lookups', async () => {
    const jupiter = venue();
    expect(await jupiter.findToken('solana', 'usdt')).toEqual({
      chain: 'solana',
      address: fake.mint.toBase58(),
      symbol: 'USDT',
      name: 'Tether USD',
      decimals: 6,
    });
    expect(await jupiter.findToken('solana', 'USDT')).toMatchObject({ symbol: 'USDT' });
    expect(await jupiter.findToken('solana', NATIVE_SOL_MINT)).toEqual({
      chain: 'solana',
      address: NATIVE_SOL_MINT,
      symbol: 'SOL',
      name: 'Wrapped SOL',
      decimals: 9,
      native: true,
    });
    expect(await jupiter.findToken('solana', 'NOPE')).toBeNull();
    expect((await jupiter.findToken('solana', 'usdc'))?.address).toBe(fake.usdc.toBase58());
    expect(await jupiter.findToken('base', 'USDT')).toBeNull();
    expect(fake.server.hits('/tokens/v2/search').map((r) => r.query.get('query'))).toEqual(['usdt', NATIVE_SOL_MINT, 'NOPE', 'usdc']);
    await clock.advance(61_000);
    await jupiter.findToken('solana', 'usdt');
    expect(fake.server.hits('/tokens/v2/search')).toHaveLength(5);
  });

  it('searches tokens with a limit and answers nothing for other chains; reads USD prices', async () => {
    const jupiter = venue();
    expect((await jupiter.searchTokens('usdt', { limit: 1 })).map((t) => t.symbol)).toEqual(['USDT']);
    expect((await jupiter.searchTokens('usdt', { limit: 5 })).map((t) => t.symbol)).toEqual(['USDT', 'USDTX']);
    expect(await jupiter.searchTokens('usdt', { chain: 'ethereum', limit: 5 })).toEqual([]);
    expect(await jupiter.priceUsd('solana', NATIVE_SOL_MINT)).toBe(150.25);
    expect(await jupiter.priceUsd('solana', fake.tokens.find((t) => t.symbol === 'USDTX')!.id)).toBeNull();
    expect(await jupiter.priceUsd('arbitrum', NATIVE_SOL_MINT)).toBeNull();
    expect(await jupiter.priceUsd('solana', 'not-a-mint')).toBeNull();
    fake.server.route('GET', '/price/v3', json(400, { error: 'Invalid ids' }));
    const refused = await failure(jupiter.priceUsd('solana', NATIVE_SOL_MINT));
    expect([httpStatusOf(refused), refused.message]).toEqual([400, 'price refused by jupiter (HTTP 400)']);
  });

  it('maps a /quote answer onto the port: expected, minimum, spot, impact and input-token fee', async () => {
    const quote = await venue().quote({
      chain: 'solana',
      inputMint: NATIVE_SOL_MINT,
      outputMint: fake.mint.toBase58(),
      amountIn: '1000000000',
      slippageBps: 50,
    });
    const [request] = fake.server.hits('/swap/v1/quote');
    expect(Object.fromEntries(request!.query)).toEqual({
      inputMint: NATIVE_SOL_MINT,
      outputMint: fake.mint.toBase58(),
      amount: '1000000000',
      slippageBps: '50',
      swapMode: 'ExactIn',
    });
    // 1 SOL less 0.25 % fee at 150 USDT: 149.625 USDT; 0.5 % slippage; 0.12 % impact.
    expect(quote).toEqual({
      chain: 'solana',
      inputMint: NATIVE_SOL_MINT,
      outputMint: fake.mint.toBase58(),
      amountIn: '1000000000',
      expectedOut: '149625000',
      minOut: '148876875',
      spotOut: '149804765',
      priceImpactBps: 12,
      feeAmount: '2500000',
      venue: 'jupiter',
      expiresAt: clock.now() + 30_000,
    });
  });

  it('translates refusals: unknown token → 404, no route → 400, bad mint never reaches Jupiter', async () => {
    const unknown = Keypair.generate().publicKey.toBase58();
    const notFound = await failure(
      venue().quote({ chain: 'solana', inputMint: NATIVE_SOL_MINT, outputMint: unknown, amountIn: '1000', slippageBps: 50 }),
    );
    expect([notFound.code, httpStatusOf(notFound), notFound.message]).toEqual(['TOKEN_NOT_FOUND', 404, `Token not found: ${unknown}`]);
    const noRoute = await failure(
      venue().quote({ chain: 'solana', inputMint: NATIVE_SOL_MINT, outputMint: NATIVE_SOL_MINT, amountIn: '1000', slippageBps: 50 }),
    );
    expect(httpStatusOf(noRoute)).toBe(400);
    expect(noRoute.message).toBe(
      `No route found for ${NATIVE_SOL_MINT} -> ${NATIVE_SOL_MINT} (COULD_NOT_FIND_ANY_ROUTE: Could not find any route)`,
    );
    const hits = fake.server.hits('/swap/v1/quote').length;
    expect(
      (await failure(venue().quote({ chain: 'solana', inputMint: 'bogus', outputMint: NATIVE_SOL_MINT, amountIn: '1', slippageBps: 50 })))
        .message,
    ).toBe('Token not found: bogus');
    expect(
      httpStatusOf(
        await failure(
          venue().quote({ chain: 'base', inputMint: NATIVE_SOL_MINT, outputMint: NATIVE_SOL_MINT, amountIn: '1', slippageBps: 50 }),
        ),
      ),
    ).toBe(400);
    expect(fake.server.hits('/swap/v1/quote')).toHaveLength(hits);
  });

  it('turns 5xx, unreadable answers and stalls into PROVIDER_UNAVAILABLE', async () => {
    const request = {
      chain: 'solana' as const,
      inputMint: NATIVE_SOL_MINT,
      outputMint: fake.mint.toBase58(),
      amountIn: '1000',
      slippageBps: 50,
    };
    fake.server.route('GET', '/swap/v1/quote', json(500, { error: 'Internal error' }));
    expect((await failure(venue().quote(request))).message).toBe('Provider unavailable: jupiter (HTTP 500)');
    fake.server.route('GET', '/swap/v1/quote', json(200, { outAmount: 12 }));
    expect((await failure(venue().quote(request))).message).toBe('Provider unavailable: jupiter (unexpected quote response shape)');
    fake.server.route('GET', '/swap/v1/quote', fake.server.stall());
    const slow = await failure(venue({ requestTimeoutMs: 50 }).quote(request));
    expect([httpStatusOf(slow), slow.message]).toEqual([503, 'Provider unavailable: jupiter (request timed out)']);
  });

  it('behind a BreakerVenue: opens after N failures, answers the interface message, then half-opens', async () => {
    const guarded = new BreakerVenue(venue(), { threshold: 3, openMs: 60_000, timeoutMs: 2_000, clock });
    const request = {
      chain: 'solana' as const,
      inputMint: NATIVE_SOL_MINT,
      outputMint: fake.mint.toBase58(),
      amountIn: '1000',
      slippageBps: 50,
    };
    fake.server.route('GET', '/swap/v1/quote', json(500, { error: 'boom' }));
    for (let i = 0; i < 2; i++) expect((await failure(guarded.quote(request))).code).toBe('PROVIDER_UNAVAILABLE');
    // A refusal is the caller's problem, not Jupiter's: it does not count.
    expect((await failure(guarded.quote({ ...request, inputMint: 'bogus' }))).code).toBe('TOKEN_NOT_FOUND');
    expect(guarded.breakerState()).toBe('closed');
    await failure(guarded.quote(request));
    expect(guarded.breakerState()).toBe('open');
    const open = await failure(guarded.quote(request));
    expect([open.code, httpStatusOf(open), open.message, open.retryAfterSeconds]).toEqual([
      'CIRCUIT_BREAKER_OPEN',
      503,
      'Circuit breaker open for provider: jupiter',
      60,
    ]);
    expect(fake.server.hits('/swap/v1/quote')).toHaveLength(3);
    await clock.advance(60_000);
    expect(guarded.breakerState()).toBe('half_open');
    fake.healthy();
    expect((await guarded.quote(request)).expectedOut).toBe('149');
    expect(guarded.breakerState()).toBe('closed');
  });

  it('reports health from Jupiter and the RPC', async () => {
    expect(await venue().health('solana')).toMatchObject({ chain: 'solana', reachable: true });
    fake.server.route('GET', '/price/v3', json(503, {}));
    expect(await venue().health('solana')).toEqual({
      chain: 'solana',
      reachable: false,
      error: 'Provider unavailable: jupiter (HTTP 503)',
    });
  });
});

describe('JupiterVenue: balances and execution over LiteSVM', () => {
  it('reads SOL and token balances of a wallet', async () => {
    setTokenBalance(rpc, user.publicKey, fake.mint, 42n);
    expect(await venue().balances('solana', user.publicKey.toBase58())).toEqual({
      [NATIVE_SOL_MINT]: String(10 * LAMPORTS_PER_SOL),
      [fake.mint.toBase58()]: '42',
    });
  });

  it('signs the /swap transaction, journals it durably before broadcast, and reports the amount really received', async () => {
    // Count the ledger's landed transactions at every journal write and every wait for the flush.
    const landedAtWrite: number[] = [];
    const landedAtFlush: number[] = [];
    const put = store.put.bind(store);
    store.put = (collection, id, input, journal) => {
      if (collection === LIVE_EXECUTIONS.name) landedAtWrite.push(rpc.landed.length);
      return put(collection, id, input, journal);
    };
    store.durable = async () => void landedAtFlush.push(rpc.landed.length);
    const result = await venue().execute(buy());
    expect(result).toEqual({ status: 'filled', filledOut: '149625500', txSignature: rpc.landed[0], at: clock.now() });
    expect(landedAtWrite).toEqual([0, 1]);
    expect(landedAtFlush[0]).toBe(0); // the signed transaction's entry was durable before it went out
    const swapRequest = fake.server.hits('/swap/v1/swap')[0]!.body as Record<string, unknown>;
    expect(swapRequest).toMatchObject({
      userPublicKey: user.publicKey.toBase58(),
      wrapAndUnwrapSol: true,
      quoteResponse: { outAmount: '149625000' },
    });
    expect(await venue().balances('solana', user.publicKey.toBase58())).toMatchObject({ [fake.mint.toBase58()]: '149625500' });
    const doc = await store.get<LiveExecutionRecord>(LIVE_EXECUTIONS.name, 'jupiter:order-1');
    expect(doc?.data).toMatchObject({
      status: 'filled',
      txSignature: result.txSignature,
      lastValidBlockHeight: expect.any(Number),
      rawTx: expect.any(String),
    });
  });

  it('executes one client order id once: a repeat answers the first outcome without a new swap', async () => {
    const first = await venue().execute(buy());
    const again = await venue().execute(buy({ amountIn: '5' }));
    expect(again).toEqual(first);
    expect(await venue().lookup('order-1', 'solana')).toEqual(first);
    expect(fake.server.hits('/swap/v1/swap')).toHaveLength(1);
    expect(rpc.landed).toHaveLength(1);
  });

  it('broadcasts once when two executes of one order race', async () => {
    const [a, b] = await Promise.all([venue().execute(buy()), venue().execute(buy())]);
    expect(a).toEqual(b);
    expect(rpc.landed).toEqual([(a as { txSignature: string }).txSignature]);
  });

  it('after a lost broadcast, a lookup (in a new process) re-sends the same signed transaction', async () => {
    rpc.failNextSends = 1;
    const submitted = await venue().execute(buy());
    expect(submitted).toMatchObject({ status: 'submitted' });
    expect(rpc.landed).toEqual([]);
    const restarted = venue();
    const result = await restarted.lookup('order-1', 'solana');
    expect(result).toMatchObject({ status: 'filled', txSignature: (submitted as { txSignature: string }).txSignature });
    expect(await restarted.execute(buy())).toEqual(result);
    expect(rpc.landed).toHaveLength(1);
    expect(fake.server.hits('/swap/v1/swap')).toHaveLength(1);
  });

  it('fails as expired when the blockhash runs out before the transaction lands', async () => {
    rpc.dropNextSends = 1;
    expect((await venue().execute(buy())).status).toBe('submitted');
    rpc.warpSlots(200);
    const expired = await venue().lookup('order-1', 'solana');
    expect(expired).toMatchObject({ status: 'failed', reason: 'expired' });
    expect(rpc.landed).toEqual([]);
    expect(await venue().balances('solana', user.publicKey.toBase58())).toEqual({ [NATIVE_SOL_MINT]: String(10 * LAMPORTS_PER_SOL) });
  });

  it('fails with insufficient_balance before quoting when the wallet cannot pay', async () => {
    const result = await venue().execute(buy({ amountIn: String(11 * LAMPORTS_PER_SOL) }));
    expect(result).toMatchObject({ status: 'failed', reason: 'insufficient_balance' });
    expect(fake.server.hits('/swap/v1/quote')).toHaveLength(0);
  });

  it('refuses to send when the quoted minimum is below the order minOut (slippage), once and for all', async () => {
    const result = await venue().execute(buy({ minOut: '149000000' }));
    expect(result).toMatchObject({ status: 'failed', reason: 'slippage' });
    expect(await venue().execute(buy())).toEqual(result);
    expect(fake.server.hits('/swap/v1/swap')).toHaveLength(0);
    expect(rpc.landed).toEqual([]);
  });

  it('reports a swap the chain refuses in preflight as failed, and never re-sends it', async () => {
    // The pool cannot pay: the token program refuses the transfer (custom error 1).
    fake.deliver = () => 10n ** 15n;
    const result = await venue().execute(buy());
    expect(result).toMatchObject({ status: 'failed', reason: 'rejected', txSignature: expect.any(String) });
    expect((result as { message: string }).message).toMatch(/custom program error: 0x1/);
    expect(await venue().lookup('order-1', 'solana')).toEqual(result);
    expect(rpc.landed).toEqual([]);
  });

  it('reports a swap that lands and fails on chain as failed, from its signature status', async () => {
    rpc.skipPreflightAlways = true;
    fake.deliver = () => 10n ** 15n;
    const result = await venue().execute(buy());
    expect(result).toMatchObject({ status: 'failed', reason: 'rejected', txSignature: rpc.landed[0] });
    expect((result as { message: string }).message).toBe('Transaction failed on chain: {"InstructionError":[2,{"Custom":1}]}');
  });

  it('reports the quoted amount for native SOL output, which the token balances cannot show', async () => {
    setTokenBalance(rpc, user.publicKey, fake.mint, 300_000_000n);
    const result = await venue().execute(
      buy({ inputMint: fake.mint.toBase58(), outputMint: NATIVE_SOL_MINT, amountIn: '150000000', minOut: '0' }),
    );
    expect(result).toMatchObject({ status: 'filled', filledOut: '997500000' });
  });

  it('refuses a swap transaction paid by another wallet, before signing', async () => {
    fake.payer = Keypair.generate().publicKey;
    const signer = solanaSigner(user);
    const error = await failure(venue().execute(buy({ signer })));
    expect([httpStatusOf(error), error.message]).toEqual([
      503,
      'Provider unavailable: jupiter (swap transaction is not paid by the wallet)',
    ]);
    expect(signer.uses).toBe(0);
    expect(await venue().lookup('order-1', 'solana')).toBeNull();
  });
});
