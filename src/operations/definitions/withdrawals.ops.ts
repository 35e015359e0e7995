import { z } from 'zod';
import type { WithdrawalService, WithdrawRequest } from '../../../agents/withdrawals/withdrawal.service.js';
import {
  allowlistEntryProblem,
  normalizeAllowlistEntry,
  type WithdrawalSettingsStore,
} from '../../../agents/withdrawals/withdrawal-settings.js';
import { WHOLE_MESSAGE } from '../../../kernel/errors/validation-messages.js';
import type { OperationContext } from '../operation.types.js';
import { defineOperation } from '../operation-definition.js';
import { keyedRequestDigest } from '../request-digest.js';
import { controlGuard, type StepUpConsumer } from './agent-control.ops.js';
import { AMOUNT_AS_NUMBER, amountOf, chainOfId, evmChainId, requiredIdempotencyKey } from './trading-schemas.js';

/** Agent wallet and withdrawal settings (the agent wallet and control-plane routes; agent control plane). */

const stepUpToken = z
  .string()
  .max(200)
  .optional()
  .describe('A step-up token (`control/mcp/step-up`, 5 minutes, single use); REST takes it as the X-Step-Up-Token header.');
const amount = amountOf(/^\d{1,78}$/, 'must be an integer in base units').describe(
  `How much to withdraw, in base units of the token (an integer greater than 0) as a decimal string; ${AMOUNT_AS_NUMBER}.`,
);
const withdrawalView = z.object({
  withdrawalId: z.string(),
  agentId: z.string().optional(),
  botId: z.string().optional(),
  chain: z.string(),
  from: z.string(),
  to: z.string(),
  token: z.string(),
  symbol: z.string(),
  amount: z.string(),
  status: z.enum(['requested', 'signed', 'broadcast', 'confirmed', 'failed']),
  txHash: z.string().optional(),
  reason: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const balanceView = z.object({
  wallets: z.array(
    z.object({
      chain: z.string(),
      address: z.string(),
      tokens: z.array(
        z.object({
          mint: z.string().optional(),
          address: z.string().optional(),
          symbol: z.string(),
          amount: z.string(),
          decimals: z.number(),
          valueUsd: z.number().nullable(),
        }),
      ),
    }),
  ),
});
const settingsView = z.object({
  enabled: z.boolean(),
  allowlist: z.array(z.string()),
  dailyCapUsd: z.number().optional(),
  requireStepUp: z.boolean(),
  updatedAt: z.string().optional(),
});

/** What a withdrawal call passes on to the service: the caller's scope, owner, step-up token, key and request digest. */
function callerOf(ctx: OperationContext, kind: string, args: Record<string, unknown>, token: string | undefined) {
  return {
    scope: ctx.scope,
    ...(ctx.userId ? { userId: ctx.userId } : {}),
    ...(ctx.account ? { account: ctx.account } : {}),
    ...(token ? { stepUpToken: token } : {}),
    ...(ctx.idempotencyKey ? { idempotencyKey: ctx.idempotencyKey, requestDigest: keyedRequestDigest(kind, args) } : {}),
  };
}

/**
 * The handler of a withdrawal operation: `requestOf` reads what its input asks for; `kind`
 * names the operation in the request digest.
 */
function withdrawHandler<A extends { idempotencyKey?: string; stepUpToken?: string }>(
  withdrawals: WithdrawalService,
  kind: string,
  requestOf: (args: Omit<A, 'idempotencyKey' | 'stepUpToken'>) => WithdrawRequest,
) {
  return (ctx: OperationContext, { idempotencyKey: _key, stepUpToken: token, ...args }: A) =>
    withdrawals.withdraw(ctx.subject, requestOf(args), callerOf(ctx, kind, args, token));
}

export function withdrawalOperations(
  withdrawals: WithdrawalService,
  settings: WithdrawalSettingsStore,
  stepUp: StepUpConsumer,
  /** The control plane's claim: settings change only for the operator who claimed the agent. */
  claims: { requireClaim(userId: string, agentActorId: string): Promise<void> },
) {
  return [
    defineOperation({
      name: 'agent_wallet_balance',
      description:
        "Balances of this agent's custodial wallets, per chain: each token's amount (base units), decimals and USD value, from the venue in use.",
      family: 'wallet',
      minScope: 'trade',
      principals: ['agent'],
      input: z.object({}).strict(),
      output: balanceView,
      annotations: { readOnly: true, idempotent: true },
      handler: async (ctx) => ({ wallets: await withdrawals.balances(ctx.subject) }),
    }),
    defineOperation({
      name: 'agent_wallet_withdraw_evm',
      description:
        "Withdraw from this agent's custodial EVM wallet to `to`. Refused unless the owner enabled withdrawals, `to` is on the " +
        'allowlist when one is set, the balance covers the amount (and the fee) and the day stays under the cap; with ' +
        '`requireStepUp`, only a manage credential with a step-up token may. Answers the withdrawal (`confirmed`, or `broadcast` while it waits).',
      family: 'wallet',
      minScope: 'trade',
      principals: ['agent'],
      effect: 'funds',
      input: z
        .object({
          chainId: evmChainId,
          token: z
            .string()
            .min(1)
            .max(100)
            .describe(
              'The token: a symbol (ETH, USDC...) or its 0x contract address (mixed case must be a valid EIP-55 checksum); ETH for the native coin.',
            ),
          amount,
          to: z
            .string()
            .min(1)
            .max(100)
            .describe('The recipient: a 0x address (40 hex digits; mixed case must be a valid EIP-55 checksum).'),
          stepUpToken,
          idempotencyKey: requiredIdempotencyKey,
        })
        .strict(),
      output: withdrawalView,
      handler: withdrawHandler(withdrawals, 'withdraw_evm', (args) => ({
        chain: chainOfId(args.chainId),
        token: args.token,
        amount: args.amount,
        to: args.to,
      })),
    }),
    defineOperation({
      name: 'agent_wallet_withdraw_solana',
      description:
        "Withdraw SOL or an SPL token from this agent's custodial Solana wallet to `to` (its token account is created when missing). " +
        'The same checks as `agent_wallet_withdraw_evm`.',
      family: 'wallet',
      minScope: 'trade',
      principals: ['agent'],
      effect: 'funds',
      input: z
        .object({
          mint: z.string().min(1).max(100).describe('The token: a symbol (SOL, USDC...) or its mint address (base58).'),
          amount,
          to: z
            .string()
            .min(1)
            .max(100)
            .describe('The recipient: a Solana address (base58, 32 bytes) that can own tokens: not a program id or sysvar.'),
          stepUpToken,
          idempotencyKey: requiredIdempotencyKey,
        })
        .strict(),
      output: withdrawalView,
      handler: withdrawHandler(withdrawals, 'withdraw_solana', (args) => ({
        chain: 'solana',
        token: args.mint,
        amount: args.amount,
        to: args.to,
      })),
    }),
    defineOperation({
      name: 'agent_withdraw_settings_get',
      description:
        "This agent's withdrawal settings: `enabled` (off until the owner switches it on), `allowlist`, `dailyCapUsd`, `requireStepUp`.",
      family: 'wallet',
      minScope: 'manage',
      principals: ['operator'],
      input: z.object({}).strict(),
      output: settingsView,
      annotations: { readOnly: true, idempotent: true },
      handler: (ctx) => settings.get(ctx.subject),
    }),
    defineOperation({
      name: 'agent_withdraw_settings_set',
      description:
        "Replace this agent's withdrawal settings (the owner's session, the claim and a step-up token). `allowlist` empty or absent: any " +
        'recipient; `dailyCapUsd` absent: no cap.',
      family: 'wallet',
      minScope: 'manage',
      principals: ['operator'],
      input: z
        .object({
          enabled: z.boolean().describe('Whether the agent may withdraw at all.'),
          allowlist: z
            .array(z.string().max(100))
            .max(100)
            // Each entry with its index in the words of a withdrawal's own refusal (`allowlist.0 is not a valid EVM address`).
            .superRefine((entries, ctx) =>
              entries.forEach((entry, index) => {
                const problem = allowlistEntryProblem(entry, `allowlist.${index}`);
                if (problem) ctx.addIssue({ code: 'custom', message: problem, path: [index], params: { [WHOLE_MESSAGE]: true } });
              }),
            )
            .optional()
            .describe(
              'Recipients allowed (Solana base58 addresses that can own tokens, or EVM 0x addresses, mixed case with a valid EIP-55 checksum; at most 100); empty or absent: any.',
            ),
          dailyCapUsd: z.number().min(0).max(1e9).optional().describe('Most USD withdrawn per UTC day (0 to 1000000000); absent: no cap.'),
          requireStepUp: z.boolean().optional().describe('Withdrawals need a manage credential and a step-up token; default false.'),
          stepUpToken,
        })
        .strict(),
      output: settingsView,
      handler: async (ctx, input) => {
        await controlGuard(claims, stepUp, ctx, input.stepUpToken);
        return settings.put(ctx.subject, {
          enabled: input.enabled,
          allowlist: (input.allowlist ?? []).map(normalizeAllowlistEntry),
          ...(input.dailyCapUsd === undefined ? {} : { dailyCapUsd: input.dailyCapUsd }),
          requireStepUp: input.requireStepUp ?? false,
        });
      },
    }),
  ];
}
