/**
 * Response shapes of the hand-written (sign-in) routes; catalog routes answer their operation's output schema. The services describe them as TypeScript
 * interfaces, not zod; each schema here `satisfies` the interface it documents, so a
 * field added to or renamed in the service's type fails the type check until the
 * document follows.
 */
import { z } from 'zod';
import type { LoginResult } from '../../auth/session/session.service.js';
import type { TotpEnrollment } from '../../auth/totp/totp.service.js';
import type { EvmChallenge, SolanaChallenge } from '../../auth/wallet/wallet-login.service.js';
import { isoTime } from '../../operations/definitions/output-fields.js';

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
  principal: z.object({ type: z.enum(['session', 'agent-key', 'bot-key', 'identity-token']) }).loose(),
});
export const successSchema = z.object({ success: z.literal(true) });
export const totpEnrollSchema = z.object({ secret: z.string(), otpauthUrl: z.string() }) satisfies z.ZodType<TotpEnrollment>;
