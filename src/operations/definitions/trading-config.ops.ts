import type { StoreTradingConfig, TokenList } from '../../../agents/config/trading-config.service.js';
import { KNOWN_LAUNCHPADS, QUOTE_TOKENS, TRADING_CONFIG_LIMITS } from '../../../agents/config/trading-config.rules.js';
import type { PrincipalKind } from '../operation.types.js';
import { defineOperation } from '../operation-definition.js';
import { insertionKey, pageOfList } from './list-paging.js';
import {
  launchpadPriorityInput,
  launchpadSchema,
  launchpadToggleInput,
  noInput,
  notificationsInput,
  notificationsSchema,
  orderProfileInput,
  orderProfileSchema,
  poolPreferencesInput,
  poolPreferencesSchema,
  riskPolicyInput,
  riskPolicySchema,
  tokenAddInput,
  tokenEntrySchema,
  tokenListQuery,
  tokenListSchema,
  tokenRemoveInput,
  tradeDefaultsInput,
  tradeDefaultsSchema,
  tradingConfigSchema,
  walletModeInput,
  walletModeSchema,
} from './trading-config.schemas.js';

const principals: readonly PrincipalKind[] = ['agent', 'bot', 'operator'];
/** Reads are `read`; edits that can only narrow or steer trading are `trade`; edits that loosen safety are `manage`. */
const strategy = { family: 'strategy', principals } as const;
const READ = { readOnly: true, idempotent: true } as const;
const SET = { readOnly: false, destructive: false, idempotent: true } as const;
const PARTIAL = 'Fields not given stay as they are; at least one is required.';
const CLEARABLE = '`null` clears an optional limit.';
const TOKEN_KEY =
  'A token is keyed by chain and address: a base58 address is a Solana mint (chain optional); an EVM address (0x…, stored ' +
  'EIP-55 checksummed) needs `chain`.';

/**
 * Strategy/configuration family (the trading routes config routes, 4.5): the trading
 * configuration of the agent or legacy bot the call acts on.
 */
export function tradingConfigOperations(config: StoreTradingConfig) {
  return [
    defineOperation({
      name: 'trading_config_get',
      description:
        'The whole trading configuration of this trading account: default order profile (auto-approval), trade defaults, ' +
        'risk policy, notifications, wallet mode, favorite and blacklisted tokens, DEX pool preferences and launchpads. ' +
        'An account that never changed anything answers with the defaults.',
      ...strategy,
      minScope: 'read',
      input: noInput,
      output: tradingConfigSchema,
      annotations: READ,
      handler: (ctx) => config.get(ctx.subject),
    }),
    defineOperation({
      name: 'trading_config_order_profile_get',
      description:
        'The default order profile: whether orders execute without approval, the USD size above which they still wait, and the default slippage.',
      ...strategy,
      minScope: 'read',
      input: noInput,
      output: orderProfileSchema,
      annotations: READ,
      handler: async (ctx) => (await config.get(ctx.subject)).defaultOrderProfile,
    }),
    defineOperation({
      name: 'trading_config_order_profile_set',
      description:
        'Update the default order profile: `autoApprove` (false: every order waits for approval), `approvalAboveUsd` ' +
        "(orders above it wait even with autoApprove), `slippageBps` (at most the risk policy's maxSlippageBps, else 422), " +
        `\`agentsMayApprove\` (true: the agent's own trade key may approve its held orders; default false). ${PARTIAL} ${CLEARABLE}`,
      ...strategy,
      minScope: 'manage',
      input: orderProfileInput,
      output: orderProfileSchema,
      annotations: SET,
      handler: (ctx, input) => config.updateOrderProfile(ctx.subject, input),
    }),
    defineOperation({
      name: 'trading_config_trade_defaults_set',
      description:
        'Update what a trade request that names none uses: `chain`, `slippageBps` (at most the risk policy maximum; it ' +
        "applies when tighter than the order profile's, which it can narrow but not widen) and " +
        `\`quoteToken\`, the token a buy spends (${QUOTE_TOKENS.solana.join(' or ')} on Solana; ${QUOTE_TOKENS.evm.join(', ')} on EVM chains). ${PARTIAL}`,
      ...strategy,
      minScope: 'trade',
      input: tradeDefaultsInput,
      output: tradeDefaultsSchema,
      annotations: SET,
      handler: (ctx, input) => config.updateTradeDefaults(ctx.subject, input),
    }),
    defineOperation({
      name: 'trading_config_risk_policy_set',
      description:
        'Update the risk policy every order is checked against: `maxOrderUsd`, `dailyVolumeUsd` (UTC day, at least maxOrderUsd), ' +
        '`maxSlippageBps` (not below the slippage of the order profile or trade defaults), `allowedChannels` and ' +
        `\`allowedSignalSources\` (absent: all allowed). ${PARTIAL} ${CLEARABLE}`,
      ...strategy,
      minScope: 'manage',
      input: riskPolicyInput,
      output: riskPolicySchema,
      annotations: SET,
      handler: (ctx, input) => config.updateRiskPolicy(ctx.subject, input),
    }),
    defineOperation({
      name: 'trading_config_notifications_set',
      description: `Update which trading notifications are sent (orderFilled, orderFailed, approvalRequired, dca) and to which channels (e.g. \`sse\`). ${PARTIAL}`,
      ...strategy,
      minScope: 'trade',
      input: notificationsInput,
      output: notificationsSchema,
      annotations: SET,
      handler: (ctx, input) => config.updateNotifications(ctx.subject, input),
    }),
    defineOperation({
      name: 'trading_config_wallet_mode_set',
      description: 'Set the wallet mode: `custodial` (the service signs), `external` or `delegate`.',
      ...strategy,
      minScope: 'manage',
      input: walletModeInput,
      output: walletModeSchema,
      annotations: SET,
      handler: async (ctx, input) => ({ walletMode: await config.setWalletMode(ctx.subject, input.walletMode) }),
    }),
    ...tokenListOperations(config, 'favorites', 'favorite tokens'),
    ...tokenListOperations(config, 'blacklist', 'blacklist (tokens the safety path never trades)'),
    defineOperation({
      name: 'trading_config_pool_preferences_set',
      description:
        'Update DEX pool preferences: `preferredDexes` and `excludedDexes` (names, case-insensitive, never both), and ' +
        `\`minLiquidityUsd\` (pools with less are not routed through). ${PARTIAL}`,
      ...strategy,
      minScope: 'trade',
      input: poolPreferencesInput,
      output: poolPreferencesSchema,
      annotations: SET,
      handler: (ctx, input) => config.updatePoolPreferences(ctx.subject, input),
    }),
    defineOperation({
      name: 'trading_config_launchpad_toggle',
      description: `Enable or disable a launchpad integration (${KNOWN_LAUNCHPADS.join(', ')}); without \`enabled\` it flips.`,
      ...strategy,
      minScope: 'trade',
      input: launchpadToggleInput,
      output: launchpadSchema,
      // Flipping is not idempotent; setting `enabled` is.
      annotations: { readOnly: false, destructive: false, idempotent: false },
      handler: (ctx, input) => config.toggleLaunchpad(ctx.subject, input.type, input.enabled),
    }),
    defineOperation({
      name: 'trading_config_launchpad_priority_set',
      description: `Set a launchpad's priority, 1 (tried first) to ${TRADING_CONFIG_LIMITS.maxLaunchpadPriority}.`,
      ...strategy,
      minScope: 'trade',
      input: launchpadPriorityInput,
      output: launchpadSchema,
      annotations: SET,
      handler: (ctx, input) => config.setLaunchpadPriority(ctx.subject, input.type, input.priority),
    }),
  ];
}

/** List, add and remove of one token list (`trading_config_<list>_list|add|remove`). */
function tokenListOperations(config: StoreTradingConfig, list: TokenList, what: string) {
  return [
    defineOperation({
      name: `trading_config_${list}_list`,
      description: `The ${what} of this trading account, in the order they were added; \`chain\` filters.`,
      ...strategy,
      minScope: 'read',
      input: tokenListQuery,
      output: tokenListSchema,
      annotations: READ,
      handler: async (ctx, input) =>
        pageOfList(await config.listTokens(ctx.subject, list, input.chain), (entry, index) => insertionKey(entry.addedAt, index), input),
    }),
    defineOperation({
      name: `trading_config_${list}_add`,
      description:
        `Add a token to the ${what}; adding one already listed changes nothing and returns its entry. ${TOKEN_KEY}` +
        (list === 'blacklist' ? ' A blacklisted favorite leaves the favorites.' : ' A blacklisted token cannot be a favorite (422).'),
      ...strategy,
      minScope: 'trade',
      input: tokenAddInput,
      output: tokenEntrySchema,
      annotations: SET,
      handler: (ctx, input) => config.addToken(ctx.subject, list, input),
    }),
    defineOperation({
      name: `trading_config_${list}_remove`,
      description: `Remove a token from the ${what} and return its entry; 404 when it is not listed. ${TOKEN_KEY}`,
      ...strategy,
      // Taking a token off the blacklist loosens safety: the agent's own trade key must not.
      minScope: list === 'blacklist' ? 'manage' : 'trade',
      input: tokenRemoveInput,
      output: tokenEntrySchema,
      annotations: { readOnly: false, destructive: true, idempotent: false },
      handler: (ctx, input) => config.removeToken(ctx.subject, list, input),
    }),
  ];
}
