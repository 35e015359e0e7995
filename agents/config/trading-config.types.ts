import type { Chain } from '../../kernel/ports/venue.port.js';
import type { TradingSubject } from '../portfolio/portfolio.types.js';

/**
 * An agent's trading configuration (the trading routes "trading config"): what the safety
 * path reads before every order. Stored per trading account (agent or legacy bot).
 */

/** Decides whether a new order waits for approval (the order states). */
export interface OrderProfile {
  /** true: orders execute without approval, unless above `approvalAboveUsd`. */
  autoApprove: boolean;
  /** Orders worth more than this (USD) wait for approval even with `autoApprove`; absent = no size rule. */
  approvalAboveUsd?: number;
  /** Slippage used when a request names none, unless the trade defaults' is tighter (the tighter applies). */
  slippageBps: number;
  /**
   * Whether the agent's own `trade` key may approve its held orders (authentication: trade scope
   * approves "as policy allows"). Off by default: approval is for a `manage` key or the owner,
   * else holding orders for approval would not hold back the agent that placed them.
   */
  agentsMayApprove: boolean;
}

export interface TradeDefaults {
  /** Chain of a command that names none. */
  chain: Chain;
  /** Slippage of a request that names none, when tighter than the order profile's (it can narrow, not widen). */
  slippageBps: number;
  /** Token a `buy X` spends when it names none (symbol), e.g. `SOL` or `USDC`. */
  quoteToken: string;
}

/**
 * Where a trade request came from; the risk policy can allow only some. `chat` is a legacy
 * bot's web chat, `telegram` and `discord` its platform connectors.
 */
export type TradeChannel = 'rest' | 'mcp' | 'command' | 'dca' | 'ask_bot' | 'chat' | 'telegram' | 'discord' | 'widget';

export interface RiskPolicy {
  /** Largest single order in USD; absent = no limit. */
  maxOrderUsd?: number;
  /** Sum of orders executed in the current UTC day, USD; absent = no limit. */
  dailyVolumeUsd?: number;
  /** Largest slippage tolerance a request may ask for. */
  maxSlippageBps: number;
  /** Channels allowed to trade; absent = all. */
  allowedChannels?: TradeChannel[];
  /** Signal sources (free-form labels a caller sends as `signalSource`) allowed; absent = all. */
  allowedSignalSources?: string[];
}

export interface NotificationConfig {
  orderFilled: boolean;
  orderFailed: boolean;
  approvalRequired: boolean;
  dca: boolean;
  /** Where notifications go, e.g. `sse`, `telegram`. */
  channels: string[];
}

export type WalletMode = 'custodial' | 'external' | 'delegate';

export interface TokenListEntry {
  chain: Chain;
  address: string;
  symbol?: string;
  addedAt: string;
}

export interface PoolPreferences {
  /** DEXes preferred for routing, by name. */
  preferredDexes: string[];
  excludedDexes: string[];
  /** Pools below this liquidity (USD) are not routed through. */
  minLiquidityUsd: number;
}

export interface LaunchpadSetting {
  type: string;
  enabled: boolean;
  /** 1 = tried first. */
  priority: number;
}

export interface TradingConfig {
  defaultOrderProfile: OrderProfile;
  tradeDefaults: TradeDefaults;
  riskPolicy: RiskPolicy;
  notifications: NotificationConfig;
  walletMode: WalletMode;
  favorites: TokenListEntry[];
  blacklist: TokenListEntry[];
  poolPreferences: PoolPreferences;
  launchpads: LaunchpadSetting[];
  updatedAt: string;
}

/** What the safety path reads; implemented over the store by the trading config service. */
export interface TradingConfigReader {
  /** The stored configuration, or the defaults when none was saved yet. */
  get(subject: TradingSubject): Promise<TradingConfig>;
}

/** Per-chain trading kill switch, set by operators of the service (not by agent owners). */
export interface KillSwitch {
  isActive(chain: Chain): Promise<boolean>;
  /** Chains whose switch is on. */
  active(): Promise<Chain[]>;
}
