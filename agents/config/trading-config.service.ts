import { AppError } from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { CollectionSpec, StorePort } from '../../kernel/ports/store.port.js';
import type { Chain } from '../../kernel/ports/venue.port.js';
import { updateRecord } from '../../kernel/shared/record-update.js';
import type { TradingSubject } from '../portfolio/portfolio.types.js';
import { subjectKey } from '../portfolio/portfolio.records.js';
import {
  TRADING_CONFIG_LIMITS,
  configProblems,
  defaultTradingConfig,
  inconsistentConfig,
  isSameToken,
  tokenRef,
  withDefaults,
} from './trading-config.rules.js';
import type {
  LaunchpadSetting,
  NotificationConfig,
  OrderProfile,
  PoolPreferences,
  RiskPolicy,
  TokenListEntry,
  TradeDefaults,
  TradingConfig,
  TradingConfigReader,
  WalletMode,
} from './trading-config.types.js';

/** One document per trading account, id = `subjectKey(subject)`, indexed by `subject`. */
export const TRADING_CONFIG_COLLECTION = 'trading.config';
export const TRADING_CONFIG_COLLECTIONS: CollectionSpec[] = [{ name: TRADING_CONFIG_COLLECTION, indexes: ['subject'] }];

/** A section update: given fields replace, absent ones stay, `null` clears an optional limit. */
export type Patch<T> = { [K in keyof T]?: undefined extends T[K] ? T[K] | null : T[K] };

/** The two token lists of a configuration, by their field name. */
export type TokenList = 'favorites' | 'blacklist';
/** A token to list or unlist; without `chain` a base58 address means Solana (see `tokenRef`). */
export interface TokenInput {
  chain?: Chain;
  address: string;
  symbol?: string;
}

export interface TradingConfigDeps {
  store: StorePort;
  clock: ClockPort;
  /** Read-modify-write attempts per update before the 409 `Concurrent updates to ...`; default `updateRecord`'s. */
  maxAttempts?: number;
}

/** What a change to the configuration does: the result, and the new configuration to write (absent: nothing to write). */
interface Change<R> {
  result: R;
  next?: TradingConfig;
}

/**
 * Trading configuration of agents and legacy bots over the store. Every update is a
 * read-modify-write with compare-and-set, retried on a version conflict, so concurrent
 * updates of one account never lose each other. Changes are audited by the invoker that
 * calls them; nothing is published on the bus.
 */
export class StoreTradingConfig implements TradingConfigReader {
  constructor(private readonly deps: TradingConfigDeps) {}

  async get(subject: TradingSubject): Promise<TradingConfig> {
    const doc = await this.deps.store.get<Partial<TradingConfig>>(TRADING_CONFIG_COLLECTION, subjectKey(subject));
    return doc ? withDefaults(doc.data, this.now()) : defaultTradingConfig(this.now());
  }

  updateOrderProfile(subject: TradingSubject, patch: Patch<OrderProfile>): Promise<OrderProfile> {
    return this.change(subject, (config) => section(config, 'defaultOrderProfile', applyPatch(config.defaultOrderProfile, patch)));
  }

  updateTradeDefaults(subject: TradingSubject, patch: Patch<TradeDefaults>): Promise<TradeDefaults> {
    // Symbols are matched without case by venues; one spelling keeps the quote-token rule simple.
    const normalized = patch.quoteToken ? { ...patch, quoteToken: patch.quoteToken.toUpperCase() } : patch;
    return this.change(subject, (config) => section(config, 'tradeDefaults', applyPatch(config.tradeDefaults, normalized)));
  }

  updateRiskPolicy(subject: TradingSubject, patch: Patch<RiskPolicy>): Promise<RiskPolicy> {
    const normalized = {
      ...patch,
      ...(patch.allowedChannels ? { allowedChannels: unique(patch.allowedChannels) } : {}),
      ...(patch.allowedSignalSources ? { allowedSignalSources: unique(patch.allowedSignalSources) } : {}),
    };
    return this.change(subject, (config) => section(config, 'riskPolicy', applyPatch(config.riskPolicy, normalized)));
  }

  updateNotifications(subject: TradingSubject, patch: Patch<NotificationConfig>): Promise<NotificationConfig> {
    const normalized = patch.channels ? { ...patch, channels: unique(patch.channels) } : patch;
    return this.change(subject, (config) => section(config, 'notifications', applyPatch(config.notifications, normalized)));
  }

  setWalletMode(subject: TradingSubject, walletMode: WalletMode): Promise<WalletMode> {
    return this.change(subject, (config) => ({ result: walletMode, next: { ...config, walletMode } }));
  }

  updatePoolPreferences(subject: TradingSubject, patch: Patch<PoolPreferences>): Promise<PoolPreferences> {
    // DEX names are identifiers: one case, no repeats, so "Raydium" and "raydium" are one DEX.
    const dexes = (names: string[] | undefined) => (names ? unique(names.map((name) => name.toLowerCase())) : undefined);
    const preferredDexes = dexes(patch.preferredDexes);
    const excludedDexes = dexes(patch.excludedDexes);
    const normalized = { ...patch, ...(preferredDexes ? { preferredDexes } : {}), ...(excludedDexes ? { excludedDexes } : {}) };
    return this.change(subject, (config) => section(config, 'poolPreferences', applyPatch(config.poolPreferences, normalized)));
  }

  /** Entries of a list, optionally of one chain, in the order they were added. */
  async listTokens(subject: TradingSubject, list: TokenList, chain?: Chain): Promise<TokenListEntry[]> {
    const entries = (await this.get(subject))[list];
    return chain === undefined ? entries : entries.filter((entry) => entry.chain === chain);
  }

  /**
   * Adds a token; a token already listed is returned unchanged (idempotent). Blacklisting a
   * favorite removes it from favorites (safety wins); a blacklisted token cannot become a
   * favorite (422). A full list is 422 too.
   */
  async addToken(subject: TradingSubject, list: TokenList, token: TokenInput): Promise<TokenListEntry> {
    const ref = tokenRef(token.address, token.chain);
    return this.change(subject, (config) => {
      const existing = config[list].find((entry) => isSameToken(entry, ref.chain, ref.address));
      if (existing) return { result: existing };
      if (config[list].length >= TRADING_CONFIG_LIMITS.maxTokenListEntries) {
        throw inconsistentConfig([`${list} is full (${TRADING_CONFIG_LIMITS.maxTokenListEntries} tokens): remove one first`]);
      }
      const entry: TokenListEntry = { ...ref, ...(token.symbol ? { symbol: token.symbol } : {}), addedAt: this.now() };
      const next = { ...config, [list]: [...config[list], entry] };
      if (list === 'blacklist') next.favorites = config.favorites.filter((favorite) => !isSameToken(favorite, ref.chain, ref.address));
      return { result: entry, next };
    });
  }

  /** Removes a token and returns its entry; 404 `Token not in favorites` / `Token not in blacklist` when absent. */
  async removeToken(subject: TradingSubject, list: TokenList, token: Omit<TokenInput, 'symbol'>): Promise<TokenListEntry> {
    const ref = tokenRef(token.address, token.chain);
    return this.change(subject, (config) => {
      const existing = config[list].find((entry) => isSameToken(entry, ref.chain, ref.address));
      if (!existing) throw AppError.notFound(`Token not in ${list}`);
      return { result: existing, next: { ...config, [list]: config[list].filter((entry) => entry !== existing) } };
    });
  }

  /** Sets a launchpad on or off; without `enabled` it flips. 404 `Launchpad not found: <type>`. */
  toggleLaunchpad(subject: TradingSubject, type: string, enabled?: boolean): Promise<LaunchpadSetting> {
    return this.changeLaunchpad(subject, type, (pad) => ({ ...pad, enabled: enabled ?? !pad.enabled }));
  }

  /** Sets a launchpad's priority (1 is tried first). 404 `Launchpad not found: <type>`. */
  setLaunchpadPriority(subject: TradingSubject, type: string, priority: number): Promise<LaunchpadSetting> {
    return this.changeLaunchpad(subject, type, (pad) => ({ ...pad, priority }));
  }

  /**
   * For the safety path: one read, no defaults built. The address may come in any case on
   * EVM chains (the list stores checksummed addresses).
   */
  async isBlacklisted(subject: TradingSubject, chain: Chain, address: string): Promise<boolean> {
    const doc = await this.deps.store.get<Partial<TradingConfig>>(TRADING_CONFIG_COLLECTION, subjectKey(subject));
    return (doc?.data.blacklist ?? []).some((entry) => isSameToken(entry, chain, address));
  }

  private changeLaunchpad(
    subject: TradingSubject,
    type: string,
    update: (pad: LaunchpadSetting) => LaunchpadSetting,
  ): Promise<LaunchpadSetting> {
    return this.change(subject, (config) => {
      const current = config.launchpads.find((pad) => pad.type === type.toLowerCase());
      if (!current) throw AppError.notFound(`Launchpad not found: ${type}`);
      const updated = update(current);
      return { result: updated, next: { ...config, launchpads: config.launchpads.map((pad) => (pad === current ? updated : pad)) } };
    });
  }

  /**
   * Read, apply, check, write with the version read; on a version conflict start over from a
   * fresh read. Only problems the change introduces are refused, so a rule added later never
   * blocks unrelated edits of a configuration saved before it. An unchanged result is not written.
   */
  private async change<R>(subject: TradingSubject, apply: (config: TradingConfig) => Change<R>): Promise<R> {
    const id = subjectKey(subject);
    // `apply` runs once per attempt; the answer is that of the attempt that counted (the last).
    let result: R | undefined;
    await updateRecord<Partial<TradingConfig>>(
      this.deps.store,
      { collection: TRADING_CONFIG_COLLECTION, id },
      (doc) => {
        const now = this.now();
        const current = doc ? withDefaults(doc.data, now) : defaultTradingConfig(now);
        const change = apply(structuredClone(current));
        result = change.result;
        const { next } = change;
        if (!next || JSON.stringify(next) === JSON.stringify(current)) return null;
        const before = new Set(configProblems(current));
        const introduced = configProblems(next).filter((problem) => !before.has(problem));
        if (introduced.length > 0) throw inconsistentConfig(introduced);
        return { data: { ...next, updatedAt: now }, indexes: { subject: id } };
      },
      this.deps.maxAttempts === undefined ? {} : { maxAttempts: this.deps.maxAttempts },
    );
    return result as R;
  }

  private now(): string {
    return new Date(this.deps.clock.now()).toISOString();
  }
}

/** A change replacing one section; the section is also the result. */
function section<K extends keyof TradingConfig>(config: TradingConfig, key: K, value: TradingConfig[K]): Change<TradingConfig[K]> {
  return { result: value, next: { ...config, [key]: value } };
}

function applyPatch<T extends object>(target: T, patch: Patch<T>): T {
  const out = { ...target } as Record<string, unknown>;
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else if (value !== undefined) out[key] = value;
  }
  return out as T;
}

function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}
