/**
 * The paper venue's token directory: real mainnet mints and contract addresses (so orders
 * read the same as on a live chain), each with the price series it follows and the depth
 * of its simulated pools. Lookups are map hits, O(1) per call.
 */
import { NATIVE_EVM_ADDRESS, NATIVE_SOL_MINT, type Chain, type TokenInfo } from '../../src/ports/venue.port.js';

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

type Row = [address: string, symbol: string, name: string, decimals: number, asset: PaperAssetId, depthUsd: number, ratio?: number];

const M = 1_000_000;

const ROWS: Record<Chain, Row[]> = {
  solana: [
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
  ],
  ethereum: [
    [NATIVE_EVM_ADDRESS, 'ETH', 'Ether', 18, 'ETH', 300 * M],
    ['0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2', 'WETH', 'Wrapped Ether', 18, 'ETH', 300 * M],
    ['0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', 'USDC', 'USD Coin', 6, 'USD', 300 * M],
    ['0xdAC17F958D2ee523a2206206994597C13D831ec7', 'USDT', 'Tether USD', 6, 'USD', 300 * M],
    ['0x6B175474E89094C44Da98b954EedeAC495271d0F', 'DAI', 'Dai Stablecoin', 18, 'USD', 150 * M],
    ['0x2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599', 'WBTC', 'Wrapped BTC', 8, 'BTC', 100 * M],
    ['0x514910771AF9Ca656af840dff83E8264EcF986CA', 'LINK', 'ChainLink Token', 18, 'LINK', 20 * M],
    ['0x1f9840a85d5aF5bf1D1762F925BDADdC4201F984', 'UNI', 'Uniswap', 18, 'UNI', 15 * M],
  ],
  base: [
    [NATIVE_EVM_ADDRESS, 'ETH', 'Ether', 18, 'ETH', 100 * M],
    ['0x4200000000000000000000000000000000000006', 'WETH', 'Wrapped Ether', 18, 'ETH', 100 * M],
    ['0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 'USDC', 'USD Coin', 6, 'USD', 100 * M],
    ['0xd9aAEc86B65D86f6A7B5B1b0c42FFA531710b6CA', 'USDbC', 'USD Base Coin', 6, 'USD', 10 * M],
    ['0x50c5725949A6F0c72E6C4a641F24049A917DB0Cb', 'DAI', 'Dai Stablecoin', 18, 'USD', 20 * M],
    ['0xcbB7C0000aB88B473b1f5aFd9ef808440eed33Bf', 'cbBTC', 'Coinbase Wrapped BTC', 8, 'BTC', 40 * M],
    ['0x940181a94A35A4569E4529A3CDfB74e38FD98631', 'AERO', 'Aerodrome', 18, 'AERO', 10 * M],
  ],
  arbitrum: [
    [NATIVE_EVM_ADDRESS, 'ETH', 'Ether', 18, 'ETH', 100 * M],
    ['0x82aF49447D8a07e3bd95BD0d56f35241523fBab1', 'WETH', 'Wrapped Ether', 18, 'ETH', 100 * M],
    ['0xaf88d065e77c8cC2239327C5EDb3A432268e5831', 'USDC', 'USD Coin', 6, 'USD', 100 * M],
    ['0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9', 'USDT', 'Tether USD', 6, 'USD', 50 * M],
    ['0xDA10009cBd5D07dd0CeCc66161FC93D7c9000da1', 'DAI', 'Dai Stablecoin', 18, 'USD', 20 * M],
    ['0x2f2a2543B76A4166549F7aaB2e75Bef0aefC5B0f', 'WBTC', 'Wrapped BTC', 8, 'BTC', 30 * M],
    ['0x912CE59144191C1204E64559FE8253a0e49E6548', 'ARB', 'Arbitrum', 18, 'ARB', 20 * M],
    ['0xf97f4df75117a78c1A5a0DBb814Af92458539FB4', 'LINK', 'ChainLink Token', 18, 'LINK', 8 * M],
    ['0xfc5A1A6EB076a2C7aD06eD22C90d7E710E35ad0a', 'GMX', 'GMX', 18, 'GMX', 5 * M],
  ],
};

function toToken(chain: Chain, [address, symbol, name, decimals, asset, depthUsd, ratio = 1]: Row): PaperToken {
  const native = address === NATIVE_SOL_MINT || address === NATIVE_EVM_ADDRESS;
  return Object.freeze({ chain, address, symbol, name, decimals, ...(native ? { native } : {}), asset, ratio, depthUsd });
}

/** Every paper token by chain, deepest pools first within a chain. */
export const PAPER_TOKENS: Readonly<Record<Chain, readonly PaperToken[]>> = Object.fromEntries(
  Object.entries(ROWS).map(([chain, rows]) => [
    chain,
    Object.freeze(rows.map((row) => toToken(chain as Chain, row)).sort((a, b) => b.depthUsd - a.depthUsd)),
  ]),
) as Record<Chain, readonly PaperToken[]>;

/** Solana mints are case-sensitive base58; EVM addresses compare case-insensitively. */
function addressKey(chain: Chain, address: string): string {
  return chain === 'solana' ? address : address.toLowerCase();
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
  return (
    BY_KEY.get(`${chain}|a|${addressKey(chain, query)}`) ?? BY_KEY.get(`${chain}|s|${query.toLowerCase()}`) ?? null
  );
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
