import { AppError } from '../../kernel/errors/app-error.js';
import { invalidAddress, parseEvmAddress, parseSolanaAddress } from '../../kernel/vocabulary/chain-address.js';
import { walletChainOf, type Chain, type WalletChain } from '../../kernel/ports/venue.port.js';
import type { OrderProfile, TokenListEntry, TradingConfig, WalletMode } from './trading-config.types.js';
import type { WalletKind } from '../wallets/wallet.types.js';
import type { KeyScope } from '../../kernel/vocabulary/scopes.js';
import { formatUsd } from '../../kernel/vocabulary/amounts.js';

/**
 * The rules of a trading configuration that no schema can express alone: its defaults,
 * how token addresses are keyed per chain, and the consistency of one section with another.
 */

/** Launchpads the service knows, in default priority order (priority 1 is tried first). */
export const KNOWN_LAUNCHPADS = ['pumpfun', 'letsbonk', 'raydium_launchlab', 'moonshot'] as const;

/** Tokens a `buy X` may spend by default, per wallet family; Solana's are the spendable-token constraint. */
export const QUOTE_TOKENS: Readonly<Record<WalletChain, readonly string[]>> = {
  solana: ['SOL', 'USDC'],
  evm: ['ETH', 'WETH', 'USDC', 'USDT', 'DAI'],
};

/** The quote tokens of `chain`'s family (trade defaults must name one). */
export function quoteTokensOn(chain: Chain): readonly string[] {
  return QUOTE_TOKENS[walletChainOf(chain)];
}

/** Bounds shared by the service and the operation schemas. */
export const TRADING_CONFIG_LIMITS = {
  /** 50 %: beyond that a "tolerance" is a gift to sandwich bots. */
  maxSlippageBps: 5000,
  /** Entries per favorites or blacklist: one document holds the whole configuration. */
  maxTokenListEntries: 500,
  maxLaunchpadPriority: 100,
} as const;

/**
 * What an account trades with before its owner changes anything: orders execute without
 * approval up to 10,000 USD (a larger one waits, the guard against a runaway agent),
 * 1 % slippage under a 5 % ceiling, Solana with SOL as the quote token (the native coin,
 * which fees need anyway), every notification to the SSE stream, a custodial wallet,
 * pools under 1,000 USD of liquidity skipped, and every known launchpad enabled.
 */
export function defaultTradingConfig(updatedAt: string): TradingConfig {
  return {
    defaultOrderProfile: { autoApprove: true, approvalAboveUsd: 10_000, slippageBps: 100, agentsMayApprove: false },
    tradeDefaults: { chain: 'solana', slippageBps: 100, quoteToken: 'SOL' },
    riskPolicy: { maxSlippageBps: 500 },
    notifications: { orderFilled: true, orderFailed: true, approvalRequired: true, dca: true, channels: ['sse'] },
    walletMode: 'custodial',
    favorites: [],
    blacklist: [],
    poolPreferences: { preferredDexes: [], excludedDexes: [], minLiquidityUsd: 1_000 },
    launchpads: KNOWN_LAUNCHPADS.map((type, index) => ({ type, enabled: true, priority: index + 1 })),
    updatedAt,
  };
}

/**
 * The wallets a trade may sign with under a wallet mode: `custodial` (the default) any
 * wallet the service holds the key of; `delegate` only delegate wallets, so their spending
 * caps bind every trade (a trade key cannot name or default to an uncapped wallet);
 * `external` none: the owner signs elsewhere, and a trade here is refused as needing a
 * custodial wallet.
 */
export function signingKinds(mode: WalletMode): readonly WalletKind[] {
  return mode === 'delegate' ? ['delegate'] : mode === 'external' ? [] : ['custodial', 'delegate'];
}

/**
 * The order profile's approval rule, for orders and for DCA strategies alike: a trade waits
 * for approval when auto-approval is off, or when it is worth more than the approval size,
 * or when its USD value is unknown while there is an approval size (it cannot be shown to be under it).
 */
export function approvalHolds(
  profile: Pick<OrderProfile, 'autoApprove' | 'approvalAboveUsd'>,
  trade: { valueUsd: number; inputPriceUsd: number },
): boolean {
  const overSize = profile.approvalAboveUsd !== undefined && (trade.inputPriceUsd <= 0 || trade.valueUsd > profile.approvalAboveUsd);
  return !profile.autoApprove || overSize;
}

/** Why the approval rule holds a trade of this value, in words. */
export function approvalReason(
  profile: Pick<OrderProfile, 'autoApprove' | 'approvalAboveUsd'>,
  valueUsd: number,
  inputPriceUsd: number,
): string {
  if (!profile.autoApprove) return 'the order profile approves no trade automatically (autoApprove off)';
  if (inputPriceUsd <= 0) return `the USD value of a buy is unknown and the approval size is $${profile.approvalAboveUsd}`;
  return `a buy of $${formatUsd(valueUsd)} is over the approval size of $${profile.approvalAboveUsd}`;
}

/**
 * Who may approve what the rule held: the owner (a session acts with `manage`) or a `manage`
 * key; a `trade` key only when the profile says `agentsMayApprove`, else holding an agent's
 * trades for approval would not hold back the agent that placed them.
 */
export function mayApprove(profile: Pick<OrderProfile, 'agentsMayApprove'>, approver: KeyScope): boolean {
  return approver === 'manage' || (approver === 'trade' && profile.agentsMayApprove);
}

/**
 * The slippage of a request that names none: the tighter of the two defaults. The trade
 * defaults (which a trade key may set) can narrow the owner's order profile, never widen it.
 * A quote uses it too, so it shows the minimum the same swap would accept.
 */
export function defaultSlippageBps(config: Pick<TradingConfig, 'tradeDefaults' | 'defaultOrderProfile'>): number {
  return Math.min(config.tradeDefaults.slippageBps, config.defaultOrderProfile.slippageBps);
}

/**
 * A stored configuration completed with defaults for sections it lacks. Sections are taken
 * whole (merging inside one would bring back a limit its owner cleared); launchpads follow
 * the known list, so a launchpad added to the service appears with its default setting.
 */
export function withDefaults(stored: Partial<TradingConfig>, now: string): TradingConfig {
  const base = defaultTradingConfig(now);
  const launchpads = base.launchpads.map((pad) => stored.launchpads?.find((saved) => saved.type === pad.type) ?? pad);
  const merged = { ...base, ...stored, launchpads };
  // A profile stored before `agentsMayApprove` existed takes its default (and only that: a
  // cleared approval size must stay cleared).
  const profile: Partial<OrderProfile> = merged.defaultOrderProfile;
  return { ...merged, defaultOrderProfile: { ...merged.defaultOrderProfile, agentsMayApprove: profile.agentsMayApprove ?? false } };
}

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** Either address family; which one a chain takes is checked by `tokenRef`. */
export const TOKEN_ADDRESS_SHAPE = /^(0x[0-9a-fA-F]{40}|[1-9A-HJ-NP-Za-km-z]{32,44})$/;

/**
 * The (chain, address) key of a listed token: a Solana mint as given, an EVM address
 * checksummed (EIP-55). Without `chain`, a base58 address means Solana; an EVM address
 * needs the chain, because one address names different tokens on different chains.
 * Throws a 400 validation error naming the problem (see `tokenRefProblem`).
 */
export function tokenRef(address: string, chain?: Chain): { chain: Chain; address: string } {
  const problem = tokenRefProblem(address, chain);
  if (problem) throw AppError.validation([problem]);
  if (address.startsWith('0x')) return { chain: chain!, address: parseEvmAddress(address)! };
  return { chain: chain ?? 'solana', address };
}

/** Why (address, chain) names no listable token, or undefined when it does. */
export function tokenRefProblem(address: string, chain?: Chain): string | undefined {
  if (address.startsWith('0x')) {
    if (chain === undefined) return 'chain is required for an EVM address';
    if (chain === 'solana') return 'address must be a Solana mint (base58, 32 bytes) on solana';
    if (!EVM_ADDRESS.test(address)) return 'address must be an EVM address (0x and 40 hex digits)';
    // Mixed case is a checksum claim (EIP-55): a wrong one is a typo, never silently fixed.
    if (!parseEvmAddress(address)) return invalidAddress('address', chain);
    return undefined;
  }
  const target = chain ?? 'solana';
  if (target !== 'solana') return `address must be an EVM address (0x and 40 hex digits) on ${target}`;
  if (!parseSolanaAddress(address)) return 'address must be a Solana mint (base58, 32 bytes)';
  return undefined;
}

/** True when `entry` is the token (chain, address); EVM addresses compare without case. */
export function isSameToken(entry: Pick<TokenListEntry, 'chain' | 'address'>, chain: Chain, address: string): boolean {
  if (entry.chain !== chain) return false;
  return chain === 'solana' ? entry.address === address : entry.address.toLowerCase() === address.toLowerCase();
}

/**
 * Where one section contradicts another. Each message names both fields and the values,
 * so a caller knows which one to change.
 */
export function configProblems(config: TradingConfig): string[] {
  const problems: string[] = [];
  const { maxSlippageBps, maxOrderUsd, dailyVolumeUsd } = config.riskPolicy;
  for (const [name, slippage] of [
    ['defaultOrderProfile.slippageBps', config.defaultOrderProfile.slippageBps],
    ['tradeDefaults.slippageBps', config.tradeDefaults.slippageBps],
  ] as const) {
    if (slippage > maxSlippageBps) problems.push(`${name} ${slippage} exceeds riskPolicy.maxSlippageBps ${maxSlippageBps}`);
  }
  if (maxOrderUsd !== undefined && dailyVolumeUsd !== undefined && dailyVolumeUsd < maxOrderUsd) {
    problems.push(`riskPolicy.dailyVolumeUsd ${dailyVolumeUsd} is below riskPolicy.maxOrderUsd ${maxOrderUsd}`);
  }
  const { chain, quoteToken } = config.tradeDefaults;
  const quotes = quoteTokensOn(chain);
  if (!quotes.includes(quoteToken))
    problems.push(`tradeDefaults.quoteToken ${quoteToken} is not a quote token on ${chain} (${quotes.join(', ')})`);
  const excluded = new Set(config.poolPreferences.excludedDexes);
  const both = config.poolPreferences.preferredDexes.filter((dex) => excluded.has(dex));
  if (both.length > 0) problems.push(`poolPreferences lists ${both.join(', ')} as both preferred and excluded`);
  for (const favorite of config.favorites) {
    if (config.blacklist.some((banned) => isSameToken(banned, favorite.chain, favorite.address))) {
      problems.push(`favorites: ${favorite.address} on ${favorite.chain} is blacklisted`);
    }
  }
  return problems;
}

/** 422: the change is well-formed but contradicts the rest of the configuration. */
export function inconsistentConfig(problems: string[]): AppError {
  return new AppError('VALIDATION_ERROR', problems.join('; '), { kind: 'unprocessable', details: { problems } });
}
