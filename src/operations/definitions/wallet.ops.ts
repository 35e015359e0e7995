import { z } from 'zod';
import { EVM_CHAIN_LABELS, WALLET_CHAINS } from '../../../kernel/vocabulary/chains.js';
import {
  APPROVAL_AMOUNT,
  APPROVAL_AMOUNT_MESSAGES,
  APPROVAL_CHAINS,
  approvalAmountFits,
  tokenApprovalSchema,
  type TokenApprovalsService,
} from '../../../agents/wallets/token-approvals.service.js';
import type { WalletService } from '../../../agents/wallets/wallet.service.js';
import type { WalletView } from '../../../agents/wallets/wallet.types.js';
import type { OperationContext, PrincipalKind } from '../operation.types.js';
import { defineOperation } from '../operation-definition.js';
import { insertionKey, pageFields, pageOfList, pageSchema } from './list-paging.js';
import { WHOLE_MESSAGE } from '../../../kernel/errors/validation-messages.js';
import { invalidAddress, parseEvmAddress } from '../../../kernel/vocabulary/chain-address.js';
import { nameSchema } from '../../../kernel/shared/name.schema.js';
import { AMOUNT_AS_NUMBER, amountOf, idempotencyKey, requiredIdempotencyKey } from './trading-schemas.js';

const PRINCIPALS: readonly PrincipalKind[] = ['agent', 'bot', 'operator'];
const walletChain = z.enum(WALLET_CHAINS);
/** Idempotency: MCP callers pass the key here; REST takes it from `X-Idempotency-Key`. */
const walletId = z.string().min(1).max(64);
const label = nameSchema()
  .optional()
  .describe('A name for the wallet, shown in lists: 1-100 characters, no control, invisible or bidirectional formatting characters.');
/** `chain` of the custodial wallet tools (the output's `chain` is the same enum, undescribed). */
const walletFamily = walletChain
  .default('solana')
  .describe(`Chain family of the wallet: \`solana\`, or \`evm\` (one EVM wallet serves ${EVM_CHAIN_LABELS}); default solana.`);
/**
 * Any 0x address in field `field`; a mixed-case one must carry a valid EIP-55 checksum (else
 * `<field> is not a valid EVM address`, the words of every address refusal). Answered checksummed.
 */
// `abort`: a value that is not an address at all gets one message, not a checksum complaint too.
const evmAddress = (field: string) =>
  z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, { error: 'must be a 0x address of 40 hex digits', abort: true })
    .refine((value) => parseEvmAddress(value) !== null, {
      message: invalidAddress(field, 'EVM'),
      params: { [WHOLE_MESSAGE]: true },
      abort: true,
    })
    // No one holds its key: as a wallet, a token or a spender it is always a mistake.
    .refine((value) => !/^0x0{40}$/.test(value), 'must not be the zero address')
    .transform((value) => parseEvmAddress(value)!);

/** Every wallet field a surface may show: no key material exists in this shape. */
const walletView = z.object({
  walletId: z.string(),
  chain: walletChain,
  address: z.string(),
  custodial: z.boolean(),
  kind: z.enum(['custodial', 'external', 'delegate']),
  isDefault: z.boolean(),
  status: z.enum(['active', 'revoked']),
  label: z.string().optional(),
  spendingCapUsd: z.number().optional(),
  spentUsd: z.number().optional(),
  createdAt: z.string(),
});
/** Request shapes: `trading_wallet_custodial_ensure` → `{walletId, chain, address, custodial:true, createdAt}`. */
const custodialWallet = z.object({
  walletId: z.string(),
  chain: walletChain,
  address: z.string(),
  custodial: z.literal(true),
  createdAt: z.string(),
});
const walletList = pageSchema(walletView);
const approvalTarget = {
  chain: z.enum(APPROVAL_CHAINS).describe(`EVM chain the approval is on: ${APPROVAL_CHAINS.join(', ')}.`),
  token: evmAddress('token').describe(
    'The ERC-20 token contract: a 0x address (40 hex digits; mixed case must be a valid EIP-55 checksum).',
  ),
  spender: evmAddress('spender').describe(
    'The contract allowed to move the token (e.g. a DEX router): a 0x address (40 hex digits; mixed case must be a valid EIP-55 checksum).',
  ),
  walletId: walletId
    .optional()
    .describe('The EVM wallet that granted the approval, by its walletId (`trading_evm_wallets_list`); default: the default EVM wallet.'),
  idempotencyKey: requiredIdempotencyKey,
};
/**
 * An allowance in base units, or `unlimited` (the uint256 maximum). Like every amount it may
 * come as a safe JSON integer (`amountOf`); `0` passes that branch and is refused here, with
 * the words a string `"0"` gets.
 */
const approvalAmount = amountOf(APPROVAL_AMOUNT, APPROVAL_AMOUNT_MESSAGES.shape)
  .refine((amount) => amount !== '0', APPROVAL_AMOUNT_MESSAGES.shape)
  .refine(approvalAmountFits, APPROVAL_AMOUNT_MESSAGES.tooLarge)
  .describe(
    'How much of the token the spender may move, in base units of the token (an integer greater than 0, at most 2^256-1) as a ' +
      `decimal string such as "1000000", or "unlimited" for the largest allowance; ${AMOUNT_AS_NUMBER}.`,
  );

const custodialOf = (view: WalletView) => ({
  walletId: view.walletId,
  chain: view.chain,
  address: view.address,
  custodial: true as const,
  createdAt: view.createdAt,
});
/** The key a guarded call runs under (the invoker has put every surface's key there, lower-cased). */
const keyed = (ctx: OperationContext) => (ctx.idempotencyKey === undefined ? {} : { requestKey: ctx.idempotencyKey });

/** Wallet operations family (the trading routes wallet and approval routes, 4.5 tools); they act on `ctx.subject`. */
export function walletOperations(wallets: WalletService, approvals: TokenApprovalsService) {
  return [
    defineOperation({
      name: 'trading_wallet_custodial_get',
      description:
        'State of the custodial wallet of this trading account for a chain family (`solana` by default, or `evm`): ' +
        '`exists` and the wallet (`walletId`, `chain`, `address`, `custodial`, `createdAt`), or `wallet: null`. Never key material.',
      family: 'wallet',
      minScope: 'read',
      principals: PRINCIPALS,
      input: z.object({ chain: walletFamily }).strict(),
      output: z.object({ chain: walletChain, exists: z.boolean(), wallet: custodialWallet.nullable() }),
      annotations: { readOnly: true, idempotent: true },
      handler: async (ctx, input) => {
        const wallet = await wallets.custodialState(ctx.subject, input.chain);
        return { chain: input.chain, exists: wallet !== null, wallet: wallet ? custodialOf(wallet) : null };
      },
    }),
    defineOperation({
      name: 'trading_wallet_custodial_ensure',
      description:
        'Returns the custodial wallet of this trading account for a chain family (`solana` by default, or `evm`), creating it ' +
        'when there is none; calling it again returns the same wallet. The key is generated and kept encrypted by the service ' +
        'and never returned. Call it when a trade answers `Custodial wallet required for this operation`.',
      family: 'wallet',
      minScope: 'trade',
      principals: PRINCIPALS,
      input: z.object({ chain: walletFamily, idempotencyKey }).strict(),
      output: custodialWallet,
      annotations: { idempotent: true },
      handler: async (ctx, input) => custodialOf(await wallets.ensureCustodial(ctx.subject, input.chain, ctx.created)),
    }),
    defineOperation({
      name: 'trading_evm_wallets_list',
      description:
        'EVM wallets of this trading account, oldest first: custodial, delegate (with `spendingCapUsd` and `spentUsd`) and ' +
        'external (address only) ones, which one is the default, and revoked ones with `status: "revoked"`. One EVM wallet serves every EVM chain.',
      family: 'wallet',
      minScope: 'read',
      principals: PRINCIPALS,
      input: z.object(pageFields).strict(),
      output: walletList,
      annotations: { readOnly: true, idempotent: true },
      handler: async (ctx, input) =>
        pageOfList(await wallets.list(ctx.subject, 'evm'), (wallet, index) => insertionKey(wallet.createdAt, index), input),
    }),
    defineOperation({
      name: 'trading_evm_wallet_add',
      description:
        'Connect an external EVM wallet by address (no key: the service cannot sign with it). 409 `Wallet already connected` ' +
        'when the address is already an active wallet of this account. The first EVM wallet becomes the default.',
      family: 'wallet',
      minScope: 'manage',
      principals: PRINCIPALS,
      input: z
        .object({
          address: evmAddress('address').describe(
            "The wallet's 0x address (40 hex digits; mixed case must be a valid EIP-55 checksum); answered checksummed.",
          ),
          label,
        })
        .strict(),
      output: walletView,
      handler: (ctx, input) => wallets.addExternal(ctx.subject, input),
    }),
    defineOperation({
      name: 'trading_evm_wallet_create_custodial',
      description: 'Create a new custodial EVM wallet: the service generates and encrypts its key and never returns it.',
      family: 'wallet',
      minScope: 'trade',
      principals: PRINCIPALS,
      input: z.object({ label, idempotencyKey }).strict(),
      output: walletView,
      handler: (ctx, input) =>
        wallets.createCustodial(ctx.subject, 'evm', { ...(input.label ? { label: input.label } : {}), ...keyed(ctx) }),
    }),
    defineOperation({
      name: 'trading_evm_wallet_create_delegate',
      description:
        'Create a delegate EVM wallet: a custodial wallet that may spend at most `spendingCapUsd` US dollars in total; a trade ' +
        'that would pass the cap is refused with `Spending cap exceeded for wallet <walletId>`.',
      family: 'wallet',
      minScope: 'manage',
      principals: PRINCIPALS,
      // Caps are kept in micro-dollars: under one is a cap of 0, and above $1e9 the count of
      // micro-dollars passes 2^53, where doubles stop being exact.
      input: z
        .object({
          spendingCapUsd: z
            .number()
            .min(0.000001, { error: 'must be at least 0.000001' })
            .max(1e9)
            .describe(
              'The most this wallet may ever spend, in total, in US dollars (a JSON number, 0.000001 to 1000000000); a trade that would pass it is refused.',
            ),
          label,
          idempotencyKey,
        })
        .strict(),
      output: walletView,
      handler: (ctx, input) =>
        wallets.createDelegate(ctx.subject, 'evm', {
          spendingCapUsd: input.spendingCapUsd,
          ...(input.label ? { label: input.label } : {}),
          ...keyed(ctx),
        }),
    }),
    defineOperation({
      name: 'trading_evm_wallet_set_default',
      description:
        'Make an active EVM wallet the default one of this account (exactly one is the default); trades sign with it when it is custodial.',
      family: 'wallet',
      minScope: 'trade',
      principals: PRINCIPALS,
      input: z
        .object({ walletId: walletId.describe('The active EVM wallet to make the default, by its walletId (`trading_evm_wallets_list`).') })
        .strict(),
      output: walletView,
      annotations: { idempotent: true },
      handler: (ctx, input) => wallets.setDefault(ctx.subject, 'evm', input.walletId),
    }),
    defineOperation({
      name: 'trading_evm_wallet_revoke',
      description:
        'Revoke an EVM wallet for good: it no longer signs or counts as connected. Revoking the default makes the oldest ' +
        'remaining active wallet the default.',
      family: 'wallet',
      minScope: 'manage',
      principals: PRINCIPALS,
      input: z.object({ walletId: walletId.describe('The EVM wallet to revoke, by its walletId (`trading_evm_wallets_list`).') }).strict(),
      output: walletView,
      annotations: { destructive: true, idempotent: true },
      handler: (ctx, input) => wallets.revoke(ctx.subject, 'evm', input.walletId),
    }),
    defineOperation({
      name: 'trading_evm_approval_record',
      description:
        'Record an ERC-20 token approval granted on an EVM chain: `spender` may move `amount` (base units, or "unlimited") of ' +
        '`token` from the wallet `walletId` (default: the default EVM wallet). Recording again replaces the amount.',
      family: 'wallet',
      minScope: 'trade',
      principals: PRINCIPALS,
      effect: 'funds',
      input: z.object({ ...approvalTarget, amount: approvalAmount }).strict(),
      output: tokenApprovalSchema,
      handler: (ctx, { idempotencyKey: _key, ...input }) => approvals.record(ctx.subject, input),
    }),
    defineOperation({
      name: 'trading_evm_approval_revoke',
      description: 'Record that an ERC-20 token approval was revoked. 404 `Approval not found` when no active approval matches.',
      family: 'wallet',
      minScope: 'trade',
      principals: PRINCIPALS,
      effect: 'funds',
      input: z.object(approvalTarget).strict(),
      output: tokenApprovalSchema,
      handler: (ctx, { idempotencyKey: _key, ...input }) => approvals.revoke(ctx.subject, input),
    }),
    defineOperation({
      name: 'trading_evm_approvals_list',
      description: 'EVM token approvals recorded for this account, oldest first; `status` filters active or revoked ones.',
      family: 'wallet',
      minScope: 'read',
      principals: PRINCIPALS,
      input: z
        .object({
          status: z.enum(['active', 'revoked']).optional().describe('Only approvals in this status: `active` or `revoked`; default: both.'),
          ...pageFields,
        })
        .strict(),
      output: pageSchema(tokenApprovalSchema),
      annotations: { readOnly: true, idempotent: true },
      handler: async (ctx, input) =>
        pageOfList(
          await approvals.list(ctx.subject, input.status ? { status: input.status } : {}),
          (a) => `${a.createdAt}|${a.approvalId}`,
          input,
        ),
    }),
  ];
}
