/**
 * The paper venue's token directory: real mainnet mints and contract addresses (so orders
 * read the same as on a live chain), each with the price series it follows and the depth
 * of its simulated pools. Lookups are map hits, O(1) per call.
 */
import { NATIVE_SOL_MINT, type Chain, type TokenInfo } from '../../kernel/ports/venue.port.js';
import { CHAINS, isEvmChain } from '../../kernel/vocabulary/chains.js';
import { isWrapPair as isEvmWrapPair, knownTokens } from '../evm/evm-tokens.js';
import type { EvmChainName } from '../evm/evm-support.js';

/** A price series of the paper feed: every token of one asset moves together. */
export interface PaperAsset {
  /** USD price at the centre of the feed's walk. */
  basePriceUsd: number;
  /** Largest log-deviation from the base price; 0 keeps a stablecoin at its peg. */
  volatility: number;
}

/** Price series by asset; wrapped, bridged and native forms of one asset share a series. */
export const PAPER_ASSETS = {
  USD: { basePriceUsd: 1, volatility: 0 },
  SOL: { basePriceUsd: 150, volatility: 0.2 },
  ETH: { basePriceUsd: 3_000, volatility: 0.15 },
  BTC: { basePriceUsd: 90_000, volatility: 0.12 },
  BONK: { basePriceUsd: 0.00002, volatility: 0.45 },
  JUP: { basePriceUsd: 0.8, volatility: 0.3 },
  WIF: { basePriceUsd: 1.5, volatility: 0.45 },
  RAY: { basePriceUsd: 2.5, volatility: 0.3 },
  PYTH: { basePriceUsd: 0.3, volatility: 0.3 },
  JTO: { basePriceUsd: 2.5, volatility: 0.3 },
  LINK: { basePriceUsd: 15, volatility: 0.25 },
  UNI: { basePriceUsd: 8, volatility: 0.25 },
  ARB: { basePriceUsd: 0.6, volatility: 0.3 },
  AERO: { basePriceUsd: 1, volatility: 0.35 },
  GMX: { basePriceUsd: 20, volatility: 0.3 },
  OP: { basePriceUsd: 1.5, volatility: 0.35 },
} as const satisfies Record<string, PaperAsset>;

export type PaperAssetId = keyof typeof PAPER_ASSETS;

/** A token as the paper venue trades it. */
export interface PaperToken extends TokenInfo {
  asset: PaperAssetId;
  /** Price relative to the asset's series (a liquid-staking token is worth more than one SOL). */
  ratio: number;
  /** Liquidity of this token's simulated pools, in USD. */
  depthUsd: number;
}

type SolanaRow = [address: string, symbol: string, name: string, decimals: number, asset: PaperAssetId, depthUsd: number, ratio?: number];
/** The market of one of the live venue's well-known EVM tokens (`knownTokens`), by symbol. */
type EvmMarket = [asset: PaperAssetId, depthUsd: number];

const M = 1_000_000;

const SOLANA_ROWS: SolanaRow[] = [
  [NATIVE_SOL_MINT, 'SOL', 'Solana', 9, 'SOL', 50 * M],
  ['EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', 'USDC', 'USD Coin', 6, 'USD', 200 * M],
  ['Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB', 'USDT', 'Tether USD', 6, 'USD', 100 * M],
  ['DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263', 'BONK', 'Bonk', 5, 'BONK', 10 * M],
  ['JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN', 'JUP', 'Jupiter', 6, 'JUP', 8 * M],
  ['EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm', 'WIF', 'dogwifhat', 6, 'WIF', 6 * M],
  ['4k3Dyjzvzp8eMZWUXbBCjEvwSkkk59S5iCNLY3QrkX6R', 'RAY', 'Raydium', 6, 'RAY', 5 * M],
  ['HZ1JovNiVvGrGNiiYvEozEVgZ58xaU3RKwX8eACQBCt3', 'PYTH', 'Pyth Network', 6, 'PYTH', 4 * M],
  ['jtojtomepa8beP8AuQc6eXt5FriJwfFMwQx2v2f9mCL', 'JTO', 'Jito', 9, 'JTO', 4 * M],
  ['mSoLzYCxHdYgdzU16g5QSh3i5K3z3KZK7ytfqcJm7So', 'mSOL', 'Marinade staked SOL', 9, 'SOL', 10 * M, 1.27],
];

/** Every well-known EVM token of the live venue has a market here (checked at load). */
const EVM_MARKETS: Record<EvmChainName, Record<string, EvmMarket>> = {
  ethereum: {
    ETH: ['ETH', 300 * M],
    WETH: ['ETH', 300 * M],
    USDC: ['USD', 300 * M],
    USDT: ['USD', 300 * M],
    DAI: ['USD', 150 * M],
    WBTC: ['BTC', 100 * M],
    LINK: ['LINK', 20 * M],
    UNI: ['UNI', 15 * M],
  },
  base: {
    ETH: ['ETH', 100 * M],
    WETH: ['ETH', 100 * M],
    USDC: ['USD', 100 * M],
    USDbC: ['USD', 10 * M],
    DAI: ['USD', 20 * M],
    cbBTC: ['BTC', 40 * M],
    AERO: ['AERO', 10 * M],
  },
  arbitrum: {
    ETH: ['ETH', 100 * M],
    WETH: ['ETH', 100 * M],
    USDC: ['USD', 100 * M],
    USDT: ['USD', 50 * M],
    DAI: ['USD', 20 * M],
    WBTC: ['BTC', 30 * M],
    ARB: ['ARB', 20 * M],
    LINK: ['LINK', 8 * M],
    GMX: ['GMX', 5 * M],
  },
  optimism: {
    ETH: ['ETH', 50 * M],
    WETH: ['ETH', 50 * M],
    USDC: ['USD', 50 * M],
    USDT: ['USD', 20 * M],
    DAI: ['USD', 10 * M],
    OP: ['OP', 15 * M],
    WBTC: ['BTC', 10 * M],
  },
};

function solanaToken([address, symbol, name, decimals, asset, depthUsd, ratio = 1]: SolanaRow): PaperToken {
  return Object.freeze({
    chain: 'solana',
    address,
    symbol,
    name,
    decimals,
    ...(address === NATIVE_SOL_MINT ? { native: true } : {}),
    asset,
    ratio,
    depthUsd,
  });
}

function evmTokens(chain: EvmChainName): PaperToken[] {
  return knownTokens(chain).map((token) => {
    const market = EVM_MARKETS[chain][token.symbol];
    if (!market) throw new Error(`Paper venue: no market for ${token.symbol} on ${chain}`);
    return Object.freeze({ ...token, asset: market[0], ratio: 1, depthUsd: market[1] });
  });
}

const byDepth = (tokens: PaperToken[]): readonly PaperToken[] => Object.freeze(tokens.sort((a, b) => b.depthUsd - a.depthUsd));

/** Every paper token by chain, deepest pools first within a chain. */
export const PAPER_TOKENS: Readonly<Record<Chain, readonly PaperToken[]>> = Object.fromEntries(
  CHAINS.map((chain) => [chain, byDepth(isEvmChain(chain) ? evmTokens(chain) : SOLANA_ROWS.map(solanaToken))]),
) as Record<Chain, readonly PaperToken[]>;

/** Solana mints are case-sensitive base58; EVM addresses compare case-insensitively. */
function addressKey(chain: Chain, address: string): string {
  return isEvmChain(chain) ? address.toLowerCase() : address;
}

const BY_KEY = new Map<string, PaperToken>();
for (const tokens of Object.values(PAPER_TOKENS)) {
  for (const token of tokens) {
    BY_KEY.set(`${token.chain}|a|${addressKey(token.chain, token.address)}`, token);
    BY_KEY.set(`${token.chain}|s|${token.symbol.toLowerCase()}`, token);
  }
}

/** The token with this address (first) or symbol (case-insensitive) on `chain`, or null. */
export function findPaperToken(chain: Chain, symbolOrAddress: string): PaperToken | null {
  const query = symbolOrAddress.trim();
  return BY_KEY.get(`${chain}|a|${addressKey(chain, query)}`) ?? BY_KEY.get(`${chain}|s|${query.toLowerCase()}`) ?? null;
}

/** A wrap or an unwrap (ETH ↔ WETH, the books' rule too): same decimals, so 1:1 in base units. */
export function isWrapPair(a: PaperToken, b: PaperToken): boolean {
  return a.chain === b.chain && isEvmWrapPair(a.chain, a.address, b.address);
}

/**
 * Tokens matching `query` on `chains`, best first: exact symbol or address, then symbol
 * prefix, symbol substring, name prefix, name substring, address substring; deeper pools
 * break ties. An empty query lists every token.
 */
export function searchPaperTokens(query: string, chains: readonly Chain[], limit: number): PaperToken[] {
  const q = query.trim().toLowerCase();
  const scored: Array<{ token: PaperToken; rank: number }> = [];
  for (const chain of chains) {
    for (const token of PAPER_TOKENS[chain] ?? []) {
      const rank = matchRank(token, q);
      if (rank !== null) scored.push({ token, rank });
    }
  }
  scored.sort((a, b) => a.rank - b.rank || b.token.depthUsd - a.token.depthUsd);
  return scored.slice(0, Math.max(0, Math.floor(limit))).map(({ token }) => token);
}

function matchRank(token: PaperToken, q: string): number | null {
  if (q === '') return 0;
  const symbol = token.symbol.toLowerCase();
  const name = token.name.toLowerCase();
  const address = token.address.toLowerCase();
  if (symbol === q || address === q) return 0;
  if (symbol.startsWith(q)) return 1;
  if (symbol.includes(q)) return 2;
  if (name.startsWith(q)) return 3;
  if (name.includes(q)) return 4;
  if (address.includes(q)) return 5;
  return null;
}
