import { z } from 'zod';
import { defineOperation } from '../operation-definition.js';
import { userOf } from './operator-paging.js';

/** What the operation needs of the step-up service (src/auth/step-up). */
export interface StepUpIssuer {
  issue(input: { userId: string; target: string; code: string }): Promise<{ stepUpToken: string; expiresAt: string }>;
}

/** A 6-digit TOTP code (interface section 8). */
const totpCodeSchema = z.string().regex(/^\d{6}$/, 'must be 6 digits');

const stepUpGrantSchema = z.object({
  stepUpToken: z.string().describe('Pass as `stepUpToken` when creating a manage key'),
  expiresAt: z.string().describe('ISO 8601 time'),
});

/** A step-up token for a manage key of the agent or bot the call acts on (its operator's TOTP code). */
export function stepUpOperations(stepUp: StepUpIssuer) {
  return [
    defineOperation({
      name: 'step_up_issue',
      description:
        'Issue a step-up token from a TOTP code. The token lasts 5 minutes, works once, and is bound to you and this agent or bot.',
      family: 'keys',
      minScope: 'manage',
      principals: ['operator'],
      input: z.object({ code: totpCodeSchema.describe('Current 6-digit code of your authenticator app') }).strict(),
      output: stepUpGrantSchema,
      annotations: { destructive: false, idempotent: false },
      handler: (ctx, input) => stepUp.issue({ userId: userOf(ctx), target: `${ctx.subject.type}:${ctx.subject.id}`, code: input.code }),
    }),
  ];
}
