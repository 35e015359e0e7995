import { z } from 'zod';
import { interpret } from '../../../agents/chat/command-interpreter.js';
import type { TradingCommand } from '../../../agents/chat/trading-command.js';
import { assertCommandCallable } from '../command-gate.js';
import type { OperationCatalog } from '../operation-catalog.js';
import { defineOperation } from '../operation-definition.js';
import { keyedOrder, orderOutput, requiredIdempotencyKey, signalSource } from './trading-schemas.js';

/** The natural-language trading command (the trading routes `POST /api/nest/trading/command`). */
export function commandOperations(command: TradingCommand, catalog: Pick<OperationCatalog, 'callable'>) {
  return [
    defineOperation({
      name: 'trading_command',
      description:
        'Execute a natural-language trading command, in English or Turkish: "buy 0.5 SOL of BONK", "swap 100 USDC to SOL ' +
        'with 1% slippage", "sell all WIF", "positions", "orders pending", "approve <order_id>", "0.5 SOL ile BONK al". ' +
        'Trades go through the same safety path as the trading tools. Answers `{success, reply, intent, order?}`; a command ' +
        'that is not understood gets intent `unknown` and a reply saying what to type.',
      family: 'trading',
      minScope: 'trade',
      principals: ['agent', 'bot', 'operator'],
      effect: 'funds',
      input: z
        .object({
          message: z
            .string()
            .min(1)
            .max(4000)
            .describe(
              'The command, in English or Turkish, 1-4000 characters: e.g. "buy 0.5 SOL of BONK", "sell all WIF", "orders pending".',
            ),
          signalSource,
          idempotencyKey: requiredIdempotencyKey,
        })
        .strict(),
      output: z.object({ success: z.literal(true), reply: z.string(), intent: z.string(), order: orderOutput.optional() }),
      annotations: { destructive: false, idempotent: false },
      handler: async (ctx, input) => {
        // Read once: the command checked is the command executed.
        const interpreted = interpret(input.message);
        // A DCA command is `trading_dca_*`'s effect: refused as those are (their family switched off, the bot's MCP categories).
        if (ctx.viewer) assertCommandCallable(catalog, interpreted.intent, ctx.viewer);
        return command.execute({ type: ctx.subject.type, id: ctx.subject.id }, interpreted, {
          ...(ctx.userId ? { userId: ctx.userId } : {}),
          ...(ctx.account ? { account: ctx.account } : {}),
          channel: ctx.surface === 'mcp' ? 'mcp' : 'command',
          scope: ctx.scope,
          ...(input.signalSource ? { signalSource: input.signalSource } : {}),
          // The signal source is part of what was asked (it is kept on the order and checked by the risk policy).
          ...keyedOrder(ctx, 'command', { message: input.message, ...(input.signalSource ? { signalSource: input.signalSource } : {}) }),
        });
      },
    }),
  ];
}
