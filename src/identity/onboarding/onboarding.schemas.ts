import { z } from 'zod';
import { EvmSignatureSchema } from '../../auth/wallet/wallet-login.schemas.js';
import { freeTextSchema, nameSchema } from '../../../kernel/shared/name.schema.js';

/**
 * An ERC-8004 registration file (the agent card's draft): `type`, `name`, `description`,
 * `image`, `services`, `active`, and the optional `registrations` and `supportedTrust` of
 * the standard. Unknown fields are dropped, sizes bounded.
 */
export const registrationSchema = z.object({
  type: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .describe('The registration type URI, e.g. https://eips.ethereum.org/EIPS/eip-8004#registration-v1'),
  // The card's rules (src/directory/card.schemas.ts): the draft is published as it is.
  name: nameSchema(100).describe('Display name of the agent'),
  description: freeTextSchema(2000).default('').describe('What the agent does'),
  image: z
    .url({ protocol: /^(https|ipfs|data)$/ })
    .max(2048)
    .optional()
    .describe('Image URL (https, ipfs or data)'),
  services: z
    .array(
      z.object({
        name: nameSchema(64).describe('Service kind, e.g. MCP, A2A, web'),
        endpoint: z.string().trim().min(1).max(2048).describe('Where the service answers'),
        version: z.string().max(32).optional(),
      }),
    )
    .max(20)
    .default([])
    .describe('Endpoints the agent offers; the service adds its MCP endpoint on the card'),
  active: z.boolean().default(true),
  registrations: z
    .array(
      z.object({ agentId: z.union([z.number().int().nonnegative(), z.string().regex(/^\d{1,78}$/)]), agentRegistry: z.string().max(100) }),
    )
    .max(20)
    .optional(),
  supportedTrust: z.array(nameSchema(64)).max(10).optional(),
});
export type Registration = z.output<typeof registrationSchema>;

const scopeSchema = z.enum(['read', 'trade', 'manage']).describe('read or trade (manage is never issued at onboarding)');

export const siweOnboardingSchema = z
  .object({
    message: z.string().min(1).max(4000).describe('EIP-4361 message, or its SIWA form with `Agent ID` and `Agent Registry` lines'),
    signature: EvmSignatureSchema,
    scope: scopeSchema,
    registration: registrationSchema.optional(),
  })
  .strict();

export const identityOnboardingSchema = z
  .object({
    provider: z.string().trim().min(1).max(64).describe('A provider name of IDENTITY_PROVIDERS'),
    providerToken: z.string().min(1).max(8192).describe("The provider's JWT"),
    scope: scopeSchema,
    agentId: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{2,127}$/, 'must be 3-128 letters, digits, or . _ : - (starting with a letter or digit)')
      .optional()
      .describe(
        "Your label for one of several agents of this identity (default: its one agent); the answer's agentId is the service's own id for it",
      ),
    registration: registrationSchema.optional(),
  })
  .strict();

export const revokeSchema = z.object({ token: z.string().min(1).max(8192) }).strict();
export const revokeStatusSchema = z.union([
  z.object({ jti: z.string().min(1).max(128) }).strict(),
  z.object({ token: z.string().min(1).max(8192) }).strict(),
]);
