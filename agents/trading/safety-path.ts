import { AppError, isAppError } from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import {
  NATIVE_SOL_MINT,
  walletChainOf,
  type BreakerReadout,
  type Chain,
  type Quote,
  type TokenInfo,
  type VenuePort,
} from '../../kernel/ports/venue.port.js';
import { formatUsd, fromBaseUnits, fromMicros, percentOf, toBaseUnits, toMicros } from '../../kernel/vocabulary/amounts.js';
import type { StatusReader, SubjectStatus, TradingSubject } from '../portfolio/portfolio.types.js';
import { accountActive, killSwitchOpen, MONEY_MESSAGES } from './money-steps.js';
import type { KillSwitch, TradeChannel, TradingConfig, TradingConfigReader } from '../config/trading-config.types.js';
import { defaultSlippageBps, signingKinds } from '../config/trading-config.rules.js';
import type { TradingEvents } from './trading-events.js';
import { WALLET_MESSAGES, exceedsCap, walletRequired } from '../wallets/wallet.records.js';
import type { WalletDirectory, WalletView } from '../wallets/wallet.types.js';
import type { OrderContext } from '../../machines/order-context.types.js';
import { requireTokenPair } from './token-pairs.js';
import { chosenAgentId } from '../../machines/agent-id.js';

/**
 * The safety path: every trade, whatever surface or schedule it
 * comes from, passes these named checks in this order before an order exists. A check
 * that stops a request throws the trading error and emits `risk.blocked`
 * naming the check; the names of the checks passed are kept on the order (audit).
 */

export const SAFETY_MESSAGES = {
  tradingDisabled: 'Trading bu bot icin kapali.',
  inputMint: 'inputMint must be native SOL or USDC (P3 constraint)',
  slippage: 'Slippage tolerance exceeded',
  balance: 'Insufficient balance for requested swap amount',
  killSwitch: MONEY_MESSAGES.killSwitch,
} as const;

/** USDC on Solana: with native SOL, the only inputs the P3 constraint allows. */
const SOLANA_USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

/** How much to trade, as the request said it. */
export type TradeAmountSpec =
  | { kind: 'base'; value: string }
  | { kind: 'whole'; value: string }
  /** Whole tokens of the output (`buy 1000 BONK with USDC`): the input is sized from prices. */
  | { kind: 'output'; value: string }
  | { kind: 'percent'; value: string }
  | { kind: 'all' }
  | { kind: 'usd'; value: string };

export interface TradeRequest {
  subject: TradingSubject;
  userId?: string;
  channel: TradeChannel;
  chain: Chain;
  side: 'buy' | 'sell' | 'swap';
  /** Symbol or address of what is spent and what is received. */
  inputToken: string;
  outputToken: string;
  amount: TradeAmountSpec;
  slippageBps?: number;
  walletId?: string;
  signalSource?: string;
  /** How the caller named the two tokens, for the refusal of a swap into itself (default `inputMint`, `outputMint`). */
  tokenFields?: readonly [string, string];
  /**
   * The account's status as the request's boundary read it (REST's ownership check, a DCA
   * tick's own check): `trading_enabled` judges it instead of reading the actor again.
   * Absent: the check reads it.
   */
  account?: SubjectStatus;
  /** The account's trading configuration as this request read it already (a command's defaults); absent: the path reads it. */
  config?: TradingConfig;
}

/** The checks of the safety path in the order they run, as orders keep the names of those passed. */
export const SAFETY_CHECKS = [
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
] as const;
export type SafetyCheck = (typeof SAFETY_CHECKS)[number];

/** One check's outcome in a dry run: passed, refused (with the refusal a trade would get), or not run after a refusal. */
export type CheckVerdict<C extends string = SafetyCheck> =
  | { check: C; verdict: 'passed' | 'not_run' }
  | { check: C; verdict: 'refused'; code: string; message: string; retryable: boolean; retryAfter?: number };

/** Runs one named check of the path. */
type Step = <T>(name: SafetyCheck, run: () => Promise<T>) => Promise<T>;

/** A dry run's refusal, carried out of the checks with the name of the check that refused. */
class RefusedCheck extends Error {
  constructor(
    readonly check: SafetyCheck,
    readonly refusal: AppError,
  ) {
    super(refusal.message);
  }
}

/** The verdict of a check that refused: the code, message and retry advice the trade itself would get. */
export function refusedVerdict<C extends string>(check: C, refusal: AppError): CheckVerdict<C> {
  return {
    check,
    verdict: 'refused',
    code: refusal.code,
    message: refusal.message,
    retryable: refusal.retryable,
    ...(refusal.retryAfterSeconds === undefined ? {} : { retryAfter: refusal.retryAfterSeconds }),
  };
}

/** Quotes spent at most to size the input of an exact-output request (`grossUp`). */
const GROSS_UP_ROUNDS = 4;

/** What a `risk.blocked` event says of the trade it stopped. */
type BlockedContext = Pick<TradeRequest, 'subject' | 'channel' | 'chain' | 'inputToken' | 'outputToken'>;

/** What `recheck` reads of an order held for approval. */
export type HeldOrder = Pick<
  OrderContext,
  | 'chain'
  | 'inputMint'
  | 'inputSymbol'
  | 'outputMint'
  | 'outputSymbol'
  | 'channel'
  | 'signalSource'
  | 'slippageBps'
  | 'valueUsd'
  | 'walletAddress'
  | 'amountIn'
>;

/** What the checks established: everything the order is created from. */
export interface CheckedTrade {
  request: TradeRequest;
  config: TradingConfig;
  wallet: WalletView;
  input: TokenInfo;
  output: TokenInfo;
  amountIn: bigint;
  slippageBps: number;
  valueUsd: number;
  inputPriceUsd: number;
  quote: Quote;
  checks: string[];
}

export interface SafetyPathDeps {
  status: Pick<StatusReader, 'agentStatus'>;
  config: TradingConfigReader;
  killSwitch: KillSwitch;
  wallets: WalletDirectory;
  venue: VenuePort;
  /** The circuit breaker of the provider trading a chain; `open` refuses before execution. */
  breakerOf: (chain: Chain) => BreakerReadout;
  events: TradingEvents;
  clock: ClockPort;
}

export class SafetyPath {
  constructor(private readonly deps: SafetyPathDeps) {}

  /** Runs every check in order; throws the first refusal (after emitting `risk.blocked`). */
  async check(request: TradeRequest): Promise<CheckedTrade> {
    const checks: string[] = ['credential_scope']; // the invoker checked credential and scope before the handler ran
    return this.run(request, this.stepper(request, checks), checks);
  }

  /**
   * The same checks as `check`, for a trade nobody places: each check's verdict in order, the
   * first refusal and the checks it left unrun. `credentialRefusal` is the caller's scope
   * refusal for trading, if any (the checks after it still run: the caller learns whether the
   * trade would pass for a credential that may trade). A dry run stops nothing, so it emits
   * no `risk.blocked`.
   */
  async preflight(request: TradeRequest, credentialRefusal?: AppError): Promise<{ verdicts: CheckVerdict[]; checked?: CheckedTrade }> {
    const verdicts: CheckVerdict[] = [
      credentialRefusal ? refusedVerdict('credential_scope', credentialRefusal) : { check: 'credential_scope', verdict: 'passed' },
    ];
    const step = async <T>(name: SafetyCheck, run: () => Promise<T>): Promise<T> => {
      try {
        const value = await run();
        verdicts.push({ check: name, verdict: 'passed' });
        return value;
      } catch (error) {
        if (isAppError(error)) throw new RefusedCheck(error.code === 'CIRCUIT_BREAKER_OPEN' ? 'circuit_breaker' : name, error);
        throw error;
      }
    };
    try {
      const checked = await this.run(request, step, []);
      return { verdicts, checked };
    } catch (error) {
      if (!(error instanceof RefusedCheck)) throw error;
      verdicts.push(refusedVerdict(error.check, error.refusal));
      const seen = new Set(verdicts.map((verdict) => verdict.check));
      const notRun = SAFETY_CHECKS.filter((check) => !seen.has(check)).map((check): CheckVerdict => ({ check, verdict: 'not_run' }));
      const order = (verdict: CheckVerdict) => SAFETY_CHECKS.indexOf(verdict.check);
      return { verdicts: [...verdicts, ...notRun].sort((a, b) => order(a) - order(b)) };
    }
  }

  /** The checks of `check` after the credential's, each through `step`; `checks` are those passed (the order keeps them). */
  private async run(request: TradeRequest, step: Step, checks: string[]): Promise<CheckedTrade> {
    const { deps } = this;
    const config = await step('trading_enabled', () => this.tradingEnabled(request.subject, request.account, request.config));
    await step('kill_switch', () => this.killSwitch(request.chain));
    const wallet = await step('wallet', () => this.wallet(request, config));
    const [input, output] = await step('token', () =>
      requireTokenPair(deps.venue, request.chain, request.inputToken, request.outputToken, request.tokenFields),
    );
    await step('blacklist', async () => blacklist(config, input, output));
    await step('input_mint', async () => inputMint(request.chain, input));
    const balances = await deps.venue.balances(request.chain, wallet.address);
    const held = BigInt(balances[input.address] ?? '0');
    const { amountIn, inputPriceUsd } = await step('amount', () => this.amountIn(request, input, output, held));
    const slippageBps = request.slippageBps ?? defaultSlippageBps(config);
    const valueUsd = Number(fromBaseUnits(amountIn, input.decimals)) * inputPriceUsd;
    await step('risk_policy', async () => riskPolicy(config, request, slippageBps, valueUsd, inputPriceUsd > 0));
    // A delegate wallet's cap as it stands now, so a trade that cannot fit is refused before an
    // order exists; sending the order still takes the spend atomically (`reserveSpend`).
    await step('spending_cap', async () => spendingCap(wallet, valueUsd));
    // Before the quote: an amount over the balance is told so, not that its price impact is too
    // high (raising the slippage could never help it).
    await step('balance', async () => {
      if (held < amountIn) throw new AppError('INSUFFICIENT_BALANCE', SAFETY_MESSAGES.balance);
    });
    const quote = await step('quote_slippage', () => this.quote(request.chain, input, output, amountIn, slippageBps));
    await step('circuit_breaker', async () => this.breaker(request.chain));
    return { request, config, wallet, input, output, amountIn, slippageBps, valueUsd, inputPriceUsd, quote, checks };
  }

  /**
   * The checks that can change while an order waits for approval, re-run before it is sent
   * (an owner who blacklists a token or tightens the policy meanwhile is obeyed); answers
   * the current configuration.
   */
  async recheck(subject: TradingSubject, order: HeldOrder): Promise<TradingConfig> {
    const chain = order.chain as Chain;
    const channel = order.channel as TradeChannel;
    // A refusal here is a refusal like any other: `risk.blocked` says which check held the order.
    const step = this.stepper({ subject, channel, chain, inputToken: order.inputSymbol, outputToken: order.outputSymbol }, []);
    const config = await step('trading_enabled', () => this.tradingEnabled(subject));
    await step('kill_switch', () => this.killSwitch(chain));
    await step('blacklist', async () =>
      blacklist(
        config,
        { chain, address: order.inputMint, symbol: order.inputSymbol },
        { chain, address: order.outputMint, symbol: order.outputSymbol },
      ),
    );
    await step('risk_policy', async () =>
      riskPolicy(
        config,
        { inputToken: order.inputSymbol, channel, ...(order.signalSource ? { signalSource: order.signalSource } : {}) },
        order.slippageBps,
        order.valueUsd,
        order.valueUsd > 0,
      ),
    );
    await step('balance', async () => {
      const balances = await this.deps.venue.balances(chain, order.walletAddress);
      if (BigInt(balances[order.inputMint] ?? '0') < BigInt(order.amountIn))
        throw new AppError('INSUFFICIENT_BALANCE', SAFETY_MESSAGES.balance);
    });
    await step('circuit_breaker', async () => this.breaker(chain));
    return config;
  }

  /** Runs one named check: records it as passed, or emits `risk.blocked` and rethrows its refusal. */
  private stepper(blockedFor: BlockedContext, passed: string[]): Step {
    return async <T>(name: SafetyCheck, run: () => Promise<T>): Promise<T> => {
      try {
        const value = await run();
        passed.push(name);
        return value;
      } catch (error) {
        this.blocked(blockedFor, isAppError(error) && error.code === 'CIRCUIT_BREAKER_OPEN' ? 'circuit_breaker' : name, error);
        throw error;
      }
    };
  }

  /** Kill switch and breaker of a chain: what must still hold when a stored order is finally sent. */
  async assertChainOpen(chain: Chain): Promise<void> {
    await this.killSwitch(chain);
    this.breaker(chain);
  }

  /** `held`, `config`: what the request read already (this request's, never an earlier one's). */
  private async tradingEnabled(subject: TradingSubject, held?: SubjectStatus, config?: TradingConfig): Promise<TradingConfig> {
    const status = held ?? (await this.deps.status.agentStatus(subject));
    if (!status.tradingEnabled || !accountActive(status)) throw tradingDisabled(subject, status.status === 'paused');
    return config ?? this.deps.config.get(subject);
  }

  private killSwitch(chain: Chain): Promise<void> {
    // A trade refused here is not placed: retrying it as it is would meet the same switch.
    return killSwitchOpen(this.deps.killSwitch, chain, { retryable: false });
  }

  private async wallet(request: TradeRequest, config: TradingConfig): Promise<WalletView> {
    const wallet = await this.deps.wallets.signingWallet(
      request.subject,
      walletChainOf(request.chain),
      request.walletId,
      signingKinds(config.walletMode),
    );
    if (!wallet) throw walletRequired(walletChainOf(request.chain));
    return wallet;
  }

  private async amountIn(
    request: TradeRequest,
    input: TokenInfo,
    output: TokenInfo,
    held: bigint,
  ): Promise<{ amountIn: bigint; inputPriceUsd: number }> {
    const price = async (token: TokenInfo) => (await this.deps.venue.priceUsd(token.chain, token.address)) ?? 0;
    const inputPriceUsd = await price(input);
    const spec = request.amount;
    let amountIn: bigint;
    if (spec.kind === 'base') amountIn = BigInt(spec.value);
    else if (spec.kind === 'whole') amountIn = toBaseUnits(spec.value, input.decimals);
    else if (spec.kind === 'all') amountIn = held;
    else if (spec.kind === 'percent') amountIn = percentOf(held, spec.value);
    else {
      const usd = spec.kind === 'usd' ? Number(spec.value) : Number(spec.value) * (await price(output));
      if (!(inputPriceUsd > 0) || !(usd > 0))
        throw AppError.validation([`No USD price for ${input.symbol}: give the amount in ${input.symbol}`]);
      const whole = usd / inputPriceUsd;
      // Beyond 1e21 `toFixed` switches to exponent notation: no real order is that large.
      if (!Number.isFinite(whole) || whole >= 1e21) throw AppError.validation(['amount is too large']);
      amountIn = toBaseUnits(whole.toFixed(input.decimals), input.decimals);
      if (spec.kind === 'output' && amountIn > 0n)
        amountIn = await this.grossUp(input, output, amountIn, toBaseUnits(spec.value, output.decimals));
    }
    if (amountIn <= 0n) {
      // Nothing held is a balance problem; a share of a balance smaller than one base unit is an amount problem.
      if ((spec.kind === 'all' || spec.kind === 'percent') && held === 0n)
        throw new AppError('INSUFFICIENT_BALANCE', SAFETY_MESSAGES.balance);
      throw AppError.validation(['amount must be greater than 0']);
    }
    return { amountIn, inputPriceUsd };
  }

  /**
   * The input that buys at least `wanted` of the output (`buy 1000 BONK with USDC`): the
   * estimate at mid prices leaves out the fee and the price impact, so the order would
   * deliver less than asked. Grown from quotes, a few rounds (impact grows with the size).
   */
  private async grossUp(input: TokenInfo, output: TokenInfo, estimate: bigint, wanted: bigint): Promise<bigint> {
    let amountIn = estimate;
    for (let round = 0; round < GROSS_UP_ROUNDS; round++) {
      const quote = await this.deps.venue.quote({
        chain: input.chain,
        inputMint: input.address,
        outputMint: output.address,
        amountIn: amountIn.toString(),
        slippageBps: 0,
      });
      const out = BigInt(quote.expectedOut);
      if (out >= wanted) return amountIn;
      amountIn = out > 0n ? (amountIn * wanted) / out + 1n : amountIn * 2n;
    }
    return amountIn;
  }

  private async quote(chain: Chain, input: TokenInfo, output: TokenInfo, amountIn: bigint, slippageBps: number): Promise<Quote> {
    const quote = await this.deps.venue.quote({
      chain,
      inputMint: input.address,
      outputMint: output.address,
      amountIn: amountIn.toString(),
      slippageBps,
    });
    // Price impact beyond the tolerance means the fill would land below what the caller accepts.
    if (quote.priceImpactBps > slippageBps)
      throw new AppError('SLIPPAGE_EXCEEDED', SAFETY_MESSAGES.slippage, { details: { priceImpactBps: quote.priceImpactBps, slippageBps } });
    return quote;
  }

  private breaker(chain: Chain): void {
    const { provider, state } = this.deps.breakerOf(chain);
    if (state === 'open') throw AppError.circuitBreakerOpen(provider, 60);
  }

  private blocked(request: BlockedContext, check: string, error: unknown): void {
    this.deps.events.publish(request.subject, 'risk.blocked', {
      check,
      code: isAppError(error) ? error.code : 'INTERNAL_SERVICE_ERROR',
      message: error instanceof Error ? error.message : String(error),
      channel: request.channel,
      chain: request.chain,
      inputToken: request.inputToken,
      outputToken: request.outputToken,
    });
  }
}

/**
 * The interface's soft refusal `Trading bu bot icin kapali.` (an answer, not a failure: the canonical envelope),
 * word for word, with the next step in English: a new agent starts with trading off, and an
 * onboarded agent's credentials cannot switch it on (its owner does, as an operator).
 */
export function tradingDisabled(subject: TradingSubject, paused: boolean): AppError {
  return new AppError('TRADING_DISABLED', SAFETY_MESSAGES.tradingDisabled, {
    envelope: 'canonical',
    kind: 'declined',
    retryable: false,
    hint: tradingDisabledHint(subject, paused),
  });
}

function tradingDisabledHint(subject: TradingSubject, paused: boolean): string {
  if (subject.type === 'bot')
    return `Trading is off for this bot: its owner switches it on with PATCH /api/nest/bots/${subject.id} {"tradingEnabled":true}.`;
  // Routes name an agent by the id its owner knows, not by the actor id.
  const agentId = encodeURIComponent(chosenAgentId(subject.id));
  if (paused) return `This agent is paused: its owner resumes it with POST /api/nest/agents/${agentId}/resume.`;
  return (
    `Trading is off for this agent (every agent starts with it off). Its owner switches it on: sign in with the owner wallet, ` +
    `claim the agent if it was onboarded (POST /api/nest/agents/${agentId}/control/claim), then PUT /api/nest/agents/${agentId}/trading {"enabled":true}. ` +
    "Then fund a wallet: MCP tool trading_wallet_custodial_ensure, and a deposit or, on the paper venue, the owner's POST /api/nest/trading/paper/faucet/:userId."
  );
}

function spendingCap(wallet: WalletView, valueUsd: number): void {
  if (wallet.kind !== 'delegate') return;
  if (exceedsCap(wallet, valueUsd)) throw new AppError('RISK_LIMIT_EXCEEDED', WALLET_MESSAGES.capExceeded(wallet.walletId));
}

function blacklist(config: TradingConfig, ...tokens: Array<Pick<TokenInfo, 'chain' | 'address' | 'symbol'>>): void {
  for (const token of tokens) {
    const listed = config.blacklist.some(
      (entry) => entry.chain === token.chain && entry.address.toLowerCase() === token.address.toLowerCase(),
    );
    if (listed) throw new AppError('TOKEN_BLACKLISTED', `Token is blacklisted: ${token.symbol} (${token.address})`);
  }
}

/** The spendable-token constraint: on Solana only native SOL or USDC may be spent. */
export function spendableOn(chain: Chain, input: Pick<TokenInfo, 'address'>): boolean {
  return chain !== 'solana' || input.address === NATIVE_SOL_MINT || input.address === SOLANA_USDC_MINT;
}

/** Refuses an input the P3 constraint does not allow. */
export function inputMint(chain: Chain, input: TokenInfo): void {
  if (!spendableOn(chain, input)) throw new AppError('INPUT_MINT_NOT_ALLOWED', SAFETY_MESSAGES.inputMint);
}

function riskPolicy(
  config: TradingConfig,
  request: Pick<TradeRequest, 'inputToken' | 'channel' | 'signalSource'>,
  slippageBps: number,
  valueUsd: number,
  priced: boolean,
): void {
  const policy = config.riskPolicy;
  const refuse = (message: string) => new AppError('RISK_LIMIT_EXCEEDED', message);
  // Without a price the USD limits cannot be checked: refuse rather than count the order as $0.
  if (!priced && (policy.maxOrderUsd !== undefined || policy.dailyVolumeUsd !== undefined)) {
    throw refuse(`No USD price for ${request.inputToken}: the risk policy's USD limits cannot be checked`);
  }
  if (policy.allowedChannels && !policy.allowedChannels.includes(request.channel))
    throw refuse(`Trading through ${request.channel} is not allowed by the risk policy`);
  if (policy.allowedSignalSources && (!request.signalSource || !policy.allowedSignalSources.includes(request.signalSource))) {
    throw refuse(`Signal source ${request.signalSource ?? '(none)'} is not allowed by the risk policy`);
  }
  if (slippageBps > policy.maxSlippageBps)
    throw refuse(`slippageBps ${slippageBps} exceeds the risk policy maximum of ${policy.maxSlippageBps}`);
  if (policy.maxOrderUsd !== undefined && toMicros(valueUsd) > toMicros(policy.maxOrderUsd)) {
    throw refuse(
      `Order value $${shownOver(valueUsd, policy.maxOrderUsd)} exceeds the maximum order size of $${formatUsd(policy.maxOrderUsd)} (risk policy)`,
    );
  }
}

/** A value beside a limit it exceeds: in cents, or with the decimals (up to 6) it takes to tell them apart. */
function shownOver(value: number, limit: number): string {
  const cents = formatUsd(value);
  return cents !== formatUsd(limit) ? cents : fromMicros(toMicros(value)).toFixed(6).replace(/0+$/, '');
}
