import { z } from 'zod';
import type { AuditVerifier } from '../audit-verify.service.js';
import { defineUnboundOperation } from '../operation-definition.js';

const breakSchema = z.object({
  seq: z.number().int().describe('Chain position of the break (for a missing entry: the position it had)'),
  reason: z.enum(['hash-mismatch', 'link-broken', 'missing', 'out-of-order', 'unchained', 'head-mismatch', 'checkpoint-invalid']),
  message: z.string(),
  entry: z
    .object({
      seq: z.number().int().optional(),
      at: z.string(),
      operation: z.string(),
      requestId: z.string(),
      segmentId: z.string().describe('Id of the stored document that holds the entry'),
    })
    .optional()
    .describe('The stored entry at the break (for a missing one: the next entry present)'),
});

const chainReportSchema = z.object({
  subject: z.string(),
  ok: z.boolean(),
  entries: z.number().int(),
  unchained: z.number().int().describe('Entries written before the chain began, older than all of it'),
  firstSeq: z.number().int().optional(),
  lastSeq: z.number().int().optional(),
  checkpoint: z
    .object({ seq: z.number().int(), at: z.string(), kid: z.string().optional(), knownKey: z.boolean().optional() })
    .optional()
    .describe('The newest signed head and the key that signed it (`knownKey`: one of the service key ring)'),
  break: breakSchema.optional().describe('The first entry that does not match'),
});

const subjectPattern = /^(agent|bot):[^\s]+$|^none$/;

/**
 * Verifies the audit trail's hash chains for the service's operators (ops token, `agentctl
 * audit verify`): every chain, or one agent's (`agentId`: its actor id, as `agentctl get
 * agent` names it) or one subject's (`agent:<id>`, `bot:<id>`, `none`).
 */
export function auditVerifyOperations(verifier: Pick<AuditVerifier, 'verify'>) {
  return [
    defineUnboundOperation({
      minScope: 'manage',
      principals: ['ops'],
      target: 'service',
      family: 'ops',
      name: 'ops_audit_verify',
      description:
        'Walk the audit hash chains (every subject, or the one named) and check each signed head; names the first entry of each chain that does not match.',
      input: z
        .object({
          agentId: z.string().min(1).max(200).optional().describe('The agent (actor id) whose chain to verify'),
          subject: z
            .string()
            .regex(subjectPattern, 'subject must be agent:<id>, bot:<id> or none')
            .optional()
            .describe('The chain to verify'),
        })
        .strict()
        .refine((input) => input.agentId === undefined || input.subject === undefined, 'give agentId or subject, not both'),
      output: z.object({
        ok: z.boolean(),
        chains: z.number().int(),
        entries: z.number().int(),
        failures: z.array(chainReportSchema),
        chain: chainReportSchema.optional(),
      }),
      annotations: { readOnly: true, idempotent: true },
      handler: (_ctx, input) => verifier.verify(input.agentId !== undefined ? `agent:${input.agentId}` : input.subject),
    }),
  ];
}
