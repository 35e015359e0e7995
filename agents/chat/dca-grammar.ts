import { extractInterval, extractMaxBuys, extractName, extractSlippage, intervalText } from './command-clauses.js';
import { IDENTIFIER, parseAmount, parseTokenPair, type Parsed } from './command-values.js';
import type { DcaCreateParams, Intent } from './intent.types.js';

/**
 * DCA commands: `dca create|pause|resume|stats` and their natural forms
 * (`dca 10 USDC into SOL every day`, `pause my dca`, `show dca stats`).
 */

const DCA_EXAMPLE = '"dca 10 USDC into SOL every day" or "dca buy SOL with 25 USDC every 4 hours for 30 buys"';
const NAME = String.raw`(?:\s+["']?([A-Za-z0-9][A-Za-z0-9_.:-]{0,127})["']?)?`;
const STRATEGY = String.raw`(?:\s+strateg(?:y|ies))?`;
const CONTROL: Array<{ pattern: RegExp; intent: 'dca_pause' | 'dca_resume' | 'dca_approve' | 'dca_stats' }> = [
  { pattern: new RegExp(`^dca\\s+(?:pause|stop)${NAME}$`, 'i'), intent: 'dca_pause' },
  { pattern: new RegExp(`^(?:pause|stop|halt)\\s+(?:my\\s+|the\\s+|all\\s+)?dca${STRATEGY}${NAME}$`, 'i'), intent: 'dca_pause' },
  { pattern: new RegExp(`^dca\\s+(?:resume|start|unpause|continue)${NAME}$`, 'i'), intent: 'dca_resume' },
  {
    pattern: new RegExp(`^(?:resume|unpause|restart|continue)\\s+(?:my\\s+|the\\s+|all\\s+)?dca${STRATEGY}${NAME}$`, 'i'),
    intent: 'dca_resume',
  },
  { pattern: new RegExp(`^dca\\s+(?:approve|confirm)${NAME}$`, 'i'), intent: 'dca_approve' },
  { pattern: new RegExp(`^(?:approve|confirm)\\s+(?:my\\s+|the\\s+)?dca${STRATEGY}${NAME}$`, 'i'), intent: 'dca_approve' },
  { pattern: new RegExp(`^dca\\s+(?:stats|statistics|performance|status)${NAME}$`, 'i'), intent: 'dca_stats' },
  {
    pattern: new RegExp(`^(?:show\\s+|get\\s+)?(?:my\\s+|the\\s+)?dca${STRATEGY}\\s+(?:stats|statistics|performance|status)${NAME}$`, 'i'),
    intent: 'dca_stats',
  },
];
const CREATE_PREFIX =
  /^(?:dca\s+(?:create|new|add|start\s+a|setup|set\s+up)\b|(?:create|start|set\s+up|setup|add|new)\s+(?:a\s+)?dca\b(?:\s+strategy)?(?:\s+to)?|dca\b)\s*/i;

/** True when the message is about DCA at all (so an unreadable one gets DCA help). */
export function mentionsDca(message: string): boolean {
  return /\bdca\b/i.test(message);
}

/** A DCA intent, an error saying what is wrong, or undefined when the message is not a DCA command. */
export function parseDca(message: string): Parsed<Intent> | undefined {
  for (const { pattern, intent } of CONTROL) {
    const match = pattern.exec(message);
    if (match) return { ok: true, value: { intent, params: match[1] ? { name: match[1] } : {} } };
  }
  const prefix = CREATE_PREFIX.exec(message);
  if (!prefix) return undefined;
  const created = parseDcaCreate(message.slice(prefix[0].length));
  return created.ok ? { ok: true, value: { intent: 'dca_create', params: created.value } } : created;
}

/** The body of a create command; also used for `buy ... every day`. */
export function parseDcaCreate(body: string): Parsed<DcaCreateParams> {
  const slippage = extractSlippage(body);
  const interval = extractInterval(slippage.rest);
  const name = extractName(interval.rest);
  const maxBuys = extractMaxBuys(name.rest);
  const error = slippage.error ?? interval.error ?? maxBuys.error;
  if (error) return { ok: false, error };
  if (!interval.value)
    return { ok: false, error: `How often? Add an interval such as "every 4 hours" or "daily". For example: ${DCA_EXAMPLE}.` };
  if (name.value !== undefined && !IDENTIFIER.test(name.value)) return { ok: false, error: 'A strategy name is letters, digits, _ . : -.' };

  const core = maxBuys.rest.replace(/^buy\s+/i, '');
  // `10 USDC into SOL` (amount of the input token) or `SOL with 10 USDC`.
  const spend = /^(\.?\d[\d.,]*[kmb]?)\s+(\S+)\s+(?:to|into|for|of|->)\s+(\S+)$/i.exec(core);
  const buy = /^(\S+)\s+(?:with|using|for)\s+(\.?\d[\d.,]*[kmb]?)\s+(\S+)$/i.exec(core);
  if (!spend && !buy) return { ok: false, error: `Name the amount, the token to spend and the token to buy. For example: ${DCA_EXAMPLE}.` };
  const [amountText, inputWord, outputWord] = spend ? [spend[1]!, spend[2]!, spend[3]!] : [buy![2]!, buy![3]!, buy![1]!];

  const amount = parseAmount(amountText);
  if (!amount.ok) return amount;
  const pair = parseTokenPair(inputWord, outputWord);
  if (!pair.ok) return pair;
  const { inputToken, outputToken } = pair.value;
  return {
    ok: true,
    value: {
      amount: amount.value,
      inputToken,
      outputToken,
      interval: interval.value,
      intervalText: intervalText(interval.value),
      ...(name.value !== undefined ? { name: name.value } : {}),
      ...(maxBuys.value !== undefined ? { maxBuys: maxBuys.value } : {}),
      ...(slippage.value !== undefined ? { slippageBps: slippage.value } : {}),
    },
  };
}

export const DCA_HELP = `DCA commands: ${DCA_EXAMPLE}; "dca pause", "dca resume", "dca approve <name>", "dca stats".`;
