import { extractInterval, extractSlippage } from './command-clauses.js';
import { IDENTIFIER, type Parsed } from './command-values.js';
import { DCA_HELP, mentionsDca, parseDca, parseDcaCreate } from './dca-grammar.js';
import type { Intent, InterpretResult, UnknownInterpretation } from './intent.types.js';
import { parseTrade, type TradeSide } from './trade-grammar.js';
import { interpretTurkish } from './turkish-grammar.js';

/**
 * Natural-language commands → intents. Deterministic (regular grammar, no model): the
 * same message always gives the same intent, so a trading intent can be audited and
 * replayed, and an LLM outage never changes what a command means.
 */

const MAX_MESSAGE_CHARS = 4000;
export const COMMAND_HINT = 'Try "status", "portfolio", "buy 0.5 SOL of BONK", "swap 100 USDC to SOL", "orders" or "help".';

/** Full command forms match with confidence 1; a keyword spotted in a short sentence with less. */
const KEYWORD_CONFIDENCE = 0.6;
const KEYWORD_MAX_WORDS = 8;

const VERBS: Record<string, TradeSide> = {
  buy: 'buy',
  purchase: 'buy',
  ape: 'buy',
  sell: 'sell',
  dump: 'sell',
  liquidate: 'sell',
  swap: 'swap',
  convert: 'swap',
  exchange: 'swap',
  trade: 'swap',
};

const EXACT: Array<{ pattern: RegExp; intent: (m: RegExpExecArray) => Intent }> = [
  {
    pattern: /^(?:help|commands|menu|usage|start|what can you do|how does this work|how do i use (?:this|you))$/i,
    intent: () => ({ intent: 'help', params: {} }),
  },
  {
    pattern: /^help (?:with |on |me with )?(trading|trade|trades|dca)$/i,
    intent: (m) => ({ intent: 'help', params: { topic: m[1]!.toLowerCase() === 'dca' ? 'dca' : 'trading' } }),
  },
  {
    pattern:
      /^(?:status|state|health|ping|(?:agent|bot) status|(?:show |get |check )?(?:the |my |your )?(?:agent'?s? |bot'?s? )?status|what(?:'s| is) (?:the |my |your )?(?:agent'?s? |bot'?s? )?status|are you (?:up|running|alive|there|ok|online|active)|is (?:the |my )?(?:agent|bot) (?:up|running|alive|active|paused|online)|how are you(?: doing)?)$/i,
    intent: () => ({ intent: 'status', params: {} }),
  },
  {
    pattern:
      /^(?:(?:show|get|check|view|display|what(?:'s| is)) )?(?:me )?(?:my |the |your )?(?:portfolio|balances?|holdings|wallets?|net worth|account)(?: summary| value| balance| overview)?$|^(?:how much (?:do i have|is my portfolio worth|am i worth)|what do (?:i|you|we) (?:own|hold|have))$/i,
    intent: () => ({ intent: 'portfolio', params: {} }),
  },
  {
    pattern:
      /^(?:(?:show|list|get|view|check|display) )?(?:me )?(?:my |the |all )?(?:(open|pending|recent) )?orders(?: (pending(?: approval)?|awaiting approval|to approve))?$|^(pending approvals?|what needs (?:my )?approval)$/i,
    intent: (m) => ({ intent: 'orders', params: /pending|approv/i.test(m[0]) ? { status: 'pending_approval' } : {} }),
  },
  {
    pattern:
      /^(?:(?:show|list|get|view|check|display) )?(?:me )?(?:my |the |all )?(?:open )?(?:positions(?: (?:with|and) pnl| pnl)?|pnl|profit and loss)$/i,
    intent: (m) => ({ intent: 'positions', params: { withPnl: /pnl|profit/i.test(m[0]) } }),
  },
];

/** Verbs of actions the interpreter has no command for; a message with one is not read by keyword. */
const ACTION_WORDS = /\b(?:close|exit|cancel|delete|remove|reject|withdraw|transfer|send|liquidate|stop|reset|clear)\b/i;

const KEYWORDS: Array<{ pattern: RegExp; intent: Intent }> = [
  { pattern: /\b(?:portfolio|balances?|holdings)\b/i, intent: { intent: 'portfolio', params: {} } },
  { pattern: /\bstatus\b/i, intent: { intent: 'status', params: {} } },
  { pattern: /\bpositions?\b/i, intent: { intent: 'positions', params: { withPnl: false } } },
  { pattern: /\bhelp\b/i, intent: { intent: 'help', params: {} } },
];

/**
 * Interprets one message on its own (no conversation state). A message the English grammar
 * does not understand is read as Turkish (`turkish-grammar.ts`), which translates it to the
 * English command it means; so a Turkish reading never changes what an English command means.
 */
export function interpret(raw: string): InterpretResult {
  const english = interpretEnglish(raw);
  return english.intent === 'unknown' && raw.length <= MAX_MESSAGE_CHARS
    ? (interpretTurkish(normalize(raw), interpretEnglish) ?? english)
    : english;
}

function interpretEnglish(raw: string): InterpretResult {
  if (raw.length > MAX_MESSAGE_CHARS) return unknown(`That message is too long (at most ${MAX_MESSAGE_CHARS} characters).`);
  // `?` alone asks for help; normalizing would strip it as punctuation.
  if (/^\s*\?+\s*$/.test(raw)) return { intent: 'help', params: {}, confidence: 1 };
  const message = normalize(raw);
  if (!message) return unknown(`Send a command. ${COMMAND_HINT}`);

  for (const { pattern, intent } of EXACT) {
    const match = pattern.exec(message);
    if (match) return { ...intent(match), confidence: 1 };
  }
  // Slippage may stand anywhere, even before the verb (`with 1% slippage swap ...`).
  const slippage = extractSlippage(message);
  const [first = '', ...others] = slippage.rest.split(' ');
  const side = VERBS[first.toLowerCase()];
  if (side) {
    if (slippage.error) return unknown(slippage.error);
    const body = others.join(' ');
    const parsed = side === 'buy' && extractInterval(body).value ? dcaFromBuy(body) : trade(side, body);
    return decide(parsed.ok && slippage.value !== undefined ? withSlippage(parsed.value, slippage.value) : parsed);
  }
  const verb = message.split(' ')[0]!.toLowerCase();
  // `approve dca <name>` approves a strategy (the DCA grammar below), anything else an order.
  if ((verb === 'approve' || verb === 'confirm') && !mentionsDca(message)) return decide(approve(message.slice(verb.length).trim()));
  if (mentionsDca(message)) {
    if (/^dca$/i.test(message)) return { intent: 'help', params: { topic: 'dca' }, confidence: 1 };
    const dca = parseDca(message);
    if (dca) return decide(dca.ok ? dca : { ok: false, error: `${dca.error} ${DCA_HELP}` });
  }
  // A request to act ("close all positions") answered with a read would look as if it was
  // done: such a message is not understood, never answered by a keyword it contains.
  if (message.split(' ').length <= KEYWORD_MAX_WORDS && !ACTION_WORDS.test(message)) {
    const hits = KEYWORDS.filter(({ pattern }) => pattern.test(message));
    if (hits.length === 1) return { ...hits[0]!.intent, confidence: KEYWORD_CONFIDENCE };
  }
  return unknown(`I did not understand "${clip(message)}". ${COMMAND_HINT}`);
}

function trade(side: TradeSide, body: string): Parsed<Intent> {
  const parsed = parseTrade(side, body);
  return parsed.ok ? { ok: true, value: { intent: side, params: parsed.value } } : parsed;
}

function withSlippage(intent: Intent, slippageBps: number): Parsed<Intent> {
  if (intent.intent === 'buy' || intent.intent === 'sell' || intent.intent === 'swap')
    return { ok: true, value: { ...intent, params: { ...intent.params, slippageBps } } };
  if (intent.intent === 'dca_create') return { ok: true, value: { ...intent, params: { ...intent.params, slippageBps } } };
  return { ok: true, value: intent };
}

/** `buy 10 USDC of SOL every day` is a DCA strategy, not one trade. */
function dcaFromBuy(body: string): Parsed<Intent> {
  const parsed = parseDcaCreate(body);
  return parsed.ok
    ? { ok: true, value: { intent: 'dca_create', params: parsed.value } }
    : { ok: false, error: `${parsed.error} ${DCA_HELP}` };
}

function approve(body: string): Parsed<Intent> {
  const match = /^(?:the\s+)?(?:order\s+)?(?:id\s+)?#?(\S+)$/i.exec(body);
  if (!match || !IDENTIFIER.test(match[1]!) || /^order$/i.test(match[1]!)) {
    return { ok: false, error: 'Which order? Write "approve <order_id>"; "orders pending" lists the orders waiting for approval.' };
  }
  return { ok: true, value: { intent: 'approve', params: { orderId: match[1]! } } };
}

function decide(parsed: Parsed<Intent>): InterpretResult {
  return parsed.ok ? { ...parsed.value, confidence: 1 } : unknown(parsed.error);
}

function unknown(reply: string): UnknownInterpretation {
  return { intent: 'unknown', params: {}, confidence: 0, reply };
}

const LEADING_FILLER =
  /^(?:hey|hi|hello|yo|ok|okay|bot|please|pls|plz|kindly|just|now|can you|could you|would you|will you|can i|could i|i want to|i wanna|i would like to|i'd like to|id like to|let's|lets|go ahead and)\b[\s,:!]*/i;
const TRAILING_FILLER = /[\s,]+(?:please|pls|plz|thanks|thank you|thx|now|for me)$/i;

/** Case is kept (mints are case-sensitive); only spacing, arrows, chat-command syntax and politeness go. */
export function normalize(raw: string): string {
  let text = raw
    .replace(/[\u2192\u27A1]|->|=>/g, ' to ')
    .replace(/,\s+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^\/([A-Za-z]+)(?:@\w+)?/, '$1');
  for (let previous = ''; previous !== text; ) {
    previous = text;
    text = text
      .replace(/[.!?]+$/, '')
      .replace(LEADING_FILLER, '')
      .replace(TRAILING_FILLER, '')
      .trim();
  }
  return text;
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
