import { parseToken } from './command-values.js';
import type { InterpretResult } from './intent.types.js';
import type { TradeSide } from './trade-grammar.js';
import {
  caseOf,
  foldTurkish,
  looksTurkish,
  readShape,
  turkishHint,
  turkishQuestion,
  turkishReply,
  VERB_PHRASES,
  type Case,
} from './turkish-grammar.phrases.js';

/**
 * Turkish commands, translated to the canonical English command the English grammar
 * parses, so there is one grammar of meaning (and one set of clarification questions,
 * said back in Turkish): `100 USDC'yi SOL'a cevir` → `swap 100 USDC to SOL`.
 *
 * Only reached when the English grammar found no intent, so no English command changes
 * meaning. Matching runs on a folded copy of the message (lower case, ı→i ş→s ğ→g ü→u ö→o
 * ç→c, one apostrophe); token words, ids and names are taken from the message as typed, so
 * mints keep their case. A suffix is split off at an apostrophe (`SOL'a`, `WIF'imi`,
 * `%50'sini`), or without one only when an all-caps symbol is followed by a known suffix
 * (`SOLa`, `USDCyi`; never in a mint, never after a lower-case word).
 *
 * Trades: one verb (`al`/`satin al`, `sat`, `cevir`/`donustur`/`degistir`/`takas et`/`swap`,
 * also `alir misin`, `satmak istiyorum`, ...) anywhere; the roles come from the cases:
 * - buy: the object is bought; what pays takes `ile`, `karsiliginda`, a dative or `-lik`
 *   (worth): `0.5 SOL ile BONK al`, `0.5 SOL'luk BONK al`, `BONK al 0.5 SOL ile`,
 *   `1000 BONK al USDC ile` (exact output), `50 dolarlik BONK al SOL ile`, `$50'lik ...`;
 * - sell/swap: the object is spent, the dative (`karsiliginda`; for swaps also `ile`) is
 *   what it becomes: `20 JUP'u USDC'ye sat`, `JUP'u 100 USDC'ye sat` (exact output),
 *   `100 USDC'yi SOL'a cevir`, `100 USDC SOL'a swap`;
 * - quantities: `tum`/`butun` X, X'in `hepsini`/`tamamini`, `tamamen` (all), X'in `yarisini`
 *   (50%), `%50` / `yuzde 50` / X'in `%50'sini`, `$50` / `50 dolar`, `10 bin` (10k), `0,5`;
 *   `1.000`-like amounts (thousands or decimals?) are refused;
 * - clauses anywhere: `%1 kayma ile`, `%1 slippage ile`, `kayma %1`, `kayma 50 bps`; and for
 *   DCA `her gun`, `gunluk`, `her 4 saatte bir`, `30 kez`, `adi <name>`, an optional `dca` first.
 * A part left out gets the English grammar's answer: a sell that names nothing to receive
 * (`10 JUP sat`) sells for the quote token; any other missing part is a question, never a default.
 */

type Qty =
  | { kind: 'exact'; text: string }
  | { kind: 'usd'; text: string }
  | { kind: 'pct'; text: string }
  | { kind: 'all' }
  | { kind: 'half' };
interface Phrase {
  qty?: Qty;
  tok?: string;
  case: Case;
}
type Item = { t: 'qty'; qty: Qty; case: Case } | { t: 'tok'; word: string; case: Case } | { t: 'post'; case: 'ins' | 'dat' };
type Reading = { command: string; side?: TradeSide } | { error: string };

/**
 * The Turkish reading of a message the English grammar did not understand: the intent of
 * its English translation (interpreted by `english`), an unknown with a Turkish reply, or
 * undefined when the message is not Turkish at all (the English reply stands).
 */
export function interpretTurkish(message: string, english: (command: string) => InterpretResult): InterpretResult | undefined {
  const reading = readTurkish(message);
  if (!reading) return undefined;
  if ('error' in reading) return unknown(reading.error);
  const result = english(reading.command);
  return result.intent === 'unknown' ? unknown(turkishReply(result.reply, reading.side)) : result;
}

function unknown(reply: string): InterpretResult {
  return { intent: 'unknown', params: {}, confidence: 0, reply };
}

const GREETING = new Set(['merhaba', 'selam', 'selamlar', 'slm', 'mrb', 'hey', 'bot']);
const POLITE = new Set(['lutfen', 'hemen', 'simdi', 'tesekkurler', 'sagol', 'saol']);

function readTurkish(message: string): Reading | undefined {
  const original = message.split(' ');
  const folded = foldTurkish(message).split(' ');
  let [start, end] = [0, original.length];
  while (start < end && (GREETING.has(folded[start]!) || POLITE.has(folded[start]!))) start++;
  while (end > start && POLITE.has(folded[end - 1]!)) end--;
  const text = original.slice(start, end).join(' ');
  const lower = folded.slice(start, end).join(' ');
  const command = text ? readShape(text, lower) : undefined;
  const reading = command !== undefined ? { command } : text ? readTrade(text, lower) : undefined;
  if (reading) return reading;
  return looksTurkish(message, folded) ? { error: turkishHint(message, /\bdca\b/.test(lower)) } : undefined;
}

// ---------------------------------------------------------------- trades

const FILLER = new Set(['lutfen', 'hemen', 'simdi', 'bana', 'benim', 'elimdeki', 'cuzdanimdaki', 'olan']);
/** `dca` before a Turkish buy: a DCA strategy, never a one-off buy (without an interval the English grammar asks how often). */
const CREATE_DCA = /^dca(?: (?:olustur|kur|ekle|yeni))?$/;

const START = String.raw`(?<=^|\s)`;
const END = String.raw`(?=\s|$)`;
const SNUM = String.raw`(?<![\d.,])(\d+(?:[.,]\d+)?)`;
const SLIP = String.raw`(?:kayma(?:si)?|slippage|slip)(?:\s+(?:toleransi|payi|orani))?`;
const MAX = String.raw`(?:(?:en fazla|maks(?:imum)?)\s+)?`;
const UNIT = String.raw`(%|bps|baz puan)`;
const WORTH = String.raw`(?:'?l[iu]k)?`;
/** Clauses that may stand anywhere, matched on the folded text → the English clause (`original` reads a group as typed). */
const CLAUSES: Array<[RegExp, (m: RegExpExecArray, original: (group: number) => string) => string]> = [
  // `%1 kayma ile`, `%0,5 kaymayla`, `50 bps slippage ile`, `maks %1 kayma`
  [new RegExp(`${START}${MAX}(?:%\\s?${SNUM}|${SNUM}\\s?${UNIT})${WORTH}\\s*${MAX}${SLIP}(?:'?y?l[ae]|\\s+ile)?${END}`, 'd'), slippage],
  // `kayma %1`, `slippage: 50 bps`, `kayma toleransi %0.5 olsun`; `kayma 1` (no unit) lets the English grammar ask for one
  [
    new RegExp(
      `${START}${SLIP}(?:\\s*[:=]\\s*|\\s+)${MAX}(?:%\\s?${SNUM}|${SNUM}(?:\\s?${UNIT})?)${WORTH}(?:\\s+(?:ile|olsun))?${END}`,
      'd',
    ),
    slippage,
  ],
  // `her gun`, `her 4 saatte bir`, `her 30 dakika`, `2 gunde bir`, `haftada bir`
  [
    new RegExp(
      `${START}(?:her\\s+(?:(\\d+)\\s*)?(dakika|dk|saat|gun|hafta)(?:[dt][ae](?:\\s+bir)?)?|(?:(\\d+)\\s*)?(dakika|dk|saat|gun|hafta)[dt][ae]\\s+bir)${END}`,
      'd',
    ),
    interval,
  ],
  [
    new RegExp(`${START}(gunluk|saatlik|haftalik)${END}`, 'd'),
    (m) => ({ gunluk: 'daily', saatlik: 'hourly', haftalik: 'weekly' })[m[1] as 'gunluk'],
  ],
  [new RegExp(`${START}(?:(?:toplam|en fazla|maks(?:imum)?)\\s+)?(\\d+)\\s+(?:kez|kere|defa|alim)${END}`, 'd'), (m) => `for ${m[1]} buys`],
  [
    new RegExp(`${START}(?:adi|ismi)\\s*[:=]?\\s*["']?([a-z0-9][a-z0-9_.-]{0,63})["']?${END}`, 'd'),
    (_, original) => `named ${original(1)}`,
  ],
];

const BARE_SLIPPAGE = new RegExp(`${START}(?:kayma|slippage|slip)\\S*(?:\\s+(?:toleransi|payi|orani)\\S*)?${END}`);

function slippage(m: RegExpExecArray): string {
  const number = (m[1] ?? m[2] ?? '').replace(',', '.');
  const unit = m[1] !== undefined ? '%' : m[3];
  return `slippage ${number}${unit === undefined ? '' : unit === '%' ? '%' : ' bps'}`;
}

function interval(m: RegExpExecArray): string {
  const unit = { dakika: 'minutes', dk: 'minutes', saat: 'hours', gun: 'days', hafta: 'weeks' }[(m[2] ?? m[4]) as 'gun'];
  return `every ${m[1] ?? m[3] ?? 1} ${unit}`;
}

function readTrade(typed: string, folded: string): Reading | undefined {
  let [text, lower] = [typed, folded];
  const clauses: string[] = [];
  for (const [pattern, english] of CLAUSES) {
    const match = pattern.exec(lower);
    if (!match) continue;
    const source = text;
    clauses.push(english(match, (group) => source.slice(...match.indices![group]!)));
    [text, lower] = [cut(text, match), cut(lower, match)];
  }
  // A slippage word left over (no number): the English grammar says how to write it.
  const bareSlippage = BARE_SLIPPAGE.exec(lower);
  if (bareSlippage) {
    [text, lower] = [cut(text, bareSlippage), cut(lower, bareSlippage)];
    clauses.push('slippage');
  }
  let [words, low] = [text.split(' '), lower.split(' ')];
  const prefix = [2, 1].find((n) => CREATE_DCA.test(low.slice(0, n).join(' ')) && low.length > n) ?? 0;
  [words, low] = [words.slice(prefix), low.slice(prefix)];

  const verbs: Array<{ at: number; length: number; side: TradeSide }> = [];
  for (let at = 0; at < low.length; at++) {
    const length = [3, 2, 1].find((n) => at + n <= low.length && VERB_PHRASES.has(low.slice(at, at + n).join(' ')));
    if (length === undefined) continue;
    verbs.push({ at, length, side: VERB_PHRASES.get(low.slice(at, at + length).join(' '))! });
    at += length - 1;
  }
  if (verbs.length !== 1) return undefined;
  const { at, length, side } = verbs[0]!;
  const rest = [...low.slice(0, at), ...low.slice(at + length)];
  const items = lex([...words.slice(0, at), ...words.slice(at + length)], rest);
  // `swap` and `sat` are English words too: before the end of a message with nothing Turkish in it
  // (`swap 100 USDC SOL`, `I sat down`) they are English, and the English reply stands.
  const englishWord = length === 1 && (low[at] === 'swap' || low[at] === 'sat') && at < low.length - 1;
  if (englishWord && !(typeof items === 'object' && items.some(isTurkish)) && !looksTurkish(text, rest)) return undefined;
  if (typeof items === 'string') return { error: items };
  const phrases = items && group(items);
  // A DCA strategy spends the input: a sale's English words (`WIF for 100 USDC`) would read as a buy there.
  const body = phrases && !(prefix > 0 && side === 'sell') && build(side, phrases);
  if (!body) return { error: turkishQuestion.unreadable(side) };
  if ('error' in body) return body;
  return { command: [prefix > 0 ? 'dca' : side, body.text, ...clauses].join(' '), side };
}

/** A case, a postposition or a Turkish quantity word: what an English command never has. */
function isTurkish(item: Item): boolean {
  return item.t === 'post' || item.case !== 'none' || (item.t === 'qty' && (item.qty.kind === 'all' || item.qty.kind === 'half'));
}

function cut(text: string, match: RegExpExecArray): string {
  return `${text.slice(0, match.index)} ${text.slice(match.index + match[0].length)}`.replace(/\s+/g, ' ').trim();
}

const QUANTITY_WORD = /^(tum|butun|hep|tamam|yari)(.*)$/;
/** Words that qualify the number before them: dollars, thousands (`10 bin`), counters (`10 tane`, `1 tanesini`). */
const UNIT_WORD = /^(dolar|usd|bin|milyon|milyar|tane|adet)(.*)$/;
/** A number as the English grammar reads one (`0.5`, `1,000`, `1.5k`), with `$` or `%` before or after it. */
const NUMBER = /^([%$]?)(\.?\d[\d.,]*[kmb]?)([%$]?)$/;
const NUMBER_SUFFIX = /^(.*\d[kmb]?[%$]?)([a-z]+)$/;
const BARE_SUFFIX = /^([A-Z0-9]*[A-Z])([a-z]+)$/;
const SOLANA_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** Words → items; a string is a Turkish error, undefined a word that fits nowhere. */
function lex(words: string[], low: string[]): Item[] | string | undefined {
  const items: Item[] = [];
  let percent = false;
  for (let i = 0; i < words.length; i++) {
    const [word, folded] = [words[i]!, low[i]!];
    if (FILLER.has(folded)) continue;
    if (folded === 'ile' || folded === 'karsiliginda') {
      items.push({ t: 'post', case: folded === 'ile' ? 'ins' : 'dat' });
      continue;
    }
    if (folded === 'yuzde') {
      percent = true;
      continue;
    }
    const at = folded.indexOf("'");
    const [stem, stemFolded, suffixCase] =
      at > 0 ? [word.slice(0, at), folded.slice(0, at), caseOf(folded.slice(at + 1))] : [word, folded, 'none' as Case];
    if (!suffixCase) return undefined;
    // `50lik`, `%50sini`: a case suffix written straight after a number (`1.5m` stays a million, not "my 1.5").
    const numberSuffix = at < 0 ? NUMBER_SUFFIX.exec(folded) : null;
    const attached = numberSuffix ? caseOf(numberSuffix[2]!) : undefined;
    const [numberText, numberCase] = attached && attached !== 'none' ? [numberSuffix![1]!, attached] : [stemFolded, suffixCase];
    const number = NUMBER.exec(numberText);
    if (percent && !number) return undefined;
    const previous = items[items.length - 1];
    const quantity = at < 0 ? QUANTITY_WORD.exec(folded) : null;
    const quantityCase = quantity ? caseOfQuantity(quantity[1]!, quantity[2]!) : undefined;
    const unit = UNIT_WORD.exec(stemFolded);
    const unitCase = unit && (at > 0 ? (unit[2] === '' ? suffixCase : undefined) : caseOf(unit[2]!));
    if (quantity && quantityCase) {
      items.push({ t: 'qty', qty: quantity[1] === 'yari' ? { kind: 'half' } : { kind: 'all' }, case: quantityCase });
    } else if (folded === 'tamamen') {
      // An adverb (`WIF'i tamamen sat`): a quantity that takes no token after it, hence not `none`.
      items.push({ t: 'qty', qty: { kind: 'all' }, case: 'acc' });
    } else if (unit && unitCase && previous?.t === 'qty' && previous.qty.kind === 'exact' && previous.case === 'none') {
      // `50 dolarlik`, `10 bin`: the word changes the number before it and lends it its case.
      const big = { bin: 'k', milyon: 'm', milyar: 'b' }[unit[1] as 'bin'];
      if (big && /[kmb]$/.test(previous.qty.text)) return undefined;
      if (unit[1] === 'dolar' || unit[1] === 'usd') previous.qty = { kind: 'usd', text: previous.qty.text };
      else if (big) previous.qty = { kind: 'exact', text: `${previous.qty.text}${big}` };
      previous.case = unitCase;
    } else if (number) {
      const text = decimal(number[2]!);
      if (typeof text !== 'string') return text.error;
      const kind = percent || number[1] === '%' || number[3] === '%' ? 'pct' : number[1] === '$' || number[3] === '$' ? 'usd' : 'exact';
      items.push({ t: 'qty', qty: { kind, text }, case: numberCase });
      percent = false;
    } else {
      // `SOLa`, `USDCyi`: an all-caps symbol and a known suffix; never inside a mint.
      const bare = at < 0 && !SOLANA_ADDRESS.test(word) ? BARE_SUFFIX.exec(word) : null;
      const bareCase = bare && caseOf(bare[2]!);
      const token = bare && bareCase && parseToken(bare[1]!) ? { word: bare[1]!, case: bareCase } : { word: stem, case: suffixCase };
      if (!parseToken(token.word)) return undefined;
      items.push({ t: 'tok', ...token });
    }
  }
  return percent ? undefined : items;
}

/** `tum` (all, before a token), `tumunu`, `hepsini`, `tamamini`, `yarisini`: case, or undefined when the word is no quantity (`hep`, `tamam`). */
function caseOfQuantity(word: string, suffix: string): Case | undefined {
  if ((word === 'hep' || word === 'yari') && !suffix.startsWith('s')) return undefined;
  if (word === 'tamam' && suffix === '') return undefined;
  return caseOf(suffix);
}

/** `0,5` → `0.5`; `1.000` / `1,000` (a thousands group or a decimal?) is refused rather than guessed. */
function decimal(text: string): string | { error: string } {
  if (/^[1-9]\d{0,2}(?:[.,]\d{3})+$/.test(text)) return { error: turkishQuestion.ambiguousAmount(text) };
  return /^\d*,\d+$/.test(text) ? text.replace(',', '.') : text;
}

/** Items → phrases (`0.5 SOL'luk`, `tum WIF'imi`, `JUP'un %50'sini`, `SOL ile`). */
function group(items: Item[]): Phrase[] | undefined {
  const phrases: Phrase[] = [];
  let open: Phrase | undefined;
  for (const item of items) {
    const last = phrases[phrases.length - 1];
    if (item.t === 'post') {
      if (last?.case !== 'none' || !last.tok) return undefined;
      last.case = item.case;
      open = undefined;
    } else if (item.t === 'qty') {
      if (open?.tok && !open.qty && (open.case === 'gen' || open.case === 'abl')) {
        // Partitive: `WIF'in yarisini`, `BONK'tan 1000`.
        Object.assign(open, { qty: item.qty, case: item.case });
        open = undefined;
      } else {
        phrases.push({ qty: item.qty, case: item.case });
        open = item.case === 'none' ? phrases[phrases.length - 1] : undefined;
      }
    } else if (open?.qty && !open.tok) {
      Object.assign(open, { tok: item.word, case: item.case });
      open = open.case === 'gen' || open.case === 'abl' ? open : undefined;
    } else {
      phrases.push({ tok: item.word, case: item.case });
      open = phrases[phrases.length - 1];
    }
  }
  return phrases.some((p) => p.case === 'gen') ? undefined : phrases;
}

interface Slot {
  qty?: Qty;
  tok?: string;
}

/** Phrases → the English words after the verb, or a Turkish error. */
function build(side: TradeSide, phrases: Phrase[]): { text: string } | { error: string } | undefined {
  const [given, got]: [Slot, Slot] = [{}, {}];
  const fill = (slot: Slot, phrase: Phrase): boolean => {
    if ((phrase.qty && slot.qty) || (phrase.tok && slot.tok)) return false;
    Object.assign(slot, phrase.qty ? { qty: phrase.qty } : {}, phrase.tok ? { tok: phrase.tok } : {});
    return true;
  };
  for (const phrase of phrases) {
    const worthOfNothing = phrase.case === 'lik' && !phrase.tok;
    const pays =
      side === 'buy'
        ? phrase.case === 'ins' || phrase.case === 'dat' || phrase.case === 'lik' || (phrase.case === 'abl' && !phrase.qty)
        : phrase.case === 'none' ||
          phrase.case === 'acc' ||
          phrase.case === 'abl' ||
          (worthOfNothing && phrase.qty?.kind === 'usd') ||
          (phrase.case === 'dat' && !phrase.tok && phrase.qty?.kind === 'usd');
    const gets =
      side === 'buy'
        ? phrase.case === 'none' || phrase.case === 'acc'
        : phrase.case === 'dat' || (phrase.case === 'lik' && !!phrase.tok) || (side === 'swap' && phrase.case === 'ins');
    if (!(pays ? fill(given, phrase) : gets && fill(got, phrase))) return undefined;
  }
  if (given.qty && got.qty) return undefined;
  if (side === 'buy') return buyBody(given, got);
  const to = side === 'sell' ? 'for' : 'to';
  if (!given.tok) return undefined;
  if (got.qty) return got.qty.kind === 'exact' && got.tok ? { text: `${given.tok} ${to} ${got.qty.text} ${got.tok}` } : undefined;
  const head = given.qty ? `${quantity(given.qty)} ${given.tok}` : given.tok;
  return { text: got.tok ? `${head} ${to} ${got.tok}` : head };
}

function buyBody(pay: Slot, out: Slot): { text: string } | { error: string } | undefined {
  if (!out.tok) return undefined;
  const amount = out.qty ?? pay.qty;
  if (out.qty && out.qty.kind !== 'exact' && out.qty.kind !== 'usd') return undefined;
  if (amount?.kind === 'usd') return { text: pay.tok ? `$${amount.text} of ${out.tok} with ${pay.tok}` : `$${amount.text} of ${out.tok}` };
  if (out.qty) return { text: pay.tok ? `${out.qty.text} ${out.tok} with ${pay.tok}` : `${out.qty.text} ${out.tok}` };
  if (pay.qty && !pay.tok) return { error: turkishQuestion.payWith() };
  if (pay.qty?.kind === 'exact') return { text: `${pay.qty.text} ${pay.tok} of ${out.tok}` };
  if (pay.qty) return { text: `${out.tok} with ${quantity(pay.qty)} of ${pay.tok}` };
  return { text: pay.tok ? `${out.tok} with ${pay.tok}` : out.tok };
}

function quantity(qty: Qty): string {
  if (qty.kind === 'all' || qty.kind === 'half') return qty.kind;
  return qty.kind === 'pct' ? `${qty.text}%` : qty.kind === 'usd' ? `$${qty.text}` : qty.text;
}
