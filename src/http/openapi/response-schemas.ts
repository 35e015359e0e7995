/**
 * Response shapes of the hand-written routes. The services describe them as TypeScript
 * interfaces, not zod; each schema here `satisfies` the interface it documents, so a
 * field added to or renamed in the service's type fails the type check until the
 * document follows.
 */
import { z } from 'zod';
import type { AgentSummary } from '../../accounts/agents.service.js';
import { SCOPES, type CreatedKey, type KeySummary } from '../../accounts/api-keys.service.js';
import { mcpConfigSchema, replaceBotSchema, type Bot } from '../../accounts/bots.service.js';
import type { BotMcpConfig } from '../../../machines/bot.machine.js';
import type { LoginResult } from '../../auth/session/session.service.js';
import type { StepUpGrant } from '../../auth/step-up/step-up.service.js';
import type { TotpEnrollment } from '../../auth/totp/totp.service.js';
import type { EvmChallenge, SolanaChallenge } from '../../auth/wallet/wallet-login.service.js';

const isoTime = z.string().describe('ISO 8601 time');

export const agentSummarySchema = z.object({
  agentId: z.string(),
  publicId: z.string(),
  name: z.string(),
  status: z.string(),
  tradingEnabled: z.boolean(),
  createdAt: isoTime,
}) satisfies z.ZodType<AgentSummary>;

export const keySummarySchema = z.object({
  keyId: z.string(),
  name: z.string(),
  prefix: z.string().describe('First 13 characters of the key; safe to display'),
  maskedSecret: z.string(),
  scope: z.enum(SCOPES),
  createdAt: isoTime,
  expiresAt: isoTime,
  status: z.enum(['active', 'revoked', 'expired']),
}) satisfies z.ZodType<KeySummary>;

export const createdKeySchema = keySummarySchema.extend({
  secret: z.string().describe('The full key, returned exactly once'),
}) satisfies z.ZodType<CreatedKey>;

export const botSchema = replaceBotSchema.extend({
  id: z.string(),
  publicId: z.string(),
  status: z.literal('active'),
  createdAt: isoTime,
  updatedAt: isoTime,
}) satisfies z.ZodType<Bot>;

/** The stored MCP config: every field of the update schema, present. */
export const botMcpConfigSchema = mcpConfigSchema.required() satisfies z.ZodType<BotMcpConfig>;

export const loginResultSchema = z.object({
  accessToken: z.string().describe('Session JWT (15 minutes)'),
  refreshToken: z.string().describe('Refresh JWT (30 days, rotated on every refresh)'),
  user: z.object({ id: z.string(), walletAddress: z.string() }),
}) satisfies z.ZodType<LoginResult>;

export const csrfResponseSchema = z.object({ csrfToken: z.string() });
export const solanaNonceResponseSchema = z.object({
  nonce: z.string(),
  expiresAt: isoTime,
  message: z.string().describe('The exact SIWS text to sign'),
}) satisfies z.ZodType<SolanaChallenge>;
export const evmNonceResponseSchema = z.object({ nonce: z.string(), expiresAt: isoTime }) satisfies z.ZodType<EvmChallenge>;
export const verifyResponseSchema = z.object({
  valid: z.literal(true),
  principal: z.object({ type: z.enum(['session', 'agent-key', 'bot-key']) }).loose(),
});
export const successSchema = z.object({ success: z.literal(true) });
export const totpEnrollSchema = z.object({ secret: z.string(), otpauthUrl: z.string() }) satisfies z.ZodType<TotpEnrollment>;
export const stepUpResponseSchema = z.object({ stepUpToken: z.string(), expiresAt: isoTime }) satisfies z.ZodType<StepUpGrant>;

/** `{items, nextCursor?}` of every listing route. */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), nextCursor: z.string().optional() });
}
