import { z } from 'zod';
import { CHAIN_WORDS } from '../../../kernel/vocabulary/chains.js';
import {
  KNOWN_LAUNCHPADS,
  QUOTE_TOKENS,
  TOKEN_ADDRESS_SHAPE,
  TRADING_CONFIG_LIMITS,
  tokenRefProblem,
} from '../../../agents/config/trading-config.rules.js';
import type { TradeChannel, TradingConfig, WalletMode } from '../../../agents/config/trading-config.types.js';
import { WHOLE_MESSAGE } from '../../../kernel/errors/validation-messages.js';
import { CHAINS, type Chain } from '../../../kernel/ports/venue.port.js';
import { pageFields, pageSchema } from './list-paging.js';

/**
 * Wire schemas of the trading configuration operations. Inputs are strict (an unknown
 * field is a 400 naming it); section updates are partial, `null` clearing an optional limit.
 */

const TRADE_CHANNELS = [
  'rest',
  'mcp',
  'command',
  'dca',
  'ask_bot',
  'chat',
  'telegram',
  'discord',
  'widget',
] as const satisfies readonly TradeChannel[];
const WALLET_MODES = ['custodial', 'external', 'delegate'] as const satisfies readonly WalletMode[];

const chainSchema = z.enum(CHAINS);
const bps = z.number().int().min(1).max(TRADING_CONFIG_LIMITS.maxSlippageBps);
const BPS = `basis points (100 = 1 %), 1-${TRADING_CONFIG_LIMITS.maxSlippageBps}`;
/** USD amounts: positive, finite (zod refuses Infinity), bounded far above any real order. */
const usd = z.number().positive().max(1e12);
const USD = 'in US dollars, a JSON number greater than 0 (at most 1e12)';
const address = z
  .string()
  .regex(TOKEN_ADDRESS_SHAPE, 'must be a Solana mint (base58) or an EVM address (0x and 40 hex digits)')
  .describe("The token's address: a Solana mint (base58) or an EVM contract (0x and 40 hex digits).");
const label = (max: number) =>
  z.string().regex(new RegExp(`^[A-Za-z0-9][A-Za-z0-9 ._-]{0,${max - 1}}$`), `must be 1-${max} letters, digits, spaces, . _ -`);
const launchpadType = z
  .string()
  .min(1)
  .max(64)
  .describe(`The launchpad: ${KNOWN_LAUNCHPADS.join(', ')}.`);
/** `chain` of a token list entry (the output's `chain` is the same enum, undescribed). */
const tokenChain = chainSchema
  .optional()
  .describe(`Chain of the token: ${CHAIN_WORDS}; may be omitted for a Solana mint, required with a 0x address.`);

/** An empty update is a caller's mistake (a typo'd field is refused as unknown before this runs). */
const atLeastOneField = (value: object) => Object.keys(value).length > 0;
const NO_FIELD = 'at least one field is required';

// ---- outputs ----

export const orderProfileSchema = z.object({
  autoApprove: z.boolean(),
  approvalAboveUsd: z.number().optional(),
  slippageBps: z.number().int(),
  agentsMayApprove: z.boolean(),
});
export const tradeDefaultsSchema = z.object({ chain: chainSchema, slippageBps: z.number().int(), quoteToken: z.string() });
export const riskPolicySchema = z.object({
  maxOrderUsd: z.number().optional(),
  dailyVolumeUsd: z.number().optional(),
  maxSlippageBps: z.number().int(),
  allowedChannels: z.array(z.enum(TRADE_CHANNELS)).optional(),
  allowedSignalSources: z.array(z.string()).optional(),
});
export const notificationsSchema = z.object({
  orderFilled: z.boolean(),
  orderFailed: z.boolean(),
  approvalRequired: z.boolean(),
  dca: z.boolean(),
  channels: z.array(z.string()),
});
export const walletModeSchema = z.object({ walletMode: z.enum(WALLET_MODES) });
export const tokenEntrySchema = z.object({ chain: chainSchema, address: z.string(), symbol: z.string().optional(), addedAt: z.string() });
export const tokenListSchema = pageSchema(tokenEntrySchema);
export const poolPreferencesSchema = z.object({
  preferredDexes: z.array(z.string()),
  excludedDexes: z.array(z.string()),
  minLiquidityUsd: z.number(),
});
export const launchpadSchema = z.object({ type: z.string(), enabled: z.boolean(), priority: z.number().int() });
export const tradingConfigSchema = z.object({
  defaultOrderProfile: orderProfileSchema,
  tradeDefaults: tradeDefaultsSchema,
  riskPolicy: riskPolicySchema,
  notifications: notificationsSchema,
  walletMode: z.enum(WALLET_MODES),
  favorites: z.array(tokenEntrySchema),
  blacklist: z.array(tokenEntrySchema),
  poolPreferences: poolPreferencesSchema,
  launchpads: z.array(launchpadSchema),
  updatedAt: z.string(),
  // A field added to the domain type fails the build until the wire schema shows it too.
}) satisfies z.ZodType<TradingConfig>;

// ---- inputs ----

export const noInput = z.object({}).strict();

export const orderProfileInput = z
  .object({
    autoApprove: z
      .boolean()
      .optional()
      .describe('true: orders execute without approval (up to approvalAboveUsd); false: every order waits in `pending_approval`.'),
    approvalAboveUsd: usd
      .nullable()
      .optional()
      .describe(`Orders worth more than this wait for approval even with autoApprove, ${USD}; null removes the threshold.`),
    slippageBps: bps.optional().describe(`Default slippage tolerance of orders, ${BPS}; at most the risk policy's maxSlippageBps.`),
    agentsMayApprove: z
      .boolean()
      .optional()
      .describe(
        "true: the agent's own `trade` key may approve its held orders and strategies; false: approving takes a `manage` key or the owner.",
      ),
  })
  .strict()
  .refine(atLeastOneField, NO_FIELD);

export const tradeDefaultsInput = z
  .object({
    chain: chainSchema.optional().describe(`Chain of a trade or research that names none: ${CHAIN_WORDS}.`),
    slippageBps: bps
      .optional()
      .describe(
        `Slippage tolerance of a trade that names none, ${BPS}; the tighter of this and the order profile's applies; at most the risk policy's maxSlippageBps.`,
      ),
    quoteToken: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,16}$/, 'must be a token symbol')
      .optional()
      .describe(
        `The token a buy spends, by symbol: ${QUOTE_TOKENS.solana.join(' or ')} on Solana; ${QUOTE_TOKENS.evm.join(', ')} on EVM chains.`,
      ),
  })
  .strict()
  .refine(atLeastOneField, NO_FIELD);

export const riskPolicyInput = z
  .object({
    maxOrderUsd: usd.nullable().optional().describe(`Largest order allowed, ${USD}; null removes the limit.`),
    dailyVolumeUsd: usd.nullable().optional().describe(`Most traded per UTC day, ${USD}, at least maxOrderUsd; null removes the limit.`),
    maxSlippageBps: bps
      .optional()
      .describe(`Highest slippage tolerance a trade may use, ${BPS}; not below the slippageBps of the order profile or trade defaults.`),
    /** Empty: no channel may trade (a freeze that keeps the agent readable). */
    allowedChannels: z
      .array(z.enum(TRADE_CHANNELS))
      .max(TRADE_CHANNELS.length * 2)
      .nullable()
      .optional()
      .describe(
        `Channels that may trade (${TRADE_CHANNELS.join(', ')}); [] lets none trade (a freeze that keeps the agent readable); null allows every channel.`,
      ),
    allowedSignalSources: z
      .array(z.string().min(1).max(64))
      .max(50)
      .nullable()
      .optional()
      .describe(
        'Signal sources a trade must name one of (its `signalSource`; up to 50, 1-64 characters each): a trade naming another or none is refused; null allows any.',
      ),
  })
  .strict()
  .refine(atLeastOneField, NO_FIELD);

export const notificationsInput = z
  .object({
    orderFilled: z.boolean().optional().describe('Notify when an order is filled.'),
    orderFailed: z.boolean().optional().describe('Notify when an order fails.'),
    approvalRequired: z.boolean().optional().describe('Notify when an order or a DCA strategy waits for approval.'),
    dca: z.boolean().optional().describe('Notify about DCA strategies (buys, failures, completion).'),
    channels: z
      .array(z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'must be a lower-case channel name such as sse'))
      .max(10)
      .optional()
      .describe('Where notifications go: up to 10 lower-case channel names, e.g. `sse` (the event stream of the agent).'),
  })
  .strict()
  .refine(atLeastOneField, NO_FIELD);

export const walletModeInput = z
  .object({
    walletMode: z
      .enum(WALLET_MODES)
      .describe(
        '`custodial` (the service keeps the keys and signs), `external` (your own wallets, connected by address) or `delegate` (custodial wallets under a spending cap).',
      ),
  })
  .strict();

export const poolPreferencesInput = z
  .object({
    preferredDexes: z
      .array(label(40))
      .max(50)
      .optional()
      .describe(
        'DEXes to route through first, by name (case-insensitive; 1-40 letters, digits, spaces, . _ -), up to 50; none may also be excluded.',
      ),
    excludedDexes: z
      .array(label(40))
      .max(50)
      .optional()
      .describe(
        'DEXes never routed through, by name (case-insensitive; 1-40 letters, digits, spaces, . _ -), up to 50; none may also be preferred.',
      ),
    minLiquidityUsd: z
      .number()
      .min(0)
      .max(1e12)
      .optional()
      .describe('Pools with less liquidity than this are not routed through, in US dollars, a JSON number from 0 to 1e12.'),
  })
  .strict()
  .refine(atLeastOneField, NO_FIELD);

export const tokenListQuery = z
  .object({
    chain: chainSchema.optional().describe(`Only tokens of this chain: ${CHAIN_WORDS}; default: every chain.`),
    ...pageFields,
  })
  .strict();
/**
 * Whether the address fits the chain is checked here too, so that it is listed with the
 * body's other problems (the service checks again; the words are the same).
 */
function checkTokenRef(value: { address?: unknown; chain?: unknown }, ctx: z.RefinementCtx): void {
  if (typeof value.address !== 'string' || !TOKEN_ADDRESS_SHAPE.test(value.address)) return;
  if (value.chain !== undefined && !(CHAINS as readonly unknown[]).includes(value.chain)) return;
  const problem = tokenRefProblem(value.address, value.chain as Chain | undefined);
  if (problem) ctx.addIssue({ code: 'custom', message: problem, params: { [WHOLE_MESSAGE]: true } });
}

export const tokenAddInput = z
  .object({
    chain: tokenChain,
    address,
    symbol: label(32).optional().describe('A symbol to show with the entry (1-32 letters, digits, spaces, . _ -); optional.'),
  })
  .strict()
  .superRefine(checkTokenRef);
/** `address` comes from the path, `chain` from the query string (needed for EVM addresses). */
export const tokenRemoveInput = z.object({ address, chain: tokenChain }).strict().superRefine(checkTokenRef);

export const launchpadToggleInput = z
  .object({
    type: launchpadType,
    enabled: z.boolean().optional().describe('true enables it, false disables it; omit to flip the current setting.'),
  })
  .strict();
export const launchpadPriorityInput = z
  .object({
    type: launchpadType,
    priority: z
      .number()
      .int()
      .min(1)
      .max(TRADING_CONFIG_LIMITS.maxLaunchpadPriority)
      .describe(`Priority, 1 (tried first) to ${TRADING_CONFIG_LIMITS.maxLaunchpadPriority}.`),
  })
  .strict();
