import type { CommandGate, ExecutingIntent } from '../../agents/chat/bot-chat.js';
import type { OperationInvoker } from './operation-invoker.js';

/**
 * The catalog operation whose effect each command a chat executes has. A trade is the command
 * route's (`trading_command`: the same executor, the same safety path); an approval and the DCA
 * commands are those of their own operations, so pausing a strategy stays possible while the
 * `trading` family is off, as `trading_dca_pause` does, and a DCA strategy is not created through a
 * chat while the `strategy` family is off.
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
 * The chats' gate (see `CommandGate`): the catalog's own rule (`OperationCatalog.refusal`: the
 * runtime switches, the bot's MCP categories, scope) and its own answer (`Tool not found: <name>`
 * 404, or 403 `Scope insufficient`), asked of the invoker as REST asks it before a call. One rule,
 * so switching a family off refuses its effect on REST, MCP and every chat alike.
 */
export function commandGate(invoker: Pick<OperationInvoker, 'callable'>): CommandGate {
  return (intent, caller) => {
    invoker.callable(COMMAND_OPERATIONS[intent], caller);
  };
}
