import { AppError, isAppError } from '../../kernel/errors/app-error.js';
import type { Chain } from '../../kernel/ports/venue.port.js';
import { EVM_CHAINS } from '../../kernel/vocabulary/chains.js';
import { fromBaseUnits } from '../../kernel/vocabulary/amounts.js';
import type { Intent, InterpretResult, TokenRef, TradeParams } from './intent.types.js';
import type { OrderQueries } from '../trading/order-queries.js';
import type { OrderView } from '../trading/order.types.js';
import type { PlaceOptions } from '../trading/trading-pipeline.js';
import type { KeyScope } from '../../kernel/vocabulary/scopes.js';
import type { StatusReader, SubjectStatus, TradingSubject } from '../portfolio/portfolio.types.js';
import { valuePositions, type PriceLookup } from '../portfolio/position-valuation.js';
import type { PositionsService } from '../portfolio/positions.service.js';
import { helpReply, portfolioReply, statusReply } from './reply-templates.js';
import type { TradeAmountSpec, TradeRequest } from '../trading/safety-path.js';
import { quoteTokensOn } from '../config/trading-config.rules.js';
import type { TradeChannel, TradingConfigReader } from '../config/trading-config.types.js';
import type { TradingPipeline } from '../trading/trading-pipeline.js';

/**
 * `POST /api/nest/trading/command`: a natural-language command executed, not just
 * described. Trading intents become orders through the same pipeline and safety path as
 * every other surface; questions are answered from stored data; what is not understood
 * is said plainly.
 */

const ENGINE_UNAVAILABLE = 'Trading servisi su anda kullanilamiyor.';
const UNREACHABLE: ReadonlySet<string> = new Set(['PROVIDER_UNAVAILABLE', 'DEPENDENCY_UNAVAILABLE', 'TRADING_UNAVAILABLE']);

export interface CommandResult {
  success: true;
  reply: string;
  intent: string;
  order?: OrderView;
}

/** DCA commands, executed by the strategies service. */
export interface DcaCommands {
  execute(
    subject: TradingSubject,
    intent: Extract<Intent, { intent: 'dca_create' | 'dca_pause' | 'dca_resume' | 'dca_approve' | 'dca_stats' }>,
    caller: { userId?: string; scope?: KeyScope },
  ): Promise<string>;
}

export interface TradingCommandDeps {
  pipeline: TradingPipeline;
  queries: OrderQueries;
  positions: PositionsService;
  status: StatusReader;
  config: TradingConfigReader;
  price: PriceLookup;
  dca: DcaCommands;
}

/**
 * Who asks, through which channel its trades go (the risk policy's `allowedChannels`: the
 * REST command route is `command`, the MCP tool `mcp`, so MCP cannot trade past a policy
 * that shuts MCP out), and the order a guarded call places (`keyedOrder`).
 */
export type CommandOptions = {
  userId?: string;
  channel?: TradeChannel;
  scope?: KeyScope;
  signalSource?: string;
  /** The account's status as the call's boundary read it (this request's): the safety path does not read it again. */
  account?: SubjectStatus;
} & Pick<PlaceOptions, 'orderId' | 'requestDigest'>;

export class TradingCommand {
  constructor(private readonly deps: TradingCommandDeps) {}

  /** Executes a command its caller interpreted once (`interpret`), the same reading it checked the command against. */
  async execute(subject: TradingSubject, result: InterpretResult, options: CommandOptions = {}): Promise<CommandResult> {
    if (result.intent === 'unknown') return { success: true, reply: result.reply, intent: 'unknown' };
    try {
      return await this.run(subject, result, options);
    } catch (error) {
      // On this route an unreachable engine is a soft error (the trading errors), not unavailable. The kill
      // switch and an open breaker are deliberate refusals with their own messages.
      if (isAppError(error) && UNREACHABLE.has(error.code)) {
        throw new AppError('TRADING_UNAVAILABLE', ENGINE_UNAVAILABLE, {
          envelope: 'canonical',
          kind: 'declined',
          retryable: true,
          details: { cause: error.message },
        });
      }
      throw error;
    }
  }

  private async run(subject: TradingSubject, intent: Intent, options: CommandOptions): Promise<CommandResult> {
    const done = (reply: string, order?: OrderView): CommandResult => ({
      success: true,
      reply,
      intent: intent.intent,
      ...(order ? { order } : {}),
    });
    switch (intent.intent) {
      case 'help':
        return done(helpReply(intent.params.topic));
      case 'status':
        return done(statusReply(await this.deps.status.agentStatus(subject)));
      case 'portfolio':
        return done(portfolioReply(await this.deps.status.portfolio(subject)));
      case 'buy':
      case 'sell':
      case 'swap': {
        const request = await this.tradeRequest(subject, intent.intent, intent.params, options);
        if (typeof request === 'string') return done(request);
        const order = await this.deps.pipeline.place(request, {
          ...(options.orderId ? { orderId: options.orderId } : {}),
          ...(options.requestDigest ? { requestDigest: options.requestDigest } : {}),
        });
        return done(orderReply(order), order);
      }
      case 'approve': {
        const order = await this.deps.pipeline.approve(subject, intent.params.orderId, options.scope);
        return done(orderReply(order), order);
      }
      case 'orders': {
        const page = await this.deps.queries.list(subject, {
          limit: 10,
          ...(intent.params.status ? { status: intent.params.status } : {}),
        });
        if (page.items.length === 0) return done(intent.params.status ? 'No orders are waiting for approval.' : 'No orders yet.');
        return done(
          page.items
            .map((order) => `${order.order_id}: ${order.side} ${order.inputSymbol} → ${order.outputSymbol}, ${order.status}`)
            .join('\n'),
        );
      }
      case 'positions': {
        const records = (await this.deps.positions.list(subject)).filter((record) => intent.params.withPnl || record.amountBase !== '0');
        if (records.length === 0) return done('No positions yet.');
        const { positions, totals } = await valuePositions(records, this.deps.price);
        const lines = positions.map((p) =>
          intent.params.withPnl
            ? `${p.symbol}: ${p.amount} (value $${p.valueUsd ?? '?'}, unrealized $${p.unrealizedPnlUsd ?? '?'}, realized $${p.realizedPnlUsd})`
            : `${p.symbol}: ${p.amount} (value $${p.valueUsd ?? '?'})`,
        );
        return done([...lines, `Total value $${totals.valueUsd}`].join('\n'));
      }
      default:
        return done(
          await this.deps.dca.execute(subject, intent, {
            ...(options.userId ? { userId: options.userId } : {}),
            ...(options.scope ? { scope: options.scope } : {}),
          }),
        );
    }
  }

  /** The order a trading intent asks for, or why it cannot be placed (a reply). */
  private async tradeRequest(
    subject: TradingSubject,
    side: 'buy' | 'sell' | 'swap',
    params: TradeParams,
    { userId, channel = 'command', signalSource, account }: CommandOptions,
  ): Promise<TradeRequest | string> {
    const config = await this.deps.config.get(subject);
    const defaults = config.tradeDefaults;
    const { inputToken, outputToken: output } = params;
    const chain = chainFor(defaults.chain, inputToken, ...(output.kind === 'quote' ? [] : [output]));
    const outputToken = output.kind === 'quote' ? quoteTokenOf(chain, defaults.quoteToken) : tokenText(output);
    if (output.kind === 'quote' && inputToken.kind === 'symbol' && inputToken.symbol === outputToken) {
      return `${outputToken} is your quote token, so there is nothing to sell it for. Name the token to receive, e.g. "sell all ${outputToken} for USDC".`;
    }
    return {
      subject,
      ...(userId ? { userId } : {}),
      ...(account ? { account } : {}),
      // Read above for this request: the safety path judges the trade by the same configuration.
      config,
      channel,
      ...(signalSource ? { signalSource } : {}),
      chain,
      side,
      inputToken: tokenText(inputToken),
      outputToken,
      amount: amountSpec(params),
      ...(params.slippageBps ? { slippageBps: params.slippageBps } : {}),
    };
  }
}

function tokenText(token: TokenRef): string {
  return token.kind === 'symbol' ? token.symbol : token.address;
}

/** The configured quote token when it trades on `chain`, else that chain family's first one. */
function quoteTokenOf(chain: Chain, configured: string): string {
  const quotes = quoteTokensOn(chain);
  return quotes.includes(configured) ? configured : quotes[0]!;
}

/** An EVM address in a command trades on an EVM chain: the default one if it is EVM, else Ethereum. */
function chainFor(defaultChain: Chain, ...tokens: TokenRef[]): Chain {
  const evm = tokens.some((token) => token.kind === 'address' && token.chain === 'evm');
  if (evm) return defaultChain === 'solana' ? EVM_CHAINS[0] : defaultChain;
  const solana = tokens.some((token) => token.kind === 'address' && token.chain === 'solana');
  return solana ? 'solana' : defaultChain;
}

function amountSpec(params: TradeParams): TradeAmountSpec {
  const amount = params.amount;
  if (amount.kind === 'exact')
    return amount.of === 'input' ? { kind: 'whole', value: amount.value } : { kind: 'output', value: amount.value };
  if (amount.kind === 'percent') return { kind: 'percent', value: amount.value };
  if (amount.kind === 'usd') return { kind: 'usd', value: amount.value };
  return { kind: 'all' };
}

/** What happened to the order, with the amounts it trades: a percentage or a dollar amount becomes tokens only here. */
function orderReply(order: OrderView): string {
  const spent = `${fromBaseUnits(order.amountIn, order.inputDecimals)} ${order.inputSymbol}`;
  const what = `${order.side} ${spent} → ${order.outputSymbol}`;
  switch (order.status) {
    case 'filled':
      return `Done: ${order.side} ${spent} → ${fromBaseUnits(order.filledOut ?? order.expectedOut, order.outputDecimals)} ${order.outputSymbol} filled (order ${order.order_id}).`;
    case 'pending_approval':
      return `Order ${order.order_id} (${what}, $${order.valueUsd}) needs approval: reply "approve ${order.order_id}" within 15 minutes.`;
    case 'submitted':
    case 'submitting':
      return `Order ${order.order_id} (${what}) was sent and is waiting for confirmation.`;
    default:
      return `Order ${order.order_id} (${what}) is ${order.status}${order.reason ? `: ${order.reason}` : ''}.`;
  }
}
