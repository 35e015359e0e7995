import { parseEvmAddress } from '../../kernel/vocabulary/chain-address.js';
import type { TokenRef } from './intent.types.js';

/**
 * Values inside commands: amounts, token names, strategy names. Amounts stay decimal
 * strings end to end (no floats: `0.1 + 0.2` must not reach an order).
 */

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const fail = <T>(error: string): Parsed<T> => ({ ok: false, error });

/**
 * Digits with optional thousands groups (`1,000,000`) or none, an optional fraction, an
 * optional k/m/b suffix. A group never follows a leading 0: `0,500` is a European 0.5, not
 * 500, and an amount a thousand times off must be refused, not traded.
 */
const AMOUNT = /^(?:([1-9]\d{0,2}(?:,\d{3})+|\d+)(?:\.(\d+))?|\.(\d+))([kmb])?$/i;
const SUFFIX_PLACES: Record<string, number> = { k: 3, m: 6, b: 9 };
/** Enough for any token supply in whole units with 18 decimals; longer input is a typo or an attack. */
const MAX_AMOUNT_CHARS = 40;

/** `1,000.50` → `1000.5`, `1.5k` → `1500`, `.5` → `0.5`; refuses zero, signs, exponents and bad grouping. */
export function parseAmount(text: string): Parsed<string> {
  const raw = text.trim();
  const match = raw.length <= MAX_AMOUNT_CHARS ? AMOUNT.exec(raw) : null;
  if (!match) return fail(`"${raw.slice(0, MAX_AMOUNT_CHARS)}" is not an amount; write it like 0.5, 1000 or 1,000.25.`);
  const whole = (match[1] ?? '0').replaceAll(',', '');
  const fraction = match[2] ?? match[3] ?? '';
  const value = shiftDecimal(normalizeDecimal(whole, fraction), SUFFIX_PLACES[(match[4] ?? '').toLowerCase()] ?? 0);
  if (value === '0') return fail('The amount must be greater than zero.');
  return ok(value);
}

/** Moves the decimal point right by `places` (multiplies by 10^places) on a normalized decimal string. */
export function shiftDecimal(value: string, places: number): string {
  const [whole = '0', fraction = ''] = value.split('.');
  const padded = fraction.padEnd(places, '0');
  return normalizeDecimal(whole + padded.slice(0, places), padded.slice(places));
}

/** Canonical form: no leading zeros in the whole part, no trailing zeros in the fraction. */
function normalizeDecimal(whole: string, fraction: string): string {
  const w = whole.replace(/^0+(?=\d)/, '') || '0';
  const f = fraction.replace(/0+$/, '');
  return f ? `${w}.${f}` : w;
}

/** True when a normalized decimal string is an integer no larger than `max`. */
export function integerAtMost(value: string, max: number): boolean {
  return /^\d+$/.test(value) && value.length <= 16 && Number(value) <= max;
}

/** Words that read like token symbols but are grammar; refusing them keeps `sell all my JUP` from trading "MY". */
const RESERVED = new Set(
  (
    'a an the of for with to into in from using and or my me all everything max half some any worth ' +
    'slippage slip bps percent usd dollar dollars bucks every each daily hourly weekly at per by on it this that please'
  ).split(' '),
);

const SOLANA_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** Symbols: letters, digits, `.`, `_`, `-` (`USDC.e`, `1INCH`); at least one letter; a `$` cashtag prefix is dropped. */
const SYMBOL = /^(?=[^A-Za-z]*[A-Za-z])[A-Za-z0-9][A-Za-z0-9._-]{0,19}$/;

/** A token symbol, Solana mint or EVM address; undefined when the word cannot be one. */
export function parseToken(word: string): TokenRef | undefined {
  // Mixed case is an EIP-55 checksum claim: a wrong one is a typo, not a token to look up without case.
  if (EVM_ADDRESS.test(word)) return parseEvmAddress(word) ? { kind: 'address', address: word, chain: 'evm' } : undefined;
  // A 32+ character base58 word is a mint; real symbols are far shorter.
  if (SOLANA_ADDRESS.test(word)) return { kind: 'address', address: word, chain: 'solana' };
  const symbol = word.startsWith('$') ? word.slice(1) : word;
  if (!SYMBOL.test(symbol) || RESERVED.has(symbol.toLowerCase())) return undefined;
  // `1k`, `5m` are amounts, not symbols.
  if (AMOUNT.test(symbol)) return undefined;
  return { kind: 'symbol', symbol: symbol.toUpperCase() };
}

/** `Token "X" ...` error for a word that is not a token. */
export function tokenError(word: string): string {
  return `"${word.slice(0, 60)}" is not a token symbol or address.`;
}

/** The token to spend and the token to get, both known and different. */
export function parseTokenPair(inputWord: string, outputWord: string): Parsed<{ inputToken: TokenRef; outputToken: TokenRef }> {
  const inputToken = parseToken(inputWord);
  if (!inputToken) return { ok: false, error: tokenError(inputWord) };
  const outputToken = parseToken(outputWord);
  if (!outputToken) return { ok: false, error: tokenError(outputWord) };
  if (sameToken(inputToken, outputToken)) return { ok: false, error: 'The input and output token are the same.' };
  return { ok: true, value: { inputToken, outputToken } };
}

/** Two references to the same token (symbols case-insensitively, EVM addresses too). */
function sameToken(a: TokenRef, b: TokenRef): boolean {
  if (a.kind === 'symbol' && b.kind === 'symbol') return a.symbol === b.symbol;
  if (a.kind === 'address' && b.kind === 'address') {
    return a.chain === 'evm' && b.chain === 'evm' ? a.address.toLowerCase() === b.address.toLowerCase() : a.address === b.address;
  }
  return false;
}

/** How a token is shown back to the user. */
export function tokenLabel(token: TokenRef): string {
  return token.kind === 'symbol' ? token.symbol : token.address;
}

/** Order ids and strategy names: printable, no spaces, bounded. */
export const IDENTIFIER = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;
