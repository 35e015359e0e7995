import { describe, expect, it } from 'vitest';
import { interpret } from '../../../agents/chat/command-interpreter.js';
import type { InterpretResult, TokenRef, TradeAmount } from '../../../agents/chat/intent.types.js';
import { cpuMillisOf } from '../../support/cpu-time.js';

/**
 * Turkish commands mean exactly what their English equivalents mean: every row names the
 * Turkish message, the English command it stands for and the result both must produce.
 */

const sym = (symbol: string): TokenRef => ({ kind: 'symbol', symbol });
const solana = (address: string): TokenRef => ({ kind: 'address', address, chain: 'solana' });
const token = (t: string | TokenRef): TokenRef => (typeof t === 'string' ? sym(t) : t);
const exactIn = (value: string): TradeAmount => ({ kind: 'exact', value, of: 'input' });
const exactOut = (value: string): TradeAmount => ({ kind: 'exact', value, of: 'output' });
const ALL: TradeAmount = { kind: 'all' };
const pct = (value: string): TradeAmount => ({ kind: 'percent', value });
const usd = (value: string): TradeAmount => ({ kind: 'usd', value });
const trade = (
  intent: 'buy' | 'sell' | 'swap',
  amount: TradeAmount,
  input: string | TokenRef,
  output: string | TokenRef,
  slippageBps?: number,
): InterpretResult => ({
  intent,
  params: { amount, inputToken: token(input), outputToken: token(output), ...(slippageBps === undefined ? {} : { slippageBps }) },
  confidence: 1,
});
const intent = (name: string, params: object = {}) => ({ intent: name, params, confidence: 1 }) as InterpretResult;
const dcaEvery = (every: number, unit: 'minutes' | 'hours' | 'days', extra: object = {}) =>
  intent('dca_create', {
    amount: '10',
    inputToken: sym('USDC'),
    outputToken: sym('SOL'),
    interval: { every, unit },
    intervalText: `every ${every} ${unit}`,
    ...extra,
  });

const SOL_MINT = 'So11111111111111111111111111111111111111112';
const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const BONK_MINT = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
const USDC_EVM = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';

const forQuote = (amount: TradeAmount, input: string): InterpretResult => ({
  intent: 'sell',
  params: { amount, inputToken: sym(input), outputToken: { kind: 'quote' } },
  confidence: 1,
});

const TABLE: Array<[turkish: string, english: string, expected: InterpretResult]> = [
  // sell without a token to receive: for the account's quote token
  ['10 JUP sat', 'sell 10 JUP', forQuote(exactIn('10'), 'JUP')],
  ["tüm WIF'i sat", 'sell all WIF', forQuote(ALL, 'WIF')],
  ["WIF'in yarısını sat", 'sell half WIF', forQuote(pct('50'), 'WIF')],
  ['%50 JUP sat', 'sell 50% JUP', forQuote(pct('50'), 'JUP')],
  // buy: what pays goes with `ile`, a dative or `-lik` (worth); what is bought is the object
  ['0.5 SOL ile BONK al', 'buy 0.5 SOL of BONK', trade('buy', exactIn('0.5'), 'SOL', 'BONK')],
  ["0.5 SOL'luk BONK al", 'buy 0.5 SOL worth of BONK', trade('buy', exactIn('0.5'), 'SOL', 'BONK')],
  ['BONK al 0.5 SOL ile', 'buy BONK with 0.5 SOL', trade('buy', exactIn('0.5'), 'SOL', 'BONK')],
  ["0.5 SOL'e BONK al", 'buy 0.5 SOL of BONK', trade('buy', exactIn('0.5'), 'SOL', 'BONK')],
  ["BONK'u 0.5 SOL'e alır mısın", 'buy BONK with 0.5 SOL', trade('buy', exactIn('0.5'), 'SOL', 'BONK')],
  ['BONK satın al 0.5 SOL karşılığında', 'buy BONK for 0.5 SOL', trade('buy', exactIn('0.5'), 'SOL', 'BONK')],
  ['lütfen bana 0,5 SOL ile BONK al', 'please buy 0.5 SOL of BONK', trade('buy', exactIn('0.5'), 'SOL', 'BONK')],
  ['1000 BONK al USDC ile', 'buy 1000 BONK with USDC', trade('buy', exactOut('1000'), 'USDC', 'BONK')],
  ['USDC ile 1000 BONK al', 'buy 1000 BONK using USDC', trade('buy', exactOut('1000'), 'USDC', 'BONK')],
  ['10 bin BONK al USDC ile', 'buy 10k BONK with USDC', trade('buy', exactOut('10000'), 'USDC', 'BONK')],
  ["$50'lik BONK al SOL ile", 'buy $50 of BONK with SOL', trade('buy', usd('50'), 'SOL', 'BONK')],
  ['50 dolarlık BONK al SOL ile', 'buy 50 dollars of BONK with SOL', trade('buy', usd('50'), 'SOL', 'BONK')],
  ['SOL ile 50 dolara BONK al', 'buy $50 worth of BONK using SOL', trade('buy', usd('50'), 'SOL', 'BONK')],
  ['tüm USDC ile BONK al', 'buy BONK with all my USDC', trade('buy', ALL, 'USDC', 'BONK')],
  ["USDC'nin yarısıyla BONK al", 'buy BONK with half of my USDC', trade('buy', pct('50'), 'USDC', 'BONK')],
  // sell: the object is sold, the dative (or `karsiliginda`) is what it is sold for
  ["tüm WIF'imi USDC'ye sat", 'sell all my WIF for USDC', trade('sell', ALL, 'WIF', 'USDC')],
  ["tum WIF'i SOL'a sat", 'sell all WIF for SOL', trade('sell', ALL, 'WIF', 'SOL')],
  ['bütün WIF USDC karşılığında sat', 'sell everything WIF for USDC', trade('sell', ALL, 'WIF', 'USDC')],
  ["WIF'i tamamen SOL'a sat", 'sell all WIF for SOL', trade('sell', ALL, 'WIF', 'SOL')],
  ["elimdeki WIF'lerin hepsini USDC'ye sat", 'sell all my WIF for USDC', trade('sell', ALL, 'WIF', 'USDC')],
  ["WIF'in yarısını USDC'ye sat", 'sell half my WIF for USDC', trade('sell', pct('50'), 'WIF', 'USDC')],
  ["%50 JUP'u USDC'ye sat", 'sell 50% of JUP for USDC', trade('sell', pct('50'), 'JUP', 'USDC')],
  ["JUP'un %50'sini USDC'ye sat", 'sell 50% of JUP for USDC', trade('sell', pct('50'), 'JUP', 'USDC')],
  ["yüzde 12,5 JUP'u USDC'ye sat", 'sell 12.5 percent of my JUP for USDC', trade('sell', pct('12.5'), 'JUP', 'USDC')],
  ["JUP'un %100'ünü USDC'ye sat", 'sell 100% of JUP for USDC', trade('sell', ALL, 'JUP', 'USDC')],
  ["20 JUP'u USDC'ye sat", 'sell 20 JUP for USDC', trade('sell', exactIn('20'), 'JUP', 'USDC')],
  ["20 dolarlık JUP'u USDC'ye sat", 'sell $20 of JUP for USDC', trade('sell', usd('20'), 'JUP', 'USDC')],
  ["JUP'u 100 USDC'ye sat", 'sell JUP for 100 USDC', trade('sell', exactOut('100'), 'JUP', 'USDC')],
  ["BONK'tan 1.5m sat SOL karşılığında", 'sell 1.5M BONK for SOL', trade('sell', exactIn('1500000'), 'BONK', 'SOL')],
  // swap
  ["100 USDC'yi SOL'a çevir", 'swap 100 USDC to SOL', trade('swap', exactIn('100'), 'USDC', 'SOL')],
  ["100 USDC'yi SOL'a takas et", 'convert 100 USDC into SOL', trade('swap', exactIn('100'), 'USDC', 'SOL')],
  ["100 USDC SOL'a swap", 'swap 100 USDC for SOL', trade('swap', exactIn('100'), 'USDC', 'SOL')],
  ["100 USDC'yi SOL ile değiştir", 'exchange 100 USDC to SOL', trade('swap', exactIn('100'), 'USDC', 'SOL')],
  ["SOL'a 100 USDC dönüştür", 'swap 100 USDC to SOL', trade('swap', exactIn('100'), 'USDC', 'SOL')],
  ["USDC'yi 1 SOL'a çevirir misin", 'swap USDC to 1 SOL', trade('swap', exactOut('1'), 'USDC', 'SOL')],
  ["tüm BONK'u USDC'ye çevir", 'swap all BONK for USDC', trade('swap', ALL, 'BONK', 'USDC')],
  ["10 USDC.e'yi SOL'a çevir", 'swap 10 USDC.e to SOL', trade('swap', exactIn('10'), 'USDC.E', 'SOL')],
  // slippage, anywhere in the message
  ["100 USDC'yi SOL'a %1 kayma ile çevir", 'swap 100 USDC to SOL with 1% slippage', trade('swap', exactIn('100'), 'USDC', 'SOL', 100)],
  ["100 USDC'yi SOL'a %1 slippage ile cevir", 'swap 100 USDC to SOL with 1% slippage', trade('swap', exactIn('100'), 'USDC', 'SOL', 100)],
  ["kayma %0,5 100 USDC'yi SOL'a çevir", 'swap 100 USDC to SOL slippage 0.5%', trade('swap', exactIn('100'), 'USDC', 'SOL', 50)],
  ["20 JUP'u USDC'ye sat kayma 50 bps", 'sell 20 JUP for USDC slippage: 50bps', trade('sell', exactIn('20'), 'JUP', 'USDC', 50)],
  ['0.5 SOL ile BONK al %2 kaymayla', 'buy 0.5 SOL of BONK with 2% slippage', trade('buy', exactIn('0.5'), 'SOL', 'BONK', 200)],
  ["maks %1 kayma toleransıyla tüm WIF'i SOL'a sat", 'sell all WIF for SOL with max slippage 1%', trade('sell', ALL, 'WIF', 'SOL', 100)],
  // mints and addresses keep their case inside Turkish sentences
  [
    `2 ${USDC_MINT}'yi ${SOL_MINT}'e çevir`,
    `swap 2 ${USDC_MINT} to ${SOL_MINT}`,
    trade('swap', exactIn('2'), solana(USDC_MINT), solana(SOL_MINT)),
  ],
  [
    `0.5 ${SOL_MINT} ile ${BONK_MINT} al`,
    `buy 0.5 ${SOL_MINT} of ${BONK_MINT}`,
    trade('buy', exactIn('0.5'), solana(SOL_MINT), solana(BONK_MINT)),
  ],
  [
    `${BONK_MINT}'in yarısını ${USDC_MINT}'ye sat`,
    `sell half ${BONK_MINT} for ${USDC_MINT}`,
    trade('sell', pct('50'), solana(BONK_MINT), solana(USDC_MINT)),
  ],
  [
    `1 ${USDC_EVM}'i WETH'e çevir`,
    `swap 1 ${USDC_EVM} to WETH`,
    trade('swap', exactIn('1'), { kind: 'address', address: USDC_EVM, chain: 'evm' }, 'WETH'),
  ],
  // other intents
  ['durum', 'status', intent('status')],
  ['durum nedir?', "what's the status?", intent('status')],
  ['bot çalışıyor mu', 'is the bot running', intent('status')],
  ['portföy', 'portfolio', intent('portfolio')],
  ['portföyüm', 'my portfolio', intent('portfolio')],
  ['bakiye', 'balance', intent('portfolio')],
  ['bakiyemi göster', 'show my balance', intent('portfolio')],
  ['pozisyonlar', 'positions', intent('positions', { withPnl: false })],
  ['pozisyonlarım', 'my positions', intent('positions', { withPnl: false })],
  ['açık pozisyonlar', 'open positions', intent('positions', { withPnl: false })],
  ['kar zarar', 'pnl', intent('positions', { withPnl: true })],
  ['kâr/zarar', 'profit and loss', intent('positions', { withPnl: true })],
  ['pozisyonlar kar zarar', 'positions with pnl', intent('positions', { withPnl: true })],
  ['pozisyonlarım ve kar zarar', 'my positions and pnl', intent('positions', { withPnl: true })],
  ['emirler', 'orders', intent('orders')],
  ['açık emirler', 'open orders', intent('orders')],
  ['emirlerimi göster', 'show my orders', intent('orders')],
  ['bekleyen emirler', 'pending orders', intent('orders', { status: 'pending_approval' })],
  ['onay bekleyenler', 'orders awaiting approval', intent('orders', { status: 'pending_approval' })],
  ['onay bekleyen emirler', 'orders pending approval', intent('orders', { status: 'pending_approval' })],
  ['onayla ord_AbC-9', 'approve ord_AbC-9', intent('approve', { orderId: 'ord_AbC-9' })],
  ['ord_AbC-9 onayla', 'approve order ord_AbC-9', intent('approve', { orderId: 'ord_AbC-9' })],
  ["ord_AbC-9'u onayla", 'approve ord_AbC-9', intent('approve', { orderId: 'ord_AbC-9' })],
  [
    '5f0c1e2a-7b3d-4c1e-9a7f-1b2c3d4e5f60 nolu emri onayla',
    'confirm order 5f0c1e2a-7b3d-4c1e-9a7f-1b2c3d4e5f60',
    intent('approve', { orderId: '5f0c1e2a-7b3d-4c1e-9a7f-1b2c3d4e5f60' }),
  ],
  ['yardım', 'help', intent('help')],
  ['komutlar', 'commands', intent('help')],
  ['yardım dca', 'help dca', intent('help', { topic: 'dca' })],
  ['yardım alım satım', 'help with trading', intent('help', { topic: 'trading' })],
  // DCA
  ['her gün 10 USDC ile SOL al', 'buy 10 USDC of SOL every day', dcaEvery(1, 'days')],
  ['günlük 10 USDC’lik SOL al', 'dca daily 10 USDC to SOL', dcaEvery(1, 'days')],
  ['dca her gün 10 USDC ile SOL al', 'dca 10 USDC into SOL every day', dcaEvery(1, 'days')],
  ['her 4 saatte bir 10 USDC ile SOL al', 'dca create 10 USDC to SOL every 4 hours', dcaEvery(4, 'hours')],
  ['saatlik 10 USDC ile SOL al', 'dca 10 USDC into SOL hourly', dcaEvery(1, 'hours')],
  ['her 30 dakikada bir 10 USDC ile SOL al', 'dca 10 USDC into SOL every 30 min', dcaEvery(30, 'minutes')],
  ['haftada bir 10 USDC ile SOL al', 'dca 10 USDC into SOL weekly', dcaEvery(7, 'days')],
  [
    'her 4 saatte bir SOL al 10 USDC ile 30 kez adı sol-4h %1 kayma ile',
    'create dca buy SOL with 10 USDC every 4 hours for 30 buys named sol-4h with 1% slippage',
    dcaEvery(4, 'hours', { maxBuys: 30, name: 'sol-4h', slippageBps: 100 }),
  ],
  ['dca durdur', 'dca pause', intent('dca_pause')],
  ["dca'yı durdur", 'pause my dca', intent('dca_pause')],
  ['dca durdur weekly-Sol', 'stop dca weekly-Sol', intent('dca_pause', { name: 'weekly-Sol' })],
  ['dca devam', 'dca resume', intent('dca_resume')],
  ["dca'ya devam et", 'resume dca strategy', intent('dca_resume')],
  ['dca istatistik', 'dca stats', intent('dca_stats')],
  ['dca istatistikleri weekly', 'dca stats weekly', intent('dca_stats', { name: 'weekly' })],
];

describe('Turkish commands', () => {
  it('covers at least 40 messages', () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(40);
  });

  it.each(TABLE)('%s ≡ %s', (turkish, english, expected) => {
    expect(interpret(english)).toEqual(expected);
    expect(interpret(turkish)).toEqual(expected);
  });
});

describe('Turkish spelling variants', () => {
  it.each([
    ["tüm WIF'imi USDC'ye sat", ["tum WIF'imi USDC'ye sat", 'TÜM WIF’İMİ USDC’YE SAT', 'tum WIFimi USDCye sat', 'Tüm WIF`imi USDC`ye sat']],
    [
      "100 USDC'yi SOL'a çevir",
      [
        "100 USDC'yi SOL'a cevir",
        "100 usdc'yi sol'a cevir",
        '100 USDCyi SOLa cevir',
        '100 USDC’yi SOL’a çevir',
        "100 USDC'yi SOL'a çevirir misin lütfen",
      ],
    ],
    ["JUP'un %50'sini USDC'ye sat", ['JUPun %50sini USDCye sat', "JUP'UN %50'SİNİ USDC'YE SAT", "JUP'un yüzde 50'sini USDC'ye sat"]],
    [
      '50 dolarlık BONK al SOL ile',
      ['50 dolarlik BONK al SOL ile', "$50'lik BONK al SOL'le", '$50lik BONK al SOLle', "BONK'u 50 dolara SOL ile al"],
    ],
    ["WIF'in yarısını SOL'a sat", ["WIF'in yarisini SOL'a sat", 'WIFin yarisini SOLa sat', "WIF'imin yarısını SOL'a satar mısın"]],
    ['pozisyonlarım', ['pozisyonlarim', 'POZİSYONLARIM', 'POZISYONLARIM']],
    ['portföyüm', ['portfoyum', 'PORTFÖYÜM', 'merhaba, portföyüm']],
    ['bekleyen emirler', ['BEKLEYEN EMİRLER', 'bekleyen emirler lütfen']],
  ])('%s', (base, variants) => {
    const expected = interpret(base);
    expect(expected.intent).not.toBe('unknown');
    for (const variant of variants) expect(interpret(variant), variant).toEqual(expected);
  });
});

describe('Turkish tokens', () => {
  it('never strips a suffix out of a mint or a lower-case word', () => {
    // An all-caps-then-lower-case base58 word is a mint, not `SYMBOL` + suffix.
    const mint = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789ABCDEFGHJKa';
    expect(interpret(`2 ${mint}'yi SOL'a çevir`)).toEqual(trade('swap', exactIn('2'), solana(mint), 'SOL'));
    expect(interpret(`2 SOL'u ${mint} karşılığında sat`)).toEqual(trade('sell', exactIn('2'), 'SOL', solana(mint)));
    // Without an apostrophe a lower-case word keeps its letters: two tokens and no target, not a guess.
    expect(interpret('100 usdcyi sola cevir')).toMatchObject({ intent: 'unknown', reply: expect.stringMatching(/okuyamadim/) });
  });

  it('refuses amounts that read differently in Turkish and English', () => {
    for (const message of ['1.000 BONK al USDC ile', "1,000 BONK'u USDC'ye sat", "1.500.000 BONK'u SOL'a çevir"]) {
      expect(interpret(message), message).toMatchObject({ intent: 'unknown', reply: expect.stringMatching(/belirsiz/) });
    }
  });
});

describe('Turkish clarifications mirror the English ones', () => {
  it.each([
    ['1000 BONK al', 'buy 1000 BONK', /^Hangi token ile odenecek\?/, /Which token should pay/],
    ['50 dolarlık BONK al', 'buy $50 of BONK', /^Hangi token ile odenecek\?/, /Which token should pay/],
    ['BONK al', 'buy BONK', /^Ne kadar, hangi token ile odenecek\?/, /How much, and paid with which token/],
    ['USDC ile BONK al', 'buy BONK with USDC', /^Ne kadar\? Ornek: "0.5 SOL ile BONK al"/, /^How much\?/],
    ["USDC'yi SOL'a çevir", 'swap USDC to SOL', /^Ne kadar\? Ornek: "100 USDC'yi SOL'a cevir"/, /^How much\?/],
    ['100 USDC swap', 'swap 100 USDC', /^Hangi tokene cevrilsin\?/, /Swap to which token/],
    ["100 USDC'yi USDC'ye çevir", 'swap 100 USDC to USDC', /^Verilen ve alinan token ayni\.$/, /same/],
    ['0 SOL ile BONK al', 'buy 0 SOL of BONK', /^Miktar sifirdan buyuk olmali\.$/, /greater than zero/],
    ['1.2.3 SOL ile BONK al', 'buy 1.2.3 SOL of BONK', /^"1.2.3" bir miktar degil/, /"1.2.3" is not an amount/],
    ["%120 JUP'u USDC'ye sat", 'sell 120% of JUP for USDC', /^Yuzde en fazla %100 olabilir\.$/, /at most 100%/],
    ["100 USDC'yi SOL'a çevir kayma 1", 'swap 100 USDC to SOL slippage 1', /^Kayma birimini yazin: "%1" veya "1 bps"\.$/, /slippage unit/],
    [
      "100 USDC'yi SOL'a çevir %60 kayma ile",
      'swap 100 USDC to SOL with 60% slippage',
      /^Kayma en fazla %50 \(5000 bps\) olabilir\.$/,
      /at most 50%/,
    ],
    [
      "100 USDC'yi SOL'a çevir kayma",
      'swap 100 USDC to SOL with some slippage',
      /^Kaymayi yuzde ya da bps olarak yazin/,
      /percentage or in bps/,
    ],
    ['onayla', 'approve', /^Hangi emir\? "onayla <emir_id>"/, /approve <order_id>/],
    ['emri onayla', 'approve order', /^Hangi emir\?/, /approve <order_id>/],
    ['dca 10 USDC ile SOL al', 'dca 10 USDC into SOL', /^Ne siklikla\?.*DCA komutlari: /, /How often/],
    [
      'her gün 10 USDC ile SOL al 0 kez',
      'dca 10 USDC into SOL every day for 0 buys',
      /^Alim sayisi 1 ile 100000 arasinda olmali\. DCA komutlari/,
      /number of buys/,
    ],
  ])('%s ≡ %s', (turkish, english, turkishReply, englishReply) => {
    const [tr, en] = [interpret(turkish), interpret(english)];
    expect(en).toMatchObject({ intent: 'unknown', confidence: 0, params: {}, reply: expect.stringMatching(englishReply) });
    expect(tr).toMatchObject({ intent: 'unknown', confidence: 0, params: {}, reply: expect.stringMatching(turkishReply) });
  });

  it('refuses in Turkish what has no English form', () => {
    expect(interpret("0.5'lik BONK al")).toMatchObject({ intent: 'unknown', reply: expect.stringMatching(/^Hangi token ile odenecek\?/) });
    expect(interpret("100 USDC'yi 1 SOL'a çevir")).toMatchObject({
      intent: 'unknown',
      reply: expect.stringMatching(/^Bu takas komutunu okuyamadim\./),
    });
    expect(interpret('BONK al 0.5 SOL ile 1 WIF ile')).toMatchObject({
      intent: 'unknown',
      reply: expect.stringMatching(/^Bu alim komutunu okuyamadim\./),
    });
    // `dca` never falls back to a one-off trade.
    for (const message of ["dca her gün 10 WIF'i USDC'ye sat", "dca 10 WIF'i USDC'ye sat"]) {
      expect(interpret(message), message).toMatchObject({
        intent: 'unknown',
        reply: expect.stringMatching(/^Bu satis komutunu okuyamadim\./),
      });
    }
    expect(interpret("dca 10 USDC'yi SOL'a çevir")).toMatchObject({ intent: 'unknown', reply: expect.stringMatching(/^Ne siklikla\?/) });
    expect(interpret("dca her gün 10 USDC'yi SOL'a çevir")).toEqual(dcaEvery(1, 'days'));
  });
});

describe('Turkish text that is no command', () => {
  it.each([
    'merhaba',
    'naber',
    'bugün hava çok güzel',
    'teşekkürler',
    'ne yapıyorsun',
    'durum çok kötü',
    'bu bot harika',
    'yarın görüşürüz',
    'dca ne',
  ])('%s is unknown with a Turkish hint', (message) => {
    const result = interpret(message);
    expect(result).toMatchObject({ intent: 'unknown', confidence: 0, params: {} });
    expect(result.intent === 'unknown' && result.reply).toMatch(/anlasilmadi\. (?:Ornek komutlar: "durum"|DCA komutlari: )/);
  });

  it.each(['sat bakalım ne olacak', "BONK al ve WIF'i sat", "10 JUP'u USDC'ye sat ve 5 WIF'i SOL'a sat", 'bunu al'])(
    '%s is unknown',
    (message) => {
      const result = interpret(message);
      expect(result).toMatchObject({ intent: 'unknown', confidence: 0, params: {} });
      expect(result.intent === 'unknown' && result.reply).toMatch(/anlasilmadi|okuyamadim|Ne kadar/);
    },
  );

  it('leaves English messages and their English replies alone', () => {
    expect(interpret('swap 100 USDC SOL')).toMatchObject({
      intent: 'unknown',
      reply: expect.stringMatching(/^I could not read that swap command/),
    });
    expect(interpret('I sat down')).toMatchObject({
      intent: 'unknown',
      reply: expect.stringMatching(/^I did not understand "I sat down"/),
    });
    expect(interpret('what is the meaning of life')).toMatchObject({
      intent: 'unknown',
      reply: expect.stringMatching(/^I did not understand/),
    });
    expect(interpret('swap 100 USDC')).toMatchObject({ intent: 'unknown', reply: expect.stringMatching(/^Swap to which token\?/) });
  });

  it('stays fast on pathological Turkish input', () => {
    const cpuMs = cpuMillisOf(() => {
      for (const body of [
        "1 SOL'a ".repeat(490),
        '%1 kayma '.repeat(400),
        'her gun '.repeat(490),
        '1'.repeat(3990),
        "a'".repeat(1990),
        'tum '.repeat(990),
        '1,000 '.repeat(660),
      ]) {
        for (const verb of ['al', 'sat', 'cevir', 'dca']) {
          expect(interpret(`${body} ${verb}`.slice(-4000)).intent).toBe('unknown');
          expect(interpret(`${verb} ${body}`.slice(0, 4000)).intent).toBe('unknown');
        }
      }
    });
    expect(cpuMs).toBeLessThan(1000);
  });

  it('is deterministic', () => {
    const message = "JUP'un %50'sini USDC'ye sat %0,5 kayma ile";
    expect(interpret(message)).toEqual(trade('sell', pct('50'), 'JUP', 'USDC', 50));
    expect(interpret(message)).toEqual(interpret(message));
  });
});
