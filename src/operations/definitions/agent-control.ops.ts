import { z } from 'zod';
import { SCOPES } from '../../../kernel/vocabulary/scopes.js';
import type { AgentControlService } from '../../accounts/agent-control.service.js';
import type { ApiKeysService } from '../../accounts/api-keys.service.js';
import type { OperationContext } from '../operation.types.js';
import { defineOperation, defineUnboundOperation } from '../operation-definition.js';
import { rotatedKeysSchema, rotationGraceSeconds } from './key.ops.js';
import { userOf } from './operator-paging.js';

/** What the control operations need of the step-up service (src/auth/step-up). */
export interface StepUpConsumer {
  consume(input: { userId: string; target: string; token: string | null | undefined }): Promise<void>;
}

/** The step-up token of a control-plane change; REST takes it as the X-Step-Up-Token header. */
const controlStepUpToken = z
  .string()
  .max(200)
  .optional()
  .describe('A step-up token (`control/mcp/step-up`, 5 minutes, single use); REST takes it as the X-Step-Up-Token header.');

/**
 * The guard of the control plane's protected changes (scopes, key rotation, withdrawal
 * settings): the operator's claim first, then the step-up token, spent last so that a refused
 * call (not claimed) keeps it.
 */
export async function controlGuard(
  control: Pick<AgentControlService, 'requireClaim'>,
  stepUp: StepUpConsumer,
  ctx: OperationContext,
  token: string | undefined,
) {
  const userId = userOf(ctx);
  await control.requireClaim(userId, ctx.subject.id);
  await stepUp.consume({ userId, target: `${ctx.subject.type}:${ctx.subject.id}`, token });
}

const claimView = z.object({
  agentId: z.string(),
  claimed: z.literal(true),
  claimedBy: z.string().describe('The user id of the operator who claimed it (its owner)'),
  claimedAt: z.string().describe('ISO 8601 time of the first claim'),
});

/** The agent control plane (the agent wallet and control-plane routes; agent control plane): claim, scopes, key rotation. */
export function agentControlOperations(control: AgentControlService, keys: Pick<ApiKeysService, 'rotate'>, stepUp: StepUpConsumer) {
  return [
    defineUnboundOperation({
      name: 'agent_control_claim',
      description:
        "Claim an agent (or verify a claim): prove control of the agent's owner wallet with a fresh signed sign-in message (SIWS or " +
        'EIP-4361, nonce from the sign-in nonce routes) whose statement starts with Claim and names the agentId (`Claim agent ' +
        '<agentId>`; no other route takes such a message). The first claim makes you its owner; another operator after that gets ' +
        '409 `Agent already claimed`, whatever wallet signed.',
      family: 'agents',
      minScope: 'manage',
      principals: ['operator'],
      target: 'owner',
      input: z
        .object({
          agentId: z
            .string()
            .min(1)
            .max(160)
            .describe('The agent, by the agentId its owner chose or onboarding answered (path parameter).'),
          message: z.string().min(1).max(4096).describe('The signed SIWS or EIP-4361 message; its statement is `Claim agent <agentId>`.'),
          signature: z.string().min(1).max(20_000).describe('The signature: base58 for SIWS, 0x hex for EIP-4361.'),
        })
        .strict(),
      output: claimView,
      handler: (ctx, input) => control.claim(userOf(ctx), input.agentId, { message: input.message, signature: input.signature }),
    }),
    defineOperation({
      name: 'agent_control_scopes_set',
      description:
        'Cap the scope of every credential of this agent (keys and identity tokens): a stronger one acts with `maxScope` at once, on ' +
        'every process. Needs the claim and a step-up token.',
      family: 'keys',
      minScope: 'manage',
      principals: ['operator'],
      input: z
        .object({
          maxScope: z
            .enum(SCOPES)
            .describe('The highest scope any credential of the agent acts with: `read`, `trade` or `manage` (no cap).'),
          stepUpToken: controlStepUpToken,
        })
        .strict(),
      output: z.object({ agentId: z.string(), maxScope: z.enum(SCOPES) }),
      handler: async (ctx, input) => {
        await controlGuard(control, stepUp, ctx, input.stepUpToken);
        return control.setScopes(ctx.subject.id, input.maxScope);
      },
    }),
    defineOperation({
      name: 'agent_scope_cap_lower',
      description:
        'Lower the scope cap of this agent: every credential of it (keys and identity tokens), this one included, acts with at most ' +
        '`maxScope` from the answer on, on every process. A cap already lower stays (the answer names the cap as stored); ' +
        "raising it back is the owner's (control plane, claim and step-up).",
      family: 'keys',
      minScope: 'manage',
      principals: ['agent'],
      input: z
        .object({
          maxScope: z
            .enum(['read', 'trade'])
            .describe('The highest scope any credential of the agent acts with from now on: `read` or `trade`.'),
        })
        .strict(),
      output: z.object({ agentId: z.string(), maxScope: z.enum(SCOPES) }),
      // The scope check read a per-process cache: the owner may have lowered the cap below `maxScope` since, so it only ever lowers.
      handler: (ctx, input) => control.lowerScopes(ctx.subject.id, input.maxScope),
    }),
    defineOperation({
      name: 'agent_control_keys_rotate',
      description:
        'Rotate the API keys of this agent: per active key (or only `keyId`), a new key of the same name and scope; the old one expires ' +
        'after `graceSeconds`. The answer carries each new secret, once. Needs the claim and a step-up token.',
      family: 'keys',
      minScope: 'manage',
      principals: ['operator'],
      input: z
        .object({
          keyId: z.string().min(1).max(128).optional().describe('Rotate only this key; default: every active key.'),
          graceSeconds: rotationGraceSeconds,
          stepUpToken: controlStepUpToken,
        })
        .strict(),
      output: rotatedKeysSchema,
      handler: async (ctx, input) => {
        await controlGuard(control, stepUp, ctx, input.stepUpToken);
        const owner = { type: ctx.subject.type, id: ctx.subject.id };
        return {
          keys: await keys.rotate(userOf(ctx), owner, { ...(input.keyId ? { keyId: input.keyId } : {}), graceSeconds: input.graceSeconds }),
        };
      },
    }),
  ];
}
