import { z } from 'zod';
import type { SigningKeys } from '../../identity/keys/signing-keys.service.js';
import { defineUnboundOperation } from '../operation-definition.js';

const ops = { minScope: 'manage', principals: ['ops'], target: 'service', family: 'ops' } as const;

const keyListSchema = z.object({
  keys: z.array(
    z.object({
      kid: z.string(),
      status: z.enum(['active', 'retired']),
      createdAt: z.string(),
      retiredAt: z.string().optional(),
      removeAfter: z
        .string()
        .optional()
        .describe('When a retired key leaves /.well-known/jwks.json: every token it signed has expired by then'),
    }),
  ),
});

/**
 * The signing keys of identity access tokens, for operators of the service (ops token and
 * `agentctl keys`): list them, rotate them. Public halves only; the private ones never leave the store sealed.
 */
export function signingKeyOperations(
  keys: Pick<SigningKeys, 'list' | 'rotate'>,
  log: { warn(details: Record<string, unknown>, message: string): void },
) {
  return [
    defineUnboundOperation({
      ...ops,
      name: 'ops_signing_keys_get',
      description: 'Signing keys of identity access tokens: the active one and retired ones still published.',
      input: z.object({}).strict(),
      output: keyListSchema,
      annotations: { readOnly: true, idempotent: true },
      handler: async () => ({ keys: await keys.list() }),
    }),
    defineUnboundOperation({
      ...ops,
      name: 'ops_signing_keys_rotate',
      description:
        'Make a new signing key active for identity tokens. The old one is retired: tokens it signed keep verifying and it stays in the JWKS until they have all expired. Every process signs with the new key within seconds.',
      input: z.object({}).strict(),
      output: keyListSchema,
      annotations: { destructive: false, idempotent: false },
      handler: async (ctx) => {
        const list = await keys.rotate();
        log.warn({ activeKid: list[0]?.kid, requestId: ctx.requestId, correlationId: ctx.correlationId }, 'identity signing key rotated');
        return { keys: list };
      },
    }),
  ];
}
