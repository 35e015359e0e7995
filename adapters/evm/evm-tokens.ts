import { getAddress } from 'viem';
import { NATIVE_EVM_ADDRESS, type TokenInfo } from '../../kernel/ports/venue.port.js';
import type { EvmChainName } from './evm-support.js';

/**
 * Well-known tokens per EVM chain (the paper venue trades the same ones). 0x has no
 * token-list API, so symbols resolve against this list only; any other token is found by its address, reading `symbol()`, `name()`
 * and `decimals()` from the contract. Addresses are the canonical deployments (checksummed
 * at load).
 */
type Entry = [symbol: string, name: string, address: string, decimals: number];

const NATIVE: Entry = ['ETH', 'Ether', NATIVE_EVM_ADDRESS, 18];

const LISTS: Record<EvmChainName, Entry[]> = {
  ethereum: [
    NATIVE,
    ['WETH', 'Wrapped Ether', '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2', 18],
    ['USDC', 'USD Coin', '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', 6],
    ['USDT', 'Tether USD', '0xdac17f958d2ee523a2206206994597c13d831ec7', 6],
    ['DAI', 'Dai Stablecoin', '0x6b175474e89094c44da98b954eedeac495271d0f', 18],
    ['WBTC', 'Wrapped BTC', '0x2260fac5e5542a773aa44fbcfedf7c193bc2c599', 8],
    ['LINK', 'ChainLink Token', '0x514910771af9ca656af840dff83e8264ecf986ca', 18],
    ['UNI', 'Uniswap', '0x1f9840a85d5af5bf1d1762f925bdaddc4201f984', 18],
  ],
  base: [
    NATIVE,
    ['WETH', 'Wrapped Ether', '0x4200000000000000000000000000000000000006', 18],
    ['USDC', 'USD Coin', '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', 6],
    ['USDbC', 'USD Base Coin', '0xd9aaec86b65d86f6a7b5b1b0c42ffa531710b6ca', 6],
    ['DAI', 'Dai Stablecoin', '0x50c5725949a6f0c72e6c4a641f24049a917db0cb', 18],
    ['cbBTC', 'Coinbase Wrapped BTC', '0xcbb7c0000ab88b473b1f5afd9ef808440eed33bf', 8],
    ['AERO', 'Aerodrome', '0x940181a94a35a4569e4529a3cdfb74e38fd98631', 18],
  ],
  arbitrum: [
    NATIVE,
    ['WETH', 'Wrapped Ether', '0x82af49447d8a07e3bd95bd0d56f35241523fbab1', 18],
    ['USDC', 'USD Coin', '0xaf88d065e77c8cc2239327c5edb3a432268e5831', 6],
    ['USDT', 'Tether USD', '0xfd086bc7cd5c481dcc9c85ebe478a1c0b69fcbb9', 6],
    ['DAI', 'Dai Stablecoin', '0xda10009cbd5d07dd0cecc66161fc93d7c9000da1', 18],
    ['ARB', 'Arbitrum', '0x912ce59144191c1204e64559fe8253a0e49e6548', 18],
    ['WBTC', 'Wrapped BTC', '0x2f2a2543b76a4166549f7aab2e75bef0aefc5b0f', 8],
    ['LINK', 'ChainLink Token', '0xf97f4df75117a78c1a5a0dbb814af92458539fb4', 18],
    ['GMX', 'GMX', '0xfc5a1a6eb076a2c7ad06ed22c90d7e710e35ad0a', 18],
  ],
  optimism: [
    NATIVE,
    ['WETH', 'Wrapped Ether', '0x4200000000000000000000000000000000000006', 18],
    ['USDC', 'USD Coin', '0x0b2c639c533813f4aa9d7837caf62653d097ff85', 6],
    ['USDT', 'Tether USD', '0x94b008aa00579c1307b0ef2c499ad98a8ce58e58', 6],
    ['DAI', 'Dai Stablecoin', '0xda10009cbd5d07dd0cecc66161fc93d7c9000da1', 18],
    ['OP', 'Optimism', '0x4200000000000000000000000000000000000042', 18],
    ['WBTC', 'Wrapped BTC', '0x68f180fcce6836688e9084f035309e29bf0a2095', 8],
  ],
};

/** The lists as port tokens, built (and checksummed) once: quotes and lookups read them on every call. */
const KNOWN = Object.fromEntries(
  Object.entries(LISTS).map(([chain, entries]) => [
    chain,
    Object.freeze(
      entries.map(([symbol, name, address, decimals]): TokenInfo => {
        const native = address === NATIVE_EVM_ADDRESS;
        return Object.freeze({
          chain: chain as EvmChainName,
          address: native ? NATIVE_EVM_ADDRESS : getAddress(address),
          symbol,
          name,
          decimals,
          ...(native ? { native } : {}),
        });
      }),
    ),
  ]),
) as Record<EvmChainName, readonly TokenInfo[]>;

/** The built-in list of one chain as port tokens (shared and frozen). */
export function knownTokens(chain: EvmChainName): readonly TokenInfo[] {
  return KNOWN[chain];
}

/** The chain's USD reference token (USDC), against which prices are read. */
export function usdReference(chain: EvmChainName): TokenInfo {
  return knownTokens(chain).find((t) => t.symbol === 'USDC')!;
}

/**
 * Native ETH and the chain's WETH, either way round: a wrap or an unwrap, the same coin in
 * another form (the books carry its cost across instead of realizing a trade).
 */
export function isWrapPair(chain: string, from: string, to: string): boolean {
  const wrapped = WRAPPED_NATIVE.get(chain);
  if (!wrapped) return false;
  const [a, b, native] = [from.toLowerCase(), to.toLowerCase(), NATIVE_EVM_ADDRESS.toLowerCase()];
  return (a === native && b === wrapped) || (a === wrapped && b === native);
}

/** Each EVM chain's WETH address, lowercase (Solana has none: native and wrapped SOL are one mint). */
const WRAPPED_NATIVE = new Map(
  Object.entries(KNOWN).map(([chain, tokens]) => [chain, tokens.find((token) => token.symbol === 'WETH')!.address.toLowerCase()]),
);
