import { integerAtMost, parseAmount, shiftDecimal } from './command-values.js';
import { EVERY_SOURCE, INTERVAL_WORD_SOURCE, everyOf, everyProblem, wordInterval } from '../dca/dca-interval.js';
import type { DcaInterval } from './intent.types.js';

/**
 * Optional clauses that may stand anywhere in a command (`with 1% slippage`, `every 4
 * hours`, `named weekly-sol`). Each extractor returns the message without its clause, so
 * the grammar of the main command does not have to allow them in every position.
 */

export interface Extracted<T> {
  rest: string;
  /** Absent when the clause is not there. */
  value?: T;
  error?: string;
}

/** Slippage a user may ask for: 0.01% .. 50%. Wider is a typo, not a trade. */
const MAX_SLIPPAGE_BPS = 5000;

const NUM = String.raw`(\d+(?:\.\d+)?|\.\d+)`;
const UNIT = String.raw`(%|percent\b|bps\b|bp\b|basis\s+points?\b)`;
const LEAD = String.raw`(?:,\s*)?(?:\b(?:with|at|and)\s+)?(?:a\s+)?(?:\bmax(?:imum)?\s+)?`;
const SLIPPAGE_FIRST = new RegExp(
  String.raw`${LEAD}\b(?:slippage|slip)(?:\s+tolerance)?(?:\s*(?:of|at|to|=|:)\s*|\s+)${NUM}\s*${UNIT}?`,
  'i',
);
// The lookbehind starts a number only at its first digit: without it a long digit run costs O(n²).
const SLIPPAGE_LAST = new RegExp(
  String.raw`${LEAD}(?<![\d.])${NUM}\s*${UNIT}\s*(?:max(?:imum)?\s+)?(?:slippage|slip)\b(?:\s+tolerance)?`,
  'i',
);
const SLIPPAGE_WORD = /\b(?:slippage|slip)\b/i;

/** `with 1% slippage`, `slippage 0.5%`, `slippage: 50bps`, `100 bps slippage` → integer basis points. */
export function extractSlippage(message: string): Extracted<number> {
  const match = SLIPPAGE_FIRST.exec(message) ?? SLIPPAGE_LAST.exec(message);
  if (!match) {
    return SLIPPAGE_WORD.test(message)
      ? { rest: message, error: 'Write the slippage as a percentage or in bps, e.g. "with 1% slippage" or "slippage 50 bps".' }
      : { rest: message };
  }
  const rest = cut(message, match);
  const [number, unit] = [match[1]!, match[2]?.toLowerCase()];
  if (!unit) return { rest, error: `Say the slippage unit: "${number}%" or "${number} bps".` };
  const amount = parseAmount(number);
  if (!amount.ok) return { rest, error: 'Slippage must be greater than zero.' };
  const bps = unit === '%' || unit === 'percent' ? shiftDecimal(amount.value, 2) : amount.value;
  if (!integerAtMost(bps, Number.MAX_SAFE_INTEGER))
    return { rest, error: 'Slippage is set in whole basis points (0.01%); use at most two decimals of a percent.' };
  if (Number(bps) > MAX_SLIPPAGE_BPS)
    return { rest, error: `Slippage must be at most ${MAX_SLIPPAGE_BPS / 100}% (${MAX_SLIPPAGE_BPS} bps).` };
  return { rest, value: Number(bps) };
}

// The interval grammar is the one REST and MCP take (`dca-interval.ts`); here it is found inside a command.
const INTERVAL_EVERY = new RegExp(String.raw`(?:,\s*)?${EVERY_SOURCE}`, 'i');
const INTERVAL_WORD = new RegExp(String.raw`(?:,\s*)?${INTERVAL_WORD_SOURCE}`, 'i');

/** `every 4 hours`, `every hour`, `every 30 min`, `every 2h`, `daily`, `weekly` → `{every, unit}`. */
export function extractInterval(message: string): Extracted<DcaInterval> {
  const every = INTERVAL_EVERY.exec(message);
  if (every) {
    const interval = everyOf(every[1], every[2]!);
    const rest = cut(message, every);
    return everyProblem(interval) ? { rest, error: 'The interval must be between 1 minute and 366 days.' } : { rest, value: interval };
  }
  const word = INTERVAL_WORD.exec(message);
  if (!word) return { rest: message };
  return { rest: cut(message, word), value: wordInterval(word[1]!) };
}

/** The API's text form: `every 4 hours`. */
export function intervalText(interval: DcaInterval): string {
  return `every ${interval.every} ${interval.unit}`;
}

// The characters a strategy name may have on every route (letters, digits, _ . : -).
const NAME_CLAUSE = /(?:,\s*)?\b(?:named|called|name)\s+["']?([A-Za-z0-9][A-Za-z0-9_.:-]{0,63})["']?/i;
const MAX_BUYS_CLAUSE = /(?:,\s*)?\b(?:(?:for|max(?:imum)?|up\s+to|at\s+most)\s+(\d+)\s+(?:buys|purchases|times|orders)|(\d+)\s+times)\b/i;

/** `named weekly-sol` / `called x` → strategy name. */
export function extractName(message: string): Extracted<string> {
  const match = NAME_CLAUSE.exec(message);
  return match ? { rest: cut(message, match), value: match[1]! } : { rest: message };
}

/** `for 10 buys`, `max 5 purchases`, `10 times` → maximum number of buys. */
export function extractMaxBuys(message: string): Extracted<number> {
  const match = MAX_BUYS_CLAUSE.exec(message);
  if (!match) return { rest: message };
  const count = Number(match[1] ?? match[2]);
  const rest = cut(message, match);
  return count >= 1 && count <= 100_000 ? { rest, value: count } : { rest, error: 'The number of buys must be between 1 and 100000.' };
}

/** Removes a matched clause and tidies the spaces it leaves. */
function cut(message: string, match: RegExpExecArray): string {
  return `${message.slice(0, match.index)} ${message.slice(match.index + match[0].length)}`.replace(/\s+/g, ' ').trim();
}
