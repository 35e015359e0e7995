/**
 * What the command interpreter makes of a message. Plain data: the trading pipeline
 * executes trading intents, `ask_bot` answers the rest, both from these shapes.
 */

/** A token as the user named it: a symbol (upper-cased) or an address (case kept: base58 is case-sensitive). */
export type TokenRef = { kind: 'symbol'; symbol: string } | { kind: 'address'; address: string; chain: 'solana' | 'evm' };

/**
 * How much to trade. Decimal strings, normalized (`1,000.50` → `1000.5`, `1.5k` → `1500`),
 * in whole tokens: converting to base units needs the token's decimals, which the
 * trading pipeline knows and the interpreter does not.
 */
export type TradeAmount =
  /** `of` says which side the number counts: `buy 0.5 SOL of BONK` (input) vs `buy 1000 BONK with USDC` (output). */
  | { kind: 'exact'; value: string; of: 'input' | 'output' }
  /** Of the input token's balance: `sell 50% of JUP`, `sell half my JUP`. */
  | { kind: 'percent'; value: string }
  /** The whole input balance: `sell all JUP`. */
  | { kind: 'all' }
  /** Worth this many US dollars of the input token: `buy $50 of BONK with SOL`. */
  | { kind: 'usd'; value: string };

/**
 * What a trade receives: a token, or `quote` when a sell names none (`sell all WIF`): the
 * account's quote token (trade defaults), as trading bots sell into their base currency.
 */
export type TradeOutput = TokenRef | { kind: 'quote' };

export interface TradeParams {
  amount: TradeAmount;
  inputToken: TokenRef;
  outputToken: TradeOutput;
  /** Integer basis points, 1..5000; absent = the agent's configured default. */
  slippageBps?: number;
}

/** `every <n> <minutes|hours|days>`, the API's interval form. */
export interface DcaInterval {
  every: number;
  unit: 'minutes' | 'hours' | 'days';
}

export interface DcaCreateParams {
  amount: string;
  inputToken: TokenRef;
  outputToken: TokenRef;
  interval: DcaInterval;
  /** Interval in the API's text form, e.g. `every 4 hours`. */
  intervalText: string;
  name?: string;
  maxBuys?: number;
  slippageBps?: number;
}

export type Intent =
  | { intent: 'status'; params: Record<string, never> }
  | { intent: 'portfolio'; params: Record<string, never> }
  | { intent: 'help'; params: { topic?: 'trading' | 'dca' } }
  | { intent: 'buy' | 'sell' | 'swap'; params: TradeParams }
  | { intent: 'approve'; params: { orderId: string } }
  | { intent: 'orders'; params: { status?: 'pending_approval' } }
  | { intent: 'positions'; params: { withPnl: boolean } }
  | { intent: 'dca_create'; params: DcaCreateParams }
  | { intent: 'dca_pause' | 'dca_resume' | 'dca_approve'; params: { name?: string } }
  | { intent: 'dca_stats'; params: { name?: string } };

/** A recognised command; `confidence` is 0..1 (1 = a full command form matched). */
export type Interpretation = Intent & { confidence: number };

/** Nothing executable was recognised; `reply` says what was wrong or what to type. */
export interface UnknownInterpretation {
  intent: 'unknown';
  params: Record<string, never>;
  confidence: 0;
  reply: string;
}

export type InterpretResult = Interpretation | UnknownInterpretation;
