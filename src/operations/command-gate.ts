import { isExecutingIntent, type CommandGate, type ExecutingIntent } from '../../agents/chat/bot-chat.js';
import type { InterpretResult } from '../../agents/chat/intent.types.js';
import type { OperationCatalog } from './operation-catalog.js';
import type { Viewer } from './operation.types.js';

/**
 * The catalog operation whose effect each command a chat or the command route executes has. A
 * trade is the command route's (`trading_command`: the same executor, the same safety path); an
 * approval and the DCA commands are their own operations', so pausing a strategy stays possible
 * while the `trading` family is off, as `trading_dca_pause` does, and no DCA strategy is created
 * by a command while the `strategy` family is off.
 */
export const COMMAND_OPERATIONS: Readonly<Record<ExecutingIntent, string>> = {
  buy: 'trading_command',
  sell: 'trading_command',
  swap: 'trading_command',
  approve: 'trading_orders_approve',
  dca_create: 'trading_dca_strategy_create',
  dca_pause: 'trading_dca_pause',
  dca_resume: 'trading_dca_resume',
  dca_approve: 'trading_dca_strategy_approve',
};

/**
 * Throws the catalog's own answer (`OperationCatalog.callable`: `Tool not found: <name>` 404 for a
 * switched-off family or operation or one the bot switched off for itself, 403 for scope) when the
 * operation `intent` stands for is not callable by `viewer`; nothing for a question or any intent
 * that executes nothing. One rule, so switching a family off refuses its effect on REST, MCP, the
 * command route and every chat alike.
 */
function assertCommandCallable(catalog: Pick<OperationCatalog, 'callable'>, intent: string, viewer: Viewer): void {
  if (isExecutingIntent(intent)) catalog.callable(COMMAND_OPERATIONS[intent], viewer);
}

/** The chats' gate (see `CommandGate`), bound to the catalog. */
export function commandGate(catalog: Pick<OperationCatalog, 'callable'>): CommandGate {
  return (intent, caller) => assertCommandCallable(catalog, intent, caller);
}

/** The command route's check of its message, interpreted once (the intent checked is the intent executed), with the viewer the invoker judged. */
export function assertIntentCallable(
  catalog: Pick<OperationCatalog, 'callable'>,
  intent: Pick<InterpretResult, 'intent'>,
  viewer: Viewer,
): void {
  assertCommandCallable(catalog, intent.intent, viewer);
}
