import { tokenLabel } from './command-values.js';
import { COMMAND_HINT } from './command-interpreter.js';
import { DCA_HELP } from './dca-grammar.js';
import type { DcaCreateParams, Intent, TradeParams } from './intent.types.js';
import type { PortfolioSummary, SubjectStatus } from '../portfolio/portfolio.types.js';

/**
 * The templated replies of `ask_bot`: complete, correct answers built only from the
 * interpreted intent and data that was read. An LLM may rephrase them; when it cannot,
 * they are the answer.
 */

const MAX_LISTED = 10;
const NOT_EXECUTED = 'Nothing was executed: chat only reads. Execute it through the trading tools';

export function helpReply(topic?: 'trading' | 'dca'): string {
  if (topic === 'dca') return DCA_HELP;
  const trading =
    'Trading commands: "buy 0.5 SOL of BONK", "buy 1000 BONK with USDC", "sell 20 JUP for USDC with 1% slippage", ' +
    '"swap 100 USDC to SOL", "sell all JUP for SOL", "approve <order_id>", "orders", "positions".';
  if (topic === 'trading') return trading;
  return `I answer "status" and "portfolio" from the agent's live data and read trading commands. ${trading} ${DCA_HELP}`;
}

export function statusReply(status: SubjectStatus): string {
  return `${status.name} (${status.subjectType} ${status.subjectId}) is ${status.status}; trading is ${status.tradingEnabled ? 'enabled' : 'disabled'}.`;
}

export function portfolioReply(summary: PortfolioSummary): string {
  const lines = [
    `Portfolio of ${summary.name} as of ${summary.asOf}: ${count(summary.wallets.length, 'wallet')}, ${count(summary.positions.length, 'position')}, ` +
      `${count(summary.openOrders, 'open order')}, value $${summary.valueUsd}.`,
  ];
  for (const wallet of summary.wallets.slice(0, MAX_LISTED)) {
    lines.push(`- wallet ${wallet.chain} ${wallet.address}${wallet.custodial ? ' (custodial)' : ''}`);
  }
  lines.push(...positionLines(summary));
  if (summary.wallets.length === 0) lines.push('No wallet yet: trading_wallet_custodial_ensure creates a custodial one.');
  return lines.join('\n');
}

export function positionsReply(summary: PortfolioSummary, withPnl: boolean): string {
  if (summary.positions.length === 0) return `${summary.name} has no open positions.`;
  const lines = [
    `${summary.name} holds ${count(summary.positions.length, 'position')} worth $${summary.valueUsd}:`,
    ...positionLines(summary),
  ];
  if (withPnl) lines.push('PnL figures come from the trading tools (positions with PnL).');
  return lines.join('\n');
}

export function ordersReply(summary: PortfolioSummary, intent: Extract<Intent, { intent: 'orders' }>): string {
  const which = intent.params.status === 'pending_approval' ? 'Orders waiting for approval are among them. ' : '';
  return `${summary.name} has ${count(summary.openOrders, 'open order')}. ${which}The trading tools list them and "approve <order_id>" names one to approve.`;
}

/** What a trading command means, and where it is executed; never that it was. */
export function tradingIntentReply(intent: Intent, status: SubjectStatus): string {
  const disabled = status.tradingEnabled ? '' : ` Note: trading is disabled for ${status.name}.`;
  switch (intent.intent) {
    case 'buy':
    case 'sell':
    case 'swap':
      return `Understood: ${describeTrade(intent.intent, intent.params)}. ${NOT_EXECUTED} (trading_solana_aggregator_swap, or POST /api/nest/trading/command).${disabled}`;
    case 'approve':
      return `Understood: approve order ${intent.params.orderId}. ${NOT_EXECUTED}: trading_orders_approve with order_id ${intent.params.orderId}.${disabled}`;
    case 'dca_create':
      return `Understood: DCA ${describeDca(intent.params)}. ${NOT_EXECUTED} (the DCA strategy routes).${disabled}`;
    case 'dca_pause':
    case 'dca_resume':
    case 'dca_approve':
    case 'dca_stats': {
      const action = { dca_pause: 'pause', dca_resume: 'resume', dca_approve: 'approve', dca_stats: 'show statistics of' }[intent.intent];
      return `Understood: ${action} DCA${intent.params.name ? ` strategy ${intent.params.name}` : ''}. ${NOT_EXECUTED} (the DCA routes).${disabled}`;
    }
    default:
      return COMMAND_HINT;
  }
}

/** `buy: 0.5 SOL → BONK, slippage 1% (100 bps)`; the side of the exact amount is explicit. */
function describeTrade(side: 'buy' | 'sell' | 'swap', params: TradeParams): string {
  const input = tokenLabel(params.inputToken);
  const output = params.outputToken.kind === 'quote' ? 'your quote token' : tokenLabel(params.outputToken);
  const amount = params.amount;
  const paid =
    amount.kind === 'all'
      ? `the whole ${input} balance`
      : amount.kind === 'percent'
        ? `${amount.value}% of the ${input} balance`
        : amount.kind === 'usd'
          ? `$${amount.value} worth of ${input}`
          : amount.of === 'input'
            ? `${amount.value} ${input}`
            : input;
  const received = amount.kind === 'exact' && amount.of === 'output' ? `${amount.value} ${output}` : output;
  return `${side} ${paid} → ${received}, ${slippageText(params.slippageBps)}`;
}

function describeDca(params: DcaCreateParams): string {
  const extras = [
    params.maxBuys ? `up to ${params.maxBuys} buys` : '',
    params.name ? `named ${params.name}` : '',
    slippageText(params.slippageBps),
  ];
  return `${params.amount} ${tokenLabel(params.inputToken)} → ${tokenLabel(params.outputToken)} ${params.intervalText}, ${extras.filter(Boolean).join(', ')}`;
}

function slippageText(bps: number | undefined): string {
  return bps === undefined ? "slippage: the agent's default" : `slippage ${bps / 100}% (${bps} bps)`;
}

function positionLines(summary: PortfolioSummary): string[] {
  const lines = summary.positions
    .slice(0, MAX_LISTED)
    .map((p) => `- ${p.amount} ${p.symbol ?? p.token} (${p.chain})${p.valueUsd === undefined ? ', no price' : ` ≈ $${p.valueUsd}`}`);
  if (summary.positions.length > MAX_LISTED) lines.push(`- and ${summary.positions.length - MAX_LISTED} more`);
  return lines;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
