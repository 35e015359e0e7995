import { beforeEach, describe, expect, it } from 'vitest';
import type { TradeRequest } from '../../../agents/trading/safety-path.js';
import { isAppError } from '../../../kernel/errors/app-error.js';
import { BONK, SOL, USDC, buyRequest, tradingHarness, type TradingHarness } from '../../support/trading-harness.js';
import { httpStatusOf } from '../../../src/surface-common/http-status.js';

/** Each named check of the safety path, in order, with the message of the trading errors. */
describe('safety path', () => {
  let h: TradingHarness;
  const buy = buyRequest;
  const refusal = async (request: TradeRequest) => {
    const error = await h.safety.check(request).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!isAppError(error)) throw new Error(`expected a refusal, got ${String(error)}`);
    await h.runtime.settled(); // events go out once durable
    const blocked = h.events.filter((e) => e.type === 'risk.blocked').at(-1);
    return { status: httpStatusOf(error), message: error.message, code: error.code, envelope: error.envelope, check: blocked?.data.check };
  };

  beforeEach(async () => {
    h = await tradingHarness();
    await h.fund(SOL, '10000000000'); // 10 SOL
    await h.fund(USDC, '5000000000000'); // 5M USDC
  });

  it('passes every check in order and keeps their names', async () => {
    const checked = await h.safety.check(buy());
    expect(checked.checks).toEqual([
      'credential_scope',
      'trading_enabled',
      'kill_switch',
      'wallet',
      'token',
      'blacklist',
      'input_mint',
      'amount',
      'risk_policy',
      'spending_cap',
      'balance',
      'quote_slippage',
      'circuit_breaker',
    ]);
    expect(checked).toMatchObject({ amountIn: 1_000_000_000n, slippageBps: 100, input: { address: SOL }, output: { address: BONK } });
    await h.runtime.settled();
    expect(h.events.some((e) => e.type === 'risk.blocked')).toBe(false);
  });

  it('trading disabled or agent paused: soft error `Trading bu bot icin kapali.`', async () => {
    h.state.status = { ...h.state.status, tradingEnabled: false };
    expect(await refusal(buy())).toEqual({
      status: 200,
      message: 'Trading bu bot icin kapali.',
      code: 'TRADING_DISABLED',
      envelope: 'canonical',
      check: 'trading_enabled',
    });
    h.state.status = { ...h.state.status, tradingEnabled: true, status: 'paused' };
    expect((await refusal(buy())).code).toBe('TRADING_DISABLED');
  });

  it('kill switch: 503 naming the chain, before anything else about the trade', async () => {
    h.state.killed.add('solana');
    h.state.hasWallet = false; // a later check would also refuse: the earlier one answers
    expect(await refusal(buy())).toMatchObject({
      status: 503,
      message: 'Trading kill switch is active for chain: solana',
      check: 'kill_switch',
    });
  });

  it('wallet absent: 400 `Custodial wallet required for this operation`', async () => {
    h.state.hasWallet = false;
    expect(await refusal(buy())).toMatchObject({ status: 400, message: 'Custodial wallet required for this operation', check: 'wallet' });
  });

  it('token unknown: 404 `Token not found: <mint>`; blacklisted: 400', async () => {
    expect(await refusal(buy({ outputToken: 'NOTATOKEN' }))).toMatchObject({
      status: 404,
      message: 'Token not found: NOTATOKEN',
      check: 'token',
    });
    h.state.config = { ...h.state.config, blacklist: [{ chain: 'solana', address: BONK, addedAt: '' }] };
    expect(await refusal(buy())).toMatchObject({ status: 400, code: 'TOKEN_BLACKLISTED', check: 'blacklist' });
  });

  it('Solana input must be native SOL or USDC (P3 constraint)', async () => {
    expect(await refusal(buy({ inputToken: 'BONK', outputToken: 'SOL' }))).toMatchObject({
      status: 400,
      message: 'inputMint must be native SOL or USDC (P3 constraint)',
      check: 'input_mint',
    });
    await expect(h.safety.check(buy({ inputToken: 'USDC', amount: { kind: 'whole', value: '10' } }))).resolves.toBeDefined();
  });

  it('risk policy: order size, slippage ceiling, channels and signal sources', async () => {
    const policy = h.state.config.riskPolicy;
    h.state.config = { ...h.state.config, riskPolicy: { ...policy, maxOrderUsd: 10 } };
    expect(await refusal(buy())).toMatchObject({ status: 400, code: 'RISK_LIMIT_EXCEEDED', check: 'risk_policy' });
    // One base unit over: the value is shown with the decimals that tell it from the limit.
    h.state.config = { ...h.state.config, riskPolicy: { ...policy, maxOrderUsd: 10 } };
    expect((await refusal(buy({ inputToken: 'USDC', amount: { kind: 'whole', value: '10.000001' } }))).message).toBe(
      'Order value $10.000001 exceeds the maximum order size of $10.00 (risk policy)',
    );
    await expect(h.safety.check(buy({ inputToken: 'USDC', amount: { kind: 'whole', value: '10' } }))).resolves.toBeDefined();
    h.state.config = { ...h.state.config, riskPolicy: { ...policy, maxSlippageBps: 50 } };
    expect((await refusal(buy({ slippageBps: 100 }))).message).toBe('slippageBps 100 exceeds the risk policy maximum of 50');
    h.state.config = { ...h.state.config, riskPolicy: { ...policy, allowedChannels: ['mcp'] } };
    expect((await refusal(buy())).message).toBe('Trading through rest is not allowed by the risk policy');
    h.state.config = { ...h.state.config, riskPolicy: { ...policy, allowedSignalSources: ['alpha'] } };
    expect((await refusal(buy({ signalSource: 'beta' }))).message).toBe('Signal source beta is not allowed by the risk policy');
    await expect(h.safety.check(buy({ signalSource: 'alpha' }))).resolves.toBeDefined();
  });

  it('quote: price impact beyond the tolerance is `Slippage tolerance exceeded`', async () => {
    expect(
      await refusal(buy({ inputToken: 'USDC', outputToken: 'SOL', amount: { kind: 'whole', value: '4000000' }, slippageBps: 100 })),
    ).toMatchObject({
      status: 400,
      message: 'Slippage tolerance exceeded',
      check: 'quote_slippage',
    });
  });

  it('balance: 400 `Insufficient balance for requested swap amount`; "all" of nothing too', async () => {
    expect(await refusal(buy({ amount: { kind: 'whole', value: '11' } }))).toMatchObject({
      status: 400,
      message: 'Insufficient balance for requested swap amount',
      check: 'balance',
    });
    h = await tradingHarness(); // nothing funded
    expect(await refusal(buy({ amount: { kind: 'all' } }))).toMatchObject({
      status: 400,
      message: 'Insufficient balance for requested swap amount',
      check: 'amount',
    });
  });

  it('circuit breaker open: 503 `Circuit breaker open for provider: paper`', async () => {
    h.state.breaker = 'open';
    expect(await refusal(buy())).toMatchObject({
      status: 503,
      message: 'Circuit breaker open for provider: paper',
      check: 'circuit_breaker',
    });
  });

  it('an absurd dollar or output amount is a 400, never a crash', async () => {
    const error = await h.safety.check(buy({ amount: { kind: 'usd', value: '1000000000000000000000000000' } })).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'invalid', envelope: 'validation', messages: ['amount is too large'] });
    const output = await h.safety
      .check(buy({ amount: { kind: 'output', value: '100000000000000000000000000000000' } }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(output).toMatchObject({ kind: 'invalid' });
  });

  it('sizes "all", percentages and dollar amounts from the balance and the price feed', async () => {
    expect((await h.safety.check(buy({ amount: { kind: 'all' } }))).amountIn).toBe(10_000_000_000n);
    expect((await h.safety.check(buy({ amount: { kind: 'percent', value: '25' } }))).amountIn).toBe(2_500_000_000n);
    const dollars = await h.safety.check(buy({ amount: { kind: 'usd', value: '100' } }));
    expect(dollars.valueUsd).toBeCloseTo(100, 1);
  });

  it('takes a percentage of the balance exactly, to the base unit, never rounded to whole basis points', async () => {
    const percent = async (value: string) => (await h.safety.check(buy({ amount: { kind: 'percent', value } }))).amountIn;
    expect(await percent('0.125')).toBe(12_500_000n); // not 0.13% (13_000_000)
    expect(await percent('12.345')).toBe(1_234_500_000n); // not 12.35%
    expect(await percent('0.004')).toBe(400_000n); // not 0 bps, hence no "Insufficient balance"
    expect(await percent('33.333333333333333333')).toBe(3_333_333_333n); // rounded down
  });

  it('a share of the balance smaller than one base unit is a 400 about the amount, not about the balance', async () => {
    const error = await h.safety.check(buy({ amount: { kind: 'percent', value: '0.000000001' } })).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'invalid', envelope: 'validation', messages: ['amount must be greater than 0'] });
    h = await tradingHarness(); // nothing held: that is the balance
    expect(await refusal(buy({ amount: { kind: 'percent', value: '50' } }))).toMatchObject({
      status: 400,
      message: 'Insufficient balance for requested swap amount',
      check: 'amount',
    });
  });
});
