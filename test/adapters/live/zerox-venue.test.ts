import { encodeFunctionData, parseEther, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../support/manual-clock.adapter.js';
import { EvmChain } from '../../../adapters/evm/evm-chain.adapter.js';
import { knownTokens, usdReference } from '../../../adapters/evm/evm-tokens.js';
import { ZeroExVenue, type ZeroExVenueOptions } from '../../../adapters/evm/zerox-venue.adapter.js';
import { MemoryStore } from '../../support/memory-store.adapter.js';
import { LIVE_EXECUTIONS } from '../../../adapters/resilience/execution-journal.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import { NATIVE_EVM_ADDRESS, type ExecuteRequest } from '../../../kernel/ports/venue.port.js';
import { EdrChain } from './support/edr-chain.js';
import { evmSigner, newEvmWallet, setupWallet, type TestEvmWallet } from './support/evm-fixtures.js';
import { json } from './support/fake-http-server.js';
import { FakeZeroEx } from './support/fake-zerox.js';
import { TEST_TOKEN_ABI, deployTestToken } from './support/test-token.js';
import { httpStatusOf } from '../../../src/surface-common/http-status.js';

const API_KEY = 'zx-test-key';
let edr: EdrChain;
let base: EvmChain;
let token: Address;
let fake: FakeZeroEx;
let store: MemoryStore;
let clock: ManualClock;
let user: TestEvmWallet;

beforeEach(async () => {
  const deployer = newEvmWallet();
  user = newEvmWallet();
  edr = await EdrChain.start({
    chainId: 8453,
    funded: [
      { address: deployer.address, wei: parseEther('10') },
      { address: user.address, wei: parseEther('5') },
    ],
  });
  base = new EvmChain({ chain: 'base', transport: edr.transport });
  token = await deployTestToken(setupWallet(edr, deployer), base.client, { name: 'Test USD', symbol: 'TUSD', decimals: 6 });
  edr.broadcasts.splice(0);
  fake = await FakeZeroEx.start(token);
  clock = new ManualClock();
  store = new MemoryStore(clock);
  await store.init([LIVE_EXECUTIONS]);
});
afterEach(() => fake.server.close());

const venue = (options: Partial<ZeroExVenueOptions> = {}) =>
  new ZeroExVenue({
    apiUrl: fake.server.url,
    apiKey: API_KEY,
    chains: { base },
    store,
    clock,
    confirm: { timeoutMs: 0, pollMs: 5 },
    ...options,
  });
const buy = (overrides: Partial<ExecuteRequest> = {}): ExecuteRequest => ({
  clientOrderId: 'order-1',
  chain: 'base',
  signer: evmSigner(user),
  inputMint: NATIVE_EVM_ADDRESS,
  outputMint: token,
  amountIn: String(parseEther('1')),
  minOut: '2900000000',
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

describe('ZeroExVenue: tokens, prices, quotes', () => {
  it('serves the chains it has an RPC for; finds built-in tokens by symbol and others on chain by address', async () => {
    const zeroEx = venue();
    expect(zeroEx.chains).toEqual(['base']);
    expect(await zeroEx.findToken('base', 'usdc')).toMatchObject({
      chain: 'base',
      symbol: 'USDC',
      address: usdReference('base').address,
      decimals: 6,
    });
    expect(await zeroEx.findToken('base', 'eth')).toEqual({
      chain: 'base',
      address: NATIVE_EVM_ADDRESS,
      symbol: 'ETH',
      name: 'Ether',
      decimals: 18,
      native: true,
    });
    expect(await zeroEx.findToken('base', token.toLowerCase())).toEqual({
      chain: 'base',
      address: token,
      symbol: 'TUSD',
      name: 'Test USD',
      decimals: 6,
    });
    expect(await zeroEx.findToken('base', 'TUSD')).toBeNull();
    expect(await zeroEx.findToken('base', user.address)).toBeNull();
    expect(await zeroEx.findToken('ethereum', 'USDC')).toBeNull();
    expect((await zeroEx.searchTokens('usd', { chain: 'base', limit: 5 })).map((t) => t.symbol)).toEqual(['USDC', 'USDbC']); // the well-known list (shared with the paper venue) has both
    expect((await zeroEx.searchTokens(token, { chain: 'base', limit: 5 })).map((t) => t.symbol)).toEqual(['TUSD']);
  });

  it('prices a token in the chain USDC through /price, with the v2 headers', async () => {
    expect(await venue().priceUsd('base', NATIVE_EVM_ADDRESS)).toBe(2995.5);
    const [request] = fake.server.hits('/swap/allowance-holder/price');
    expect(request!.headers).toMatchObject({ '0x-api-key': API_KEY, '0x-version': 'v2' });
    expect(Object.fromEntries(request!.query)).toEqual({
      chainId: '8453',
      sellToken: NATIVE_EVM_ADDRESS,
      buyToken: usdReference('base').address,
      sellAmount: String(10n ** 18n),
    });
    expect(await venue().priceUsd('base', usdReference('base').address)).toBe(1);
    expect(await venue().priceUsd('base', user.address)).toBeNull();
  });

  it('maps an indicative /price answer onto the port quote', async () => {
    const quote = await venue().quote({
      chain: 'base',
      inputMint: NATIVE_EVM_ADDRESS,
      outputMint: token,
      amountIn: String(parseEther('1')),
      slippageBps: 50,
    });
    expect(fake.server.hits('/swap/allowance-holder/price')[0]!.query.has('taker')).toBe(false);
    expect(quote).toEqual({
      chain: 'base',
      inputMint: NATIVE_EVM_ADDRESS,
      outputMint: token,
      amountIn: String(parseEther('1')),
      expectedOut: '2995500000',
      minOut: '2980522500',
      spotOut: '3000000000',
      priceImpactBps: 0,
      feeAmount: '0',
      venue: '0x',
      expiresAt: clock.now() + 30_000,
    });
  });

  it('translates refusals and outages', async () => {
    const request = { chain: 'base' as const, inputMint: NATIVE_EVM_ADDRESS, outputMint: token, amountIn: '1000', slippageBps: 50 };
    const stranger = newEvmWallet().address;
    expect((await failure(venue().quote({ ...request, outputMint: stranger }))).message).toBe(`Token not found: ${stranger}`);
    expect((await failure(venue().quote({ ...request, outputMint: 'USDC' }))).code).toBe('TOKEN_NOT_FOUND');
    const noRoute = await failure(venue().quote({ ...request, amountIn: String(parseEther('5000')) }));
    expect([httpStatusOf(noRoute), noRoute.message]).toEqual([400, `No route found for ${NATIVE_EVM_ADDRESS} -> ${token} (no liquidity)`]);
    fake.server.route(
      'GET',
      '/swap/allowance-holder/price',
      json(400, {
        name: 'INPUT_INVALID',
        message: 'Validation Failed',
        data: { zid: '0x9', details: [{ field: 'buyToken', reason: 'Invalid ethereum address' }] },
      }),
    );
    expect((await failure(venue().quote(request))).message).toBe(`Token not found: ${token}`);
    fake.server.route(
      'GET',
      '/swap/allowance-holder/price',
      json(400, { name: 'SELL_AMOUNT_TOO_SMALL', message: 'Sell amount too small', data: { zid: '0x9', minSellAmount: '5000' } }),
    );
    expect((await failure(venue().quote(request))).message).toBe(
      `No route found for ${NATIVE_EVM_ADDRESS} -> ${token} (SELL_AMOUNT_TOO_SMALL: Sell amount too small)`,
    );
    fake.server.route('GET', '/swap/allowance-holder/price', json(401, { name: 'UNAUTHORIZED', message: 'Invalid API key' }));
    expect((await failure(venue().quote(request))).message).toBe('Provider unavailable: 0x (credentials refused (HTTP 401))');
    fake.server.route(
      'GET',
      '/swap/allowance-holder/price',
      json(500, { name: 'INTERNAL_SERVER_ERROR', message: 'oops', data: { zid: '0x9' } }),
    );
    expect(httpStatusOf(await failure(venue().quote(request)))).toBe(503);
    expect(httpStatusOf(await failure(venue().quote({ ...request, chain: 'arbitrum' })))).toBe(400);
  });

  it('reports health from the chain and /sources', async () => {
    expect(await venue().health('base')).toMatchObject({ chain: 'base', reachable: true });
    expect(fake.server.hits('/sources')[0]!.query.get('chainId')).toBe('8453');
    fake.server.route('GET', '/sources', json(503, {}));
    expect(await venue().health('base')).toEqual({ chain: 'base', reachable: false, error: 'Provider unavailable: 0x (HTTP 503)' });
    expect((await venue().health('ethereum')).reachable).toBe(false);
  });
});

describe('ZeroExVenue: execution over EDR', () => {
  it('signs the firm quote transaction, journals its hash before broadcast, and reads the fill from the receipt', async () => {
    const journaled: number[] = [];
    const put = store.put.bind(store);
    store.put = (collection, id, input, entry) => {
      if (collection === LIVE_EXECUTIONS.name) journaled.push(edr.broadcasts.length);
      return put(collection, id, input, entry);
    };
    const result = await venue().execute(buy());
    expect(result).toEqual({ status: 'filled', filledOut: '2995500007', txSignature: edr.broadcasts[0], at: clock.now() });
    expect(journaled).toEqual([0, 1]);
    expect(Object.fromEntries(fake.server.hits('/swap/allowance-holder/quote')[0]!.query)).toMatchObject({
      taker: user.address,
      sellAmount: String(parseEther('1')),
      slippageBps: '100',
    });
    expect(await base.tokenBalance(user.address, token)).toBe('2995500007');
    expect(BigInt(await base.nativeBalance(user.address))).toBeLessThan(parseEther('4'));
  });

  it('executes one client order id once, also when two executes race', async () => {
    const [a, b] = await Promise.all([venue().execute(buy()), venue().execute(buy())]);
    expect(a).toEqual(b);
    expect(await venue().execute(buy({ amountIn: '1' }))).toEqual(a);
    expect(await venue().lookup('order-1', 'base')).toEqual(a);
    expect(edr.broadcasts).toHaveLength(1);
    expect(await base.tokenBalance(user.address, token)).toBe('2995500007');
  });

  it('after a lost broadcast, a lookup re-sends the same signed transaction', async () => {
    edr.dropNextSends = 1;
    const submitted = await venue().execute(buy());
    expect(submitted).toMatchObject({ status: 'submitted' });
    const result = await venue().lookup('order-1', 'base');
    expect(result).toMatchObject({ status: 'filled', txSignature: (submitted as { txSignature: string }).txSignature });
    expect(edr.broadcasts).toEqual([(submitted as { txSignature: string }).txSignature]);
    expect(fake.server.hits('/swap/allowance-holder/quote')).toHaveLength(1);
  });

  it('fails as expired when another transaction took the nonce of a lost one', async () => {
    edr.dropNextSends = 1;
    expect((await venue().execute(buy())).status).toBe('submitted');
    await base.transfer({ signer: evmSigner(user), to: newEvmWallet().address, amount: '1' });
    expect(await venue().lookup('order-1', 'base')).toMatchObject({ status: 'failed', reason: 'expired' });
    expect(await base.tokenBalance(user.address, token)).toBe('0');
  });

  it('refuses before signing: quoted minimum below minOut, balance or allowance issues', async () => {
    expect(await venue().execute(buy({ minOut: '2990000000' }))).toMatchObject({ status: 'failed', reason: 'slippage' });
    fake.issues = { allowance: null, balance: { token: NATIVE_EVM_ADDRESS, actual: '0', expected: '1' } };
    expect(await venue().execute(buy({ clientOrderId: 'order-2' }))).toMatchObject({ status: 'failed', reason: 'insufficient_balance' });
    fake.issues = { allowance: { actual: '0', spender: '0x0000000000001fF3684f28c67538d4D072C22734' }, balance: null };
    const allowance = await venue().execute(
      buy({ clientOrderId: 'order-3', inputMint: token, outputMint: NATIVE_EVM_ADDRESS, amountIn: '1000000', minOut: '0' }),
    );
    expect(allowance).toMatchObject({
      status: 'failed',
      reason: 'rejected',
      message: expect.stringContaining('approve 0x0000000000001fF3684f28c67538d4D072C22734'),
    });
    expect(await venue().execute(buy())).toMatchObject({ status: 'failed', reason: 'slippage' });
    expect(edr.broadcasts).toEqual([]);
  });

  it('reports a transaction that reverts on chain as failed', async () => {
    fake.calldata = encodeFunctionData({ abi: TEST_TOKEN_ABI, functionName: 'transfer', args: [user.address, 1n] });
    const result = await venue().execute(buy());
    expect(result).toMatchObject({
      status: 'failed',
      reason: 'rejected',
      message: 'Swap transaction reverted on chain',
      txSignature: edr.broadcasts[0],
    });
    expect(await venue().lookup('order-1', 'base')).toEqual(result);
  });

  it('lists native and built-in token balances of a wallet', async () => {
    // The built-in tokens' addresses get the test token's code, as if they were deployed here.
    const code = await base.client.getCode({ address: token });
    for (const t of knownTokens('base').filter((k) => !k.native)) await edr.request('hardhat_setCode', [t.address, code]);
    const usdc = usdReference('base').address as Address;
    await setupWallet(edr, user).writeContract({
      address: usdc,
      abi: TEST_TOKEN_ABI,
      functionName: 'mint',
      args: [user.address, 42n],
      chain: null,
      account: privateKeyToAccount(user.privateKey),
    });
    const balances = await venue().balances('base', user.address);
    expect(Object.keys(balances)).toEqual([NATIVE_EVM_ADDRESS, usdc]);
    expect(balances[usdc]).toBe('42');
  });
});
