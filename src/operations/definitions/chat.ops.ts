import { z } from 'zod';
import type { AskBot } from '../../../agents/chat/ask-bot.js';
import { escapeUnsafe } from '../../../kernel/shared/escape-unsafe.js';
import { defineOperation } from '../operation-definition.js';

const askBotOutput = z.object({
  /** The caller's `chat_id`, echoed so that a client running several chats can route the answer. */
  chat_id: z.string(),
  reply: z.string(),
  intent: z.string(),
  params: z.record(z.string(), z.unknown()).optional(),
  confidence: z.number().min(0).max(1),
  degraded: z.boolean().optional(),
});

/** AI/chat family (the MCP routes): `ask_bot`, the legacy name kept for compatibility. */
export function chatOperations(bot: AskBot) {
  return [
    defineOperation({
      name: 'ask_bot',
      description:
        'Ask the agent in natural language. Answers "status", "portfolio", "positions" and "orders" from live data; ' +
        'reads trading commands ("buy 0.5 SOL of BONK", "swap 100 USDC to SOL with 1% slippage", "approve <order_id>", ' +
        '"dca 10 USDC into SOL every day") into `intent` + `params` and says which trading tool executes them: ' +
        'this tool never executes a trade. `degraded: true` means the language model was unavailable and a templated ' +
        'reply was sent. Stateless: `chat_id` is echoed in the answer, no conversation history is kept, so send full commands.',
      family: 'chat',
      minScope: 'read',
      principals: ['agent', 'bot', 'operator'],
      input: z
        .object({
          message: z
            .string()
            .min(1)
            .max(4000)
            .describe(
              'The question or command in natural language, 1-4000 characters, e.g. "positions" or "buy 0.5 SOL of BONK"; send it whole (no history is kept).',
            ),
          chat_id: z
            .string()
            .min(1)
            .max(256)
            .describe('Your id of the conversation (1-256 characters), echoed in the answer so that you can route it; any value.'),
        })
        .strict(),
      output: askBotOutput,
      annotations: { readOnly: true },
      handler: async (ctx, input) => ({
        // Echoed as sent, but control and bidi characters escaped like any other quoted input.
        chat_id: escapeUnsafe(input.chat_id),
        ...(await bot.ask({ subject: ctx.subject, message: input.message, chatId: input.chat_id })),
      }),
    }),
  ];
}
