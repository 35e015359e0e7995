import { parseAmount, parseToken, parseTokenPair, tokenError, type Parsed } from './command-values.js';
import type { TradeAmount, TradeParams } from './intent.types.js';

/**
 * The grammar of `buy`, `sell` and `swap` after the verb (slippage already removed).
 * Each form is one anchored regex over the whole rest of the message; the first form
 * that matches decides, so an odd word anywhere makes the command unknown instead of
 * being silently skipped. Forms that lack a part answer with what is missing, except a
 * sell without a token to receive, which sells for the account's quote token.
 */

export type TradeSide = 'buy' | 'sell' | 'swap';
type Quantity = Exclude<TradeAmount, { kind: 'exact' }> | { kind: 'exact'; value: string };

/** Anything number-like; `parseAmount` decides, so `1e3` or `1,00` get a precise error instead of a generic one. */
const NUM = String.raw`\.?\d[\w.,]*`;
const USD = String.raw`\$${NUM}|${NUM}\s*(?:usd|dollars?|bucks)\b`;
const QTY = String.raw`all|everything|max|half|${USD}|${NUM}\s*(?:%|percent\b)|${NUM}`;
const MY = String.raw`(?:(?:worth\s+)?of\s+)?(?:my\s+|the\s+)?`;
const T = String.raw`(\S+)`;
const PAY = String.raw`(?:with|using|for|from)`;
const TO = String.raw`(?:to|for|into)`;
const form = (source: string) => new RegExp(`^${source}$`, 'i');

const EXAMPLES: Record<TradeSide, string> = {
  buy: '"buy 0.5 SOL of BONK", "buy 1000 BONK with USDC" or "buy BONK with 10 USDC"',
  sell: '"sell 20 JUP for USDC", "sell all JUP for SOL" or "sell 50% of JUP for USDC"',
  swap: '"swap 100 USDC to SOL" or "swap all BONK for USDC"',
};

interface Form {
  pattern: RegExp;
  /** Builds the params from the captures (or says what is missing). */
  build: (m: string[]) => Parsed<TradeParams>;
}

const missing = (side: TradeSide, what: string): Parsed<TradeParams> => ({ ok: false, error: `${what} For example: ${EXAMPLES[side]}.` });

function formsOf(side: TradeSide): Form[] {
  if (side === 'buy') {
    return [
      { pattern: form(`(${USD})\\s+(?:worth\\s+)?(?:of\\s+)?${T}\\s+${PAY}\\s+${T}`), build: (m) => trade(quantity(m[1]!), m[3]!, m[2]!) },
      { pattern: form(`(${USD})\\s+(?:worth\\s+)?(?:of\\s+)?${T}`), build: () => missing(side, 'Which token should pay for it?') },
      {
        pattern: form(`(${NUM})\\s+${T}\\s+(?:worth\\s+)?(?:of|into|in)\\s+${T}`),
        build: (m) => trade(exact(m[1]!, 'input'), m[2]!, m[3]!),
      },
      { pattern: form(`(${NUM})\\s+${T}\\s+${PAY}\\s+${T}`), build: (m) => trade(exact(m[1]!, 'output'), m[3]!, m[2]!) },
      { pattern: form(`${T}\\s+${PAY}\\s+(${QTY})\\s+${MY}${T}`), build: (m) => trade(quantity(m[2]!), m[3]!, m[1]!) },
      { pattern: form(`${T}\\s+${PAY}\\s+(${USD})`), build: () => missing(side, 'Which token should pay for it?') },
      { pattern: form(`${T}\\s+${PAY}\\s+${T}`), build: () => missing(side, 'How much?') },
      { pattern: form(`(${NUM})\\s+${T}`), build: () => missing(side, 'Which token should pay for it?') },
      { pattern: form(T), build: () => missing(side, 'How much, and paid with which token?') },
    ];
  }
  return [
    { pattern: form(`(${QTY})\\s+${MY}${T}\\s+${TO}\\s+${T}`), build: (m) => trade(quantity(m[1]!), m[2]!, m[3]!) },
    { pattern: form(`${MY}${T}\\s+${TO}\\s+(${NUM})\\s+${T}`), build: (m) => trade(exact(m[2]!, 'output'), m[1]!, m[3]!) },
    { pattern: form(`${MY}${T}\\s+${TO}\\s+${T}`), build: () => missing(side, 'How much?') },
    {
      pattern: form(`(${QTY})\\s+${MY}${T}`),
      build: (m) => (side === 'sell' ? sellForQuote(quantity(m[1]!), m[2]!) : missing(side, 'Swap to which token?')),
    },
  ];
}

/** Parses the words after the verb; always an answer, since the verb already said it is a trade. */
export function parseTrade(side: TradeSide, body: string): Parsed<TradeParams> {
  if (/(?:^|\s)-\s*\.?\d/.test(body)) return { ok: false, error: 'The amount must be greater than zero.' };
  for (const { pattern, build } of formsOf(side)) {
    const match = pattern.exec(body);
    if (match) return build([...match].map((part) => part ?? ''));
  }
  return missing(side, `I could not read that ${side} command.`);
}

function trade(amount: Parsed<TradeAmount>, inputWord: string, outputWord: string): Parsed<TradeParams> {
  if (!amount.ok) return amount;
  const pair = parseTokenPair(inputWord, outputWord);
  if (!pair.ok) return pair;
  return { ok: true, value: { amount: amount.value, ...pair.value } };
}

function sellForQuote(amount: Parsed<TradeAmount>, inputWord: string): Parsed<TradeParams> {
  if (!amount.ok) return amount;
  const inputToken = parseToken(inputWord);
  if (!inputToken) return { ok: false, error: tokenError(inputWord) };
  return { ok: true, value: { amount: amount.value, inputToken, outputToken: { kind: 'quote' } } };
}

function exact(text: string, of: 'input' | 'output'): Parsed<TradeAmount> {
  const amount = parseAmount(text);
  return amount.ok ? { ok: true, value: { kind: 'exact', value: amount.value, of } } : amount;
}

/** A quantity of the input token: all, half, a percentage, US dollars or an exact amount. */
function quantity(text: string): Parsed<TradeAmount> {
  const q = parseQuantity(text.trim());
  if (!q.ok) return q;
  return { ok: true, value: q.value.kind === 'exact' ? { ...q.value, of: 'input' } : q.value };
}

function parseQuantity(text: string): Parsed<Quantity> {
  const word = text.toLowerCase();
  if (word === 'all' || word === 'everything' || word === 'max') return { ok: true, value: { kind: 'all' } };
  if (word === 'half') return { ok: true, value: { kind: 'percent', value: '50' } };
  const percent = /^(.+?)\s*(?:%|percent)$/i.exec(text);
  if (percent) {
    const value = parseAmount(percent[1]!);
    if (!value.ok) return value;
    // Compared as text, never as a float: `100.00000000000000001` is over 100, not all of it.
    const [whole = '0', fraction = ''] = value.value.split('.');
    if (BigInt(whole) > 100n || (whole === '100' && fraction !== '')) return { ok: false, error: 'A percentage can be at most 100%.' };
    return value.value === '100' ? { ok: true, value: { kind: 'all' } } : { ok: true, value: { kind: 'percent', value: value.value } };
  }
  const usd = /^\$(.+)$/.exec(text) ?? /^(.+?)\s*(?:usd|dollars?|bucks)$/i.exec(text);
  if (usd) {
    const value = parseAmount(usd[1]!);
    return value.ok ? { ok: true, value: { kind: 'usd', value: value.value } } : value;
  }
  const value = parseAmount(text);
  return value.ok ? { ok: true, value: { kind: 'exact', value: value.value } } : value;
}
