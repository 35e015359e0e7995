import { describe, expect, it } from 'vitest';
import { interpret, normalize } from '../../../agents/chat/command-interpreter.js';
import type { TokenRef } from '../../../agents/chat/intent.types.js';
import { cpuMillisOf } from '../../support/cpu-time.js';

const sym = (symbol: string): TokenRef => ({ kind: 'symbol', symbol });
const exactIn = (value: string) => ({ kind: 'exact', value, of: 'input' });
const exactOut = (value: string) => ({ kind: 'exact', value, of: 'output' });
const SOL_MINT = 'So11111111111111111111111111111111111111112';
const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const USDC_EVM = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';

describe('command interpreter: trades', () => {
  it.each([
    ['buy 0.5 SOL of BONK', 'buy', exactIn('0.5'), 'SOL', 'BONK'],
    ['buy 0.5 SOL worth of BONK', 'buy', exactIn('0.5'), 'SOL', 'BONK'],
    ['ape 2 sol into wif', 'buy', exactIn('2'), 'SOL', 'WIF'],
    ['buy 1000 BONK with USDC', 'buy', exactOut('1000'), 'USDC', 'BONK'],
    ['buy 1000 BONK using USDC', 'buy', exactOut('1000'), 'USDC', 'BONK'],
    ['purchase 1.5k BONK for USDC', 'buy', exactOut('1500'), 'USDC', 'BONK'],
    ['buy BONK with 0.5 SOL', 'buy', exactIn('0.5'), 'SOL', 'BONK'],
    ['buy BONK for 10 USDC', 'buy', exactIn('10'), 'USDC', 'BONK'],
    ['buy BONK with all my USDC', 'buy', { kind: 'all' }, 'USDC', 'BONK'],
    ['buy BONK with half of my SOL', 'buy', { kind: 'percent', value: '50' }, 'SOL', 'BONK'],
    ['buy $50 of BONK with SOL', 'buy', { kind: 'usd', value: '50' }, 'SOL', 'BONK'],
    ['buy 25 usd worth of JUP using USDC', 'buy', { kind: 'usd', value: '25' }, 'USDC', 'JUP'],
    ['buy 1 sol of $WIF', 'buy', exactIn('1'), 'SOL', 'WIF'],
    ['swap 100 USDC to SOL', 'swap', exactIn('100'), 'USDC', 'SOL'],
    ['swap 100 USDC for SOL', 'swap', exactIn('100'), 'USDC', 'SOL'],
    ['convert 10 usdc into sol', 'swap', exactIn('10'), 'USDC', 'SOL'],
    ['trade 5 SOL for USDC', 'swap', exactIn('5'), 'SOL', 'USDC'],
    ['exchange .5 SOL to USDC', 'swap', exactIn('0.5'), 'SOL', 'USDC'],
    ['swap 100 USDC -> SOL', 'swap', exactIn('100'), 'USDC', 'SOL'],
    ['swap 100 usdc → sol', 'swap', exactIn('100'), 'USDC', 'SOL'],
    ['swap USDC to 1 SOL', 'swap', exactOut('1'), 'USDC', 'SOL'],
    ['swap all BONK for USDC', 'swap', { kind: 'all' }, 'BONK', 'USDC'],
    ['sell 20 JUP for USDC', 'sell', exactIn('20'), 'JUP', 'USDC'],
    ['sell 1.5M BONK for SOL', 'sell', exactIn('1500000'), 'BONK', 'SOL'],
    ['sell 1,000,000.50 BONK to USDC', 'sell', exactIn('1000000.5'), 'BONK', 'USDC'],
    ['sell all my JUP for USDC', 'sell', { kind: 'all' }, 'JUP', 'USDC'],
    ['sell everything JUP for USDC', 'sell', { kind: 'all' }, 'JUP', 'USDC'],
    ['sell 100% of JUP for USDC', 'sell', { kind: 'all' }, 'JUP', 'USDC'],
    ['sell 50% of JUP for USDC', 'sell', { kind: 'percent', value: '50' }, 'JUP', 'USDC'],
    ['sell 12.5 percent of my JUP for USDC', 'sell', { kind: 'percent', value: '12.5' }, 'JUP', 'USDC'],
    // The percentage as written, every decimal kept: the share is taken of the balance exactly.
    ['sell 0.125% of SOL for USDC', 'sell', { kind: 'percent', value: '0.125' }, 'SOL', 'USDC'],
    ['sell 99.99999999999999999% of JUP for USDC', 'sell', { kind: 'percent', value: '99.99999999999999999' }, 'JUP', 'USDC'],
    ['sell half my JUP for SOL', 'sell', { kind: 'percent', value: '50' }, 'JUP', 'SOL'],
    ['sell $20 of JUP for USDC', 'sell', { kind: 'usd', value: '20' }, 'JUP', 'USDC'],
    ['sell JUP for 100 USDC', 'sell', exactOut('100'), 'JUP', 'USDC'],
    ['dump 0001.500 WIF for SOL', 'sell', exactIn('1.5'), 'WIF', 'SOL'],
    ['BUY 1 SOL OF BONK', 'buy', exactIn('1'), 'SOL', 'BONK'],
    ['buy 1inch with 10 USDC', 'buy', exactIn('10'), 'USDC', '1INCH'],
    ['swap 10 USDC.e to SOL', 'swap', exactIn('10'), 'USDC.E', 'SOL'],
  ])('%s', (message, intent, amount, input, output) => {
    expect(interpret(message as string)).toEqual({
      intent,
      params: { amount, inputToken: sym(input as string), outputToken: sym(output as string) },
      confidence: 1,
    });
  });

  it.each([
    ['sell all WIF', { kind: 'all' }, 'WIF'],
    ['sell 20 JUP', exactIn('20'), 'JUP'],
    ['sell half my BONK', { kind: 'percent', value: '50' }, 'BONK'],
    ['sell $15 of JUP', { kind: 'usd', value: '15' }, 'JUP'],
  ])('%s: a sell that names nothing to receive sells for the quote token', (message, amount, input) => {
    expect(interpret(message as string)).toEqual({
      intent: 'sell',
      params: { amount, inputToken: sym(input as string), outputToken: { kind: 'quote' } },
      confidence: 1,
    });
  });

  it('keeps mints and EVM addresses as typed (base58 is case-sensitive)', () => {
    expect(interpret(`swap 2 ${USDC_MINT} to ${SOL_MINT}`)).toMatchObject({
      intent: 'swap',
      params: {
        inputToken: { kind: 'address', address: USDC_MINT, chain: 'solana' },
        outputToken: { kind: 'address', address: SOL_MINT, chain: 'solana' },
      },
    });
    expect(interpret(`swap 1 ${USDC_EVM} to WETH`)).toMatchObject({
      params: { inputToken: { kind: 'address', address: USDC_EVM, chain: 'evm' }, outputToken: sym('WETH') },
    });
  });

  it.each([
    ['sell 20 JUP for USDC with 1% slippage', 100],
    ['sell 20 JUP for USDC with slippage of 2%', 200],
    ['swap 100 USDC to SOL slippage 0.5%', 50],
    ['swap 100 USDC to SOL, slippage: 50bps', 50],
    ['swap 100 USDC to SOL max slippage 1 percent', 100],
    ['swap 100 USDC to SOL at 0.25% slippage', 25],
    ['swap 100 USDC to SOL 100 bps slippage', 100],
    ['swap 100 USDC to SOL with slippage 30 basis points', 30],
    ['with 3% slippage swap 100 USDC to SOL', 300],
    ['swap 100 USDC to SOL slippage=50%', 5000],
  ])('slippage: %s → %i bps', (message, bps) => {
    expect(interpret(message)).toMatchObject({ confidence: 1, params: { slippageBps: bps } });
  });

  it('strips politeness, chat-command syntax and trailing punctuation', () => {
    for (const message of [
      'hey bot, can you buy 1 SOL of BONK please',
      '/buy@TradeBot 1 SOL of BONK',
      'Please buy 1 SOL of BONK!',
      "I'd like to buy 1 SOL of BONK, thanks.",
    ]) {
      expect(interpret(message)).toMatchObject({ intent: 'buy', params: { amount: exactIn('1'), outputToken: sym('BONK') } });
    }
    expect(normalize('  swap   1  SOL ->  USDC  ')).toBe('swap 1 SOL to USDC');
  });
});

describe('command interpreter: what is wrong with a trade', () => {
  it.each([
    ['buy 1000 BONK', /Which token should pay/],
    ['buy $50 of BONK', /Which token should pay/],
    ['buy BONK', /How much/],
    ['buy BONK with USDC', /How much/],
    ['swap 100 USDC', /Swap to which token/],
    ['sell JUP for USDC', /How much/],
    ['swap 100 USDC to USDC', /same/],
    ['swap 1 usdc to USDC', /same/],
    ['buy 0 SOL of BONK', /greater than zero/],
    ['swap -5 SOL to USDC', /greater than zero/],
    ['swap 1e3 USDC to SOL', /"1e3" is not an amount/],
    ['swap 1,00 SOL to USDC', /"1,00" is not an amount/],
    // A European decimal, never 10 or 500 of it: a thousand times the amount must not trade.
    ['swap 0,010 SOL to BONK', /"0,010" is not an amount/],
    ['sell 0,500 USDC', /"0,500" is not an amount/],
    ['buy BONK with 0,250 SOL', /"0,250" is not an amount/],
    ['swap 1.2.3 SOL to USDC', /not an amount/],
    ['sell 120% of JUP for USDC', /at most 100%/],
    // Compared exactly: as a float it is 100, which would sell everything.
    ['sell 100.00000000000000001% of JUP for USDC', /at most 100%/],
    ['buy 1 SOL of my', /"my" is not a token/],
    ['sell 20 JUP for USDC slippage 1', /slippage unit/],
    ['sell 20 JUP for USDC with 60% slippage', /at most 50%/],
    ['sell 20 JUP for USDC with 0.125% slippage', /whole basis points/],
    ['swap 100 USDC to SOL slippage 0%', /greater than zero/],
    ['sell 20 JUP for USDC with some slippage', /percentage or in bps/],
    ['buy 1 SOL of BONK and 2 SOL of WIF', /could not read that buy command/],
    [`swap 1 ${'A'.repeat(50)} to SOL`, /is not a token/],
  ])('%s', (message, reply) => {
    const result = interpret(message);
    expect(result).toMatchObject({ intent: 'unknown', confidence: 0, params: {} });
    expect(result.intent === 'unknown' && result.reply).toMatch(reply);
  });
});

describe('command interpreter: other intents', () => {
  it.each([
    ['status', 'status', {}],
    ['agent status', 'status', {}],
    ["what's the agent status?", 'status', {}],
    ['is the agent running', 'status', {}],
    ['how are you?', 'status', {}],
    ['portfolio', 'portfolio', {}],
    ['show my balance', 'portfolio', {}],
    ['what do I own', 'portfolio', {}],
    ['Portfolio summary', 'portfolio', {}],
    ['help', 'help', {}],
    ['?', 'help', {}],
    ['/start', 'help', {}],
    ['help dca', 'help', { topic: 'dca' }],
    ['help with trading', 'help', { topic: 'trading' }],
    ['dca', 'help', { topic: 'dca' }],
    ['orders', 'orders', {}],
    ['show my open orders', 'orders', {}],
    ['pending orders', 'orders', { status: 'pending_approval' }],
    ['orders awaiting approval', 'orders', { status: 'pending_approval' }],
    ['positions', 'positions', { withPnl: false }],
    ['my open positions', 'positions', { withPnl: false }],
    ['positions with pnl', 'positions', { withPnl: true }],
    ['pnl', 'positions', { withPnl: true }],
    ['approve ord_123', 'approve', { orderId: 'ord_123' }],
    ['approve order #ord_AbC-9', 'approve', { orderId: 'ord_AbC-9' }],
    ['confirm order 5f0c1e2a-7b3d-4c1e-9a7f-1b2c3d4e5f60', 'approve', { orderId: '5f0c1e2a-7b3d-4c1e-9a7f-1b2c3d4e5f60' }],
    ['dca pause', 'dca_pause', {}],
    ['pause my dca', 'dca_pause', {}],
    ['stop dca weekly-sol', 'dca_pause', { name: 'weekly-sol' }],
    ['dca resume', 'dca_resume', {}],
    ['resume dca strategy', 'dca_resume', {}],
    ['dca stats', 'dca_stats', {}],
    ['show dca stats', 'dca_stats', {}],
    ['dca stats weekly', 'dca_stats', { name: 'weekly' }],
  ])('%s → %s', (message, intent, params) => {
    expect(interpret(message)).toEqual({ intent, params, confidence: 1 });
  });

  it('answers a keyword in a short sentence with lower confidence', () => {
    expect(interpret('what is my portfolio worth')).toEqual({ intent: 'portfolio', params: {}, confidence: 0.6 });
    expect(interpret('tell me the status')).toEqual({ intent: 'status', params: {}, confidence: 0.6 });
    // Two topics, or a long sentence: no guess.
    expect(interpret('status and portfolio').intent).toBe('unknown');
    expect(interpret('I was wondering whether you could tell me something about my portfolio today').intent).toBe('unknown');
  });

  it('never answers a request to act with a read that looks as if it was done', () => {
    for (const message of [
      'close all positions',
      'exit all my positions',
      'close my BONK position',
      'delete my portfolio',
      'cancel my status',
    ]) {
      const result = interpret(message);
      expect(result.intent, message).toBe('unknown');
      expect(result.intent === 'unknown' && result.reply, message).toMatch(/^I did not understand/);
    }
    expect(interpret('show my positions').intent).toBe('positions');
  });

  it('refuses approve without a usable order id', () => {
    for (const message of ['approve', 'approve order', 'approve this & that', 'approve <script>']) {
      expect(interpret(message)).toMatchObject({ intent: 'unknown', reply: expect.stringMatching(/approve <order_id>/) });
    }
  });
});

describe('command interpreter: DCA create', () => {
  const base = { amount: '10', inputToken: sym('USDC'), outputToken: sym('SOL') };
  it.each([
    ['dca 10 USDC into SOL every day', { ...base, interval: { every: 1, unit: 'days' }, intervalText: 'every 1 days' }],
    ['dca create 10 USDC to SOL every 4 hours', { ...base, interval: { every: 4, unit: 'hours' }, intervalText: 'every 4 hours' }],
    ['dca daily 10 USDC to SOL', { ...base, interval: { every: 1, unit: 'days' }, intervalText: 'every 1 days' }],
    ['dca 10 USDC into SOL hourly', { ...base, interval: { every: 1, unit: 'hours' }, intervalText: 'every 1 hours' }],
    ['dca 10 USDC into SOL every 30 min', { ...base, interval: { every: 30, unit: 'minutes' }, intervalText: 'every 30 minutes' }],
    ['dca 10 USDC into SOL every 2h', { ...base, interval: { every: 2, unit: 'hours' }, intervalText: 'every 2 hours' }],
    ['dca 10 USDC into SOL weekly', { ...base, interval: { every: 7, unit: 'days' }, intervalText: 'every 7 days' }],
    ['buy 10 USDC of SOL every day', { ...base, interval: { every: 1, unit: 'days' }, intervalText: 'every 1 days' }],
    [
      'create dca buy SOL with 10 USDC every 4 hours for 30 buys named sol-4h with 1% slippage',
      { ...base, interval: { every: 4, unit: 'hours' }, intervalText: 'every 4 hours', maxBuys: 30, name: 'sol-4h', slippageBps: 100 },
    ],
    // A name takes every character the REST route allows, ':' among them.
    [
      'dca 10 USDC into SOL every day named team:sol.v2',
      { ...base, interval: { every: 1, unit: 'days' }, intervalText: 'every 1 days', name: 'team:sol.v2' },
    ],
  ])('%s', (message, params) => {
    expect(interpret(message)).toEqual({ intent: 'dca_create', params, confidence: 1 });
  });

  it.each([
    ['dca 10 USDC into SOL', /How often/],
    ['dca 10 USDC into SOL every 0 hours', /between 1 minute and 366 days/],
    ['dca 10 USDC into SOL every 400 days', /between 1 minute and 366 days/],
    ['dca USDC into SOL every day', /Name the amount/],
    ['dca 10 USDC into USDC every day', /same/],
    ['dca 10 USDC into SOL every day for 0 buys', /number of buys/],
  ])('%s is refused', (message, reply) => {
    const result = interpret(message);
    expect(result.intent).toBe('unknown');
    expect(result.intent === 'unknown' && result.reply).toMatch(reply);
    expect(result.intent === 'unknown' && result.reply).toMatch(/DCA commands/);
  });
});

describe('command interpreter: garbage', () => {
  it.each([
    '',
    '   ',
    'what is the meaning of life',
    'DROP TABLE users;',
    '<script>alert(1)</script>',
    '🚀🚀🚀',
    '0x',
    '12345',
    'buy',
    'sell sell sell',
  ])('%j is unknown with a hint', (message) => {
    const result = interpret(message);
    expect(result).toMatchObject({ intent: 'unknown', confidence: 0, params: {} });
    expect(result.intent === 'unknown' && result.reply.length).toBeGreaterThan(10);
  });

  it('refuses messages over 4000 characters and stays fast on pathological input', () => {
    expect(interpret('a'.repeat(4001))).toMatchObject({ intent: 'unknown', reply: expect.stringMatching(/too long/) });
    const cpuMs = cpuMillisOf(() => {
      for (const body of ['1'.repeat(3990), '1 '.repeat(1995), 'slippage '.repeat(440), '1 of '.repeat(790), 'every 1 '.repeat(490)]) {
        for (const verb of ['buy', 'sell', 'dca']) interpret(`${verb} ${body}`.slice(0, 4000));
      }
    });
    expect(cpuMs).toBeLessThan(1000);
  });

  it('is deterministic', () => {
    const message = 'sell 50% of my JUP for USDC with 0.5% slippage';
    expect(interpret(message)).toEqual(interpret(message));
  });
});
