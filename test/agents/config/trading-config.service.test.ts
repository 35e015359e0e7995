import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../support/manual-clock.adapter.js';
import { MemoryStore } from '../../support/memory-store.adapter.js';
import { defaultTradingConfig, TRADING_CONFIG_LIMITS, withDefaults } from '../../../agents/config/trading-config.rules.js';
import type { TradingConfig } from '../../../agents/config/trading-config.types.js';
import {
  StoreTradingConfig,
  TRADING_CONFIG_COLLECTION,
  TRADING_CONFIG_COLLECTIONS,
} from '../../../agents/config/trading-config.service.js';
import { isAppError } from '../../../kernel/errors/app-error.js';
import type { StorePort } from '../../../kernel/ports/store.port.js';
import { NATIVE_SOL_MINT } from '../../../kernel/ports/venue.port.js';

const agent = { type: 'agent', id: 'a1' } as const;
const BONK = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
const USDC_BASE_LOWER = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';
const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

async function setup(options: { maxAttempts?: number; wrap?: (store: StorePort) => StorePort } = {}) {
  const clock = new ManualClock(Date.UTC(2026, 2, 1, 12));
  const memory = new MemoryStore(clock);
  await memory.init(TRADING_CONFIG_COLLECTIONS);
  const store = options.wrap ? options.wrap(memory) : memory;
  const config = new StoreTradingConfig({ store, clock, ...(options.maxAttempts ? { maxAttempts: options.maxAttempts } : {}) });
  const version = async () => (await memory.get(TRADING_CONFIG_COLLECTION, 'agent:a1'))?.version ?? 0;
  return { clock, store: memory, config, version };
}

/** A store whose `put` counts version conflicts (and can be told to lose every write). */
function conflictCounter(alwaysConflict = false) {
  const seen = { conflicts: 0 };
  const wrap = (store: StorePort): StorePort =>
    Object.assign(Object.create(store) as StorePort, {
      put: async (...args: Parameters<StorePort['put']>) => {
        try {
          if (alwaysConflict) await store.put(args[0], args[1], { ...args[2], expectedVersion: args[2].expectedVersion + 99 });
          return await store.put(...args);
        } catch (error) {
          if (isAppError(error) && error.code === 'VERSION_CONFLICT') seen.conflicts++;
          throw error;
        }
      },
    });
  return { seen, wrap };
}

describe('StoreTradingConfig: defaults', () => {
  it('reads a profile stored before agentsMayApprove existed with it off, keeping a cleared approval size cleared', () => {
    const stored = { defaultOrderProfile: { autoApprove: false, slippageBps: 80 } } as unknown as Partial<TradingConfig>;
    expect(withDefaults(stored, new Date(0).toISOString()).defaultOrderProfile).toEqual({
      autoApprove: false,
      slippageBps: 80,
      agentsMayApprove: false,
    });
  });

  it('answers the documented defaults while nothing is stored, and writes nothing', async () => {
    const { config, clock, version } = await setup();
    const read = await config.get(agent);
    expect(read).toEqual(defaultTradingConfig(new Date(clock.now()).toISOString()));
    expect(read.defaultOrderProfile).toEqual({ autoApprove: true, approvalAboveUsd: 10_000, slippageBps: 100, agentsMayApprove: false });
    expect(read.tradeDefaults).toEqual({ chain: 'solana', slippageBps: 100, quoteToken: 'SOL' });
    expect(read.riskPolicy).toEqual({ maxSlippageBps: 500 });
    expect(read.walletMode).toBe('custodial');
    expect(read.launchpads.map((pad) => [pad.type, pad.enabled, pad.priority])).toEqual([
      ['pumpfun', true, 1],
      ['letsbonk', true, 2],
      ['raydium_launchlab', true, 3],
      ['moonshot', true, 4],
    ]);
    expect(await config.isBlacklisted(agent, 'solana', BONK)).toBe(false);
    expect(await version()).toBe(0);
  });

  it('completes a stored configuration with launchpads the service learned since', async () => {
    const { config, store } = await setup();
    const saved = defaultTradingConfig('2026-01-01T00:00:00.000Z');
    saved.launchpads = [{ type: 'pumpfun', enabled: false, priority: 7 }];
    await store.put(TRADING_CONFIG_COLLECTION, 'agent:a1', { data: saved, expectedVersion: 0, indexes: { subject: 'agent:a1' } });
    const pads = (await config.get(agent)).launchpads;
    expect(pads[0]).toEqual({ type: 'pumpfun', enabled: false, priority: 7 });
    expect(pads.map((pad) => pad.type)).toEqual(['pumpfun', 'letsbonk', 'raydium_launchlab', 'moonshot']);
  });
});

describe('StoreTradingConfig: section updates', () => {
  it('updates only the fields given; null clears an optional limit; other accounts are untouched', async () => {
    const { config, clock } = await setup();
    await clock.advance(5000);
    expect(await config.updateOrderProfile(agent, { autoApprove: false, approvalAboveUsd: null })).toEqual({
      autoApprove: false,
      slippageBps: 100,
      agentsMayApprove: false,
    });
    expect(await config.updateRiskPolicy(agent, { maxOrderUsd: 250, allowedChannels: ['mcp', 'mcp', 'rest'] })).toEqual({
      maxSlippageBps: 500,
      maxOrderUsd: 250,
      allowedChannels: ['mcp', 'rest'],
    });
    expect(await config.updateRiskPolicy(agent, { maxOrderUsd: null, dailyVolumeUsd: 1000 })).toEqual({
      maxSlippageBps: 500,
      dailyVolumeUsd: 1000,
      allowedChannels: ['mcp', 'rest'],
    });
    expect(await config.updateTradeDefaults(agent, { chain: 'base', quoteToken: 'usdc' })).toEqual({
      chain: 'base',
      slippageBps: 100,
      quoteToken: 'USDC',
    });
    expect(await config.updateNotifications(agent, { dca: false, channels: ['sse', 'telegram', 'sse'] })).toEqual({
      orderFilled: true,
      orderFailed: true,
      approvalRequired: true,
      dca: false,
      channels: ['sse', 'telegram'],
    });
    expect(await config.setWalletMode(agent, 'delegate')).toBe('delegate');
    expect(await config.updatePoolPreferences(agent, { preferredDexes: ['Raydium', 'raydium', 'Orca'], minLiquidityUsd: 0 })).toEqual({
      preferredDexes: ['raydium', 'orca'],
      excludedDexes: [],
      minLiquidityUsd: 0,
    });
    const read = await config.get(agent);
    expect(read.walletMode).toBe('delegate');
    expect(read.updatedAt).toBe(new Date(clock.now()).toISOString());
    expect(await config.get({ type: 'bot', id: 'a1' })).toEqual(defaultTradingConfig(read.updatedAt));
  });

  it('toggles (flip or explicit) and prioritises launchpads; an unknown one is 404', async () => {
    const { config } = await setup();
    expect(await config.toggleLaunchpad(agent, 'moonshot')).toEqual({ type: 'moonshot', enabled: false, priority: 4 });
    expect(await config.toggleLaunchpad(agent, 'moonshot')).toEqual({ type: 'moonshot', enabled: true, priority: 4 });
    expect(await config.toggleLaunchpad(agent, 'MoonShot', false)).toEqual({ type: 'moonshot', enabled: false, priority: 4 });
    expect(await config.toggleLaunchpad(agent, 'moonshot', false)).toEqual({ type: 'moonshot', enabled: false, priority: 4 });
    expect(await config.setLaunchpadPriority(agent, 'letsbonk', 1)).toEqual({ type: 'letsbonk', enabled: true, priority: 1 });
    await expect(config.toggleLaunchpad(agent, 'bonkfun')).rejects.toMatchObject({
      kind: 'not_found',
      message: 'Launchpad not found: bonkfun',
    });
    await expect(config.setLaunchpadPriority(agent, 'nope', 3)).rejects.toMatchObject({
      kind: 'not_found',
      message: 'Launchpad not found: nope',
    });
    expect((await config.get(agent)).launchpads.find((pad) => pad.type === 'letsbonk')?.priority).toBe(1);
  });

  it('does not write an update that changes nothing', async () => {
    const { config, version } = await setup();
    await config.updateOrderProfile(agent, { slippageBps: 150 });
    expect(await version()).toBe(1);
    await config.updateOrderProfile(agent, { slippageBps: 150 });
    await config.toggleLaunchpad(agent, 'pumpfun', true);
    expect(await version()).toBe(1);
  });
});

describe('StoreTradingConfig: consistency (422)', () => {
  const problemsOf = async (promise: Promise<unknown>) => {
    const error = await promise.catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: 'unprocessable', code: 'VALIDATION_ERROR' });
    return (error as { details: { problems: string[] } }).details.problems;
  };

  it('keeps default slippage within the risk policy, from either side', async () => {
    const { config, version } = await setup();
    expect(await problemsOf(config.updateOrderProfile(agent, { slippageBps: 600 }))).toEqual([
      'defaultOrderProfile.slippageBps 600 exceeds riskPolicy.maxSlippageBps 500',
    ]);
    expect(await problemsOf(config.updateRiskPolicy(agent, { maxSlippageBps: 50 }))).toEqual([
      'defaultOrderProfile.slippageBps 100 exceeds riskPolicy.maxSlippageBps 50',
      'tradeDefaults.slippageBps 100 exceeds riskPolicy.maxSlippageBps 50',
    ]);
    expect(await version()).toBe(0);
    await config.updateRiskPolicy(agent, { maxSlippageBps: 1000 });
    expect((await config.updateTradeDefaults(agent, { slippageBps: 800 })).slippageBps).toBe(800);
  });

  it('refuses a daily volume below the order limit, a quote token foreign to the chain, and a DEX both preferred and excluded', async () => {
    const { config } = await setup();
    expect(await problemsOf(config.updateRiskPolicy(agent, { maxOrderUsd: 500, dailyVolumeUsd: 100 }))).toEqual([
      'riskPolicy.dailyVolumeUsd 100 is below riskPolicy.maxOrderUsd 500',
    ]);
    expect(await problemsOf(config.updateTradeDefaults(agent, { quoteToken: 'BONK' }))).toEqual([
      'tradeDefaults.quoteToken BONK is not a quote token on solana (SOL, USDC)',
    ]);
    expect(await problemsOf(config.updateTradeDefaults(agent, { chain: 'arbitrum' }))).toEqual([
      'tradeDefaults.quoteToken SOL is not a quote token on arbitrum (ETH, WETH, USDC, USDT, DAI)',
    ]);
    expect(await problemsOf(config.updatePoolPreferences(agent, { preferredDexes: ['orca'], excludedDexes: ['ORCA'] }))).toEqual([
      'poolPreferences lists orca as both preferred and excluded',
    ]);
  });

  it('refuses only problems a change introduces: an older inconsistent configuration can still be edited elsewhere', async () => {
    const { config, store } = await setup();
    const saved = defaultTradingConfig('2026-01-01T00:00:00.000Z');
    saved.defaultOrderProfile.slippageBps = 600;
    await store.put(TRADING_CONFIG_COLLECTION, 'agent:a1', { data: saved, expectedVersion: 0, indexes: { subject: 'agent:a1' } });
    await expect(config.addToken(agent, 'favorites', { address: BONK })).resolves.toMatchObject({ address: BONK });
    await problemsOf(config.updateOrderProfile(agent, { slippageBps: 700 }));
  });
});

describe('StoreTradingConfig: favorites and blacklist', () => {
  it('keys tokens by chain and address: Solana mints as given, EVM addresses checksummed', async () => {
    const { config, clock } = await setup();
    const bonk = await config.addToken(agent, 'favorites', { address: BONK, symbol: 'BONK' });
    expect(bonk).toEqual({ chain: 'solana', address: BONK, symbol: 'BONK', addedAt: new Date(clock.now()).toISOString() });
    const usdc = await config.addToken(agent, 'favorites', { chain: 'base', address: USDC_BASE_LOWER });
    expect(usdc).toMatchObject({ chain: 'base', address: USDC_BASE });
    // The same address on another chain is another token.
    await config.addToken(agent, 'favorites', { chain: 'ethereum', address: USDC_BASE });
    expect((await config.listTokens(agent, 'favorites')).map((entry) => `${entry.chain}:${entry.address}`)).toEqual([
      `solana:${BONK}`,
      `base:${USDC_BASE}`,
      `ethereum:${USDC_BASE}`,
    ]);
    expect(await config.listTokens(agent, 'favorites', 'base')).toEqual([usdc]);
  });

  it('adds idempotently: a duplicate returns the first entry and writes nothing', async () => {
    const { config, clock, version } = await setup();
    const first = await config.addToken(agent, 'favorites', { chain: 'base', address: USDC_BASE });
    await clock.advance(60_000);
    expect(await config.addToken(agent, 'favorites', { chain: 'base', address: USDC_BASE_LOWER, symbol: 'USDC' })).toEqual(first);
    expect(await version()).toBe(1);
    expect(await config.listTokens(agent, 'favorites')).toHaveLength(1);
  });

  it('removes by key in any EVM case; an absent token is 404', async () => {
    const { config } = await setup();
    await config.addToken(agent, 'blacklist', { chain: 'base', address: USDC_BASE });
    await expect(config.removeToken(agent, 'favorites', { chain: 'base', address: USDC_BASE })).rejects.toMatchObject({
      kind: 'not_found',
      message: 'Token not in favorites',
    });
    await expect(config.removeToken(agent, 'blacklist', { chain: 'ethereum', address: USDC_BASE })).rejects.toMatchObject({
      kind: 'not_found',
      message: 'Token not in blacklist',
    });
    expect(await config.removeToken(agent, 'blacklist', { chain: 'base', address: USDC_BASE_LOWER })).toMatchObject({ address: USDC_BASE });
    expect(await config.listTokens(agent, 'blacklist')).toEqual([]);
  });

  it.each([
    [{ address: USDC_BASE }, 'chain is required for an EVM address'],
    [{ chain: 'solana' as const, address: USDC_BASE }, 'address must be a Solana mint (base58, 32 bytes) on solana'],
    [{ chain: 'base' as const, address: BONK }, 'address must be an EVM address (0x and 40 hex digits) on base'],
    [{ chain: 'base' as const, address: '0x833589FCD6eDb6E08f4c7C32D4f71b54bdA02913' }, 'address is not a valid base address'],
    [{ address: '1111111111111111111111111111111111111111' }, 'address must be a Solana mint (base58, 32 bytes)'],
  ])('refuses %o with a 400 naming the problem', async (token, message) => {
    const { config } = await setup();
    await expect(config.addToken(agent, 'favorites', token)).rejects.toMatchObject({
      kind: 'invalid',
      envelope: 'validation',
      messages: [message],
    });
  });

  it('blacklisting a favorite removes it from favorites; a blacklisted token cannot become a favorite', async () => {
    const { config } = await setup();
    await config.addToken(agent, 'favorites', { address: BONK });
    await config.addToken(agent, 'favorites', { address: NATIVE_SOL_MINT });
    await config.addToken(agent, 'blacklist', { address: BONK });
    expect((await config.listTokens(agent, 'favorites')).map((entry) => entry.address)).toEqual([NATIVE_SOL_MINT]);
    expect(await config.isBlacklisted(agent, 'solana', BONK)).toBe(true);
    await expect(config.addToken(agent, 'favorites', { address: BONK })).rejects.toMatchObject({
      kind: 'unprocessable',
      message: `favorites: ${BONK} on solana is blacklisted`,
    });
  });

  it('isBlacklisted matches EVM addresses in any case and only on their chain', async () => {
    const { config } = await setup();
    await config.addToken(agent, 'blacklist', { chain: 'base', address: USDC_BASE_LOWER });
    expect(await config.isBlacklisted(agent, 'base', USDC_BASE_LOWER)).toBe(true);
    expect(await config.isBlacklisted(agent, 'base', USDC_BASE.toUpperCase().replace('0X', '0x'))).toBe(true);
    expect(await config.isBlacklisted(agent, 'ethereum', USDC_BASE)).toBe(false);
  });

  it('refuses to grow a full list (422) but still answers duplicates', async () => {
    const { config, store } = await setup();
    const saved = defaultTradingConfig('2026-01-01T00:00:00.000Z');
    saved.favorites = Array.from({ length: TRADING_CONFIG_LIMITS.maxTokenListEntries }, (_, i) => ({
      chain: 'base' as const,
      address: `0x${i.toString(16).padStart(40, '0')}`,
      addedAt: saved.updatedAt,
    }));
    await store.put(TRADING_CONFIG_COLLECTION, 'agent:a1', { data: saved, expectedVersion: 0, indexes: { subject: 'agent:a1' } });
    await expect(config.addToken(agent, 'favorites', { address: BONK })).rejects.toMatchObject({
      kind: 'unprocessable',
      message: 'favorites is full (500 tokens): remove one first',
    });
    await expect(config.addToken(agent, 'favorites', { chain: 'base', address: `0x${'0'.repeat(40)}` })).resolves.toMatchObject({
      chain: 'base',
    });
  });
});

describe('StoreTradingConfig: concurrent updates', () => {
  it('loses none of 20 concurrent updates: each retries on a version conflict', async () => {
    const counter = conflictCounter();
    const { config, version } = await setup({ wrap: counter.wrap });
    const mints = Array.from({ length: 10 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`);
    await Promise.all([
      ...mints.map((address) => config.addToken(agent, 'favorites', { chain: 'base', address })),
      ...mints.map((address) => config.addToken(agent, 'blacklist', { chain: 'ethereum', address })),
    ]);
    expect(counter.seen.conflicts).toBeGreaterThan(0);
    const read = await config.get(agent);
    expect(read.favorites.map((entry) => entry.address.toLowerCase()).sort()).toEqual([...mints].sort());
    expect(read.blacklist).toHaveLength(10);
    expect(await version()).toBe(20);
  });

  it("gives up after maxAttempts conflicts with the read-modify-write helper's 409", async () => {
    const counter = conflictCounter(true);
    const { config } = await setup({ wrap: counter.wrap, maxAttempts: 3 });
    await expect(config.setWalletMode(agent, 'external')).rejects.toMatchObject({
      code: 'RESOURCE_CONFLICT',
      kind: 'conflict',
      retryable: true,
      message: 'Concurrent updates to trading.config/agent:a1: gave up after 3 attempts',
    });
    expect(counter.seen.conflicts).toBe(3);
  });
});
