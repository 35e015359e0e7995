import { z } from 'zod';
import { WALLET_CHAINS } from '../../kernel/vocabulary/chains.js';

/** What a widget sends: a chat message, the owner's sign-in challenge and answer. */
export const widgetChatSchema = z
  .object({
    message: z.string().min(1).max(4000).describe('What the visitor typed, up to 4,000 characters'),
    message_id: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .describe("The widget's id for this message: a trade command sent again under the same id runs once"),
  })
  .strict();

export const widgetChallengeSchema = z.object({ chain: z.enum(WALLET_CHAINS), walletAddress: z.string().min(1).max(128) }).strict();

export const widgetSignInSchema = z.object({ message: z.string().min(1).max(4096), signature: z.string().min(1).max(20_000) }).strict();
