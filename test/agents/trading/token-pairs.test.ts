import { describe, expect, it } from 'vitest';
import { requireToken, requireTokenPair } from '../../../agents/trading/token-pairs.js';
import type { TokenInfo } from '../../../kernel/ports/venue.port.js';

const SOL: TokenInfo = {
  chain: 'solana',
  address: 'So11111111111111111111111111111111111111112',
  symbol: 'SOL',
  name: 'Solana',
  decimals: 9,
};
const USDC: TokenInfo = {
  chain: 'solana',
  address: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
  symbol: 'USDC',
  name: 'USD Coin',
  decimals: 6,
};
// Symbols and addresses both name a token, as the venues' findToken does.
const venue = {
  findToken: async (_chain: string, ref: string) => [SOL, USDC].find((token) => token.symbol === ref || token.address === ref) ?? null,
};

describe('token pairs', () => {
  it('an unknown token is the trading 404, word for word', async () => {
    await expect(requireToken(venue, 'solana', 'NOPE')).rejects.toMatchObject({
      code: 'TOKEN_NOT_FOUND',
      kind: 'not_found',
      message: 'Token not found: NOPE',
    });
  });

  it('resolves both tokens of a swap in order', async () => {
    expect(await requireTokenPair(venue, 'solana', 'USDC', SOL.address)).toEqual([USDC, SOL]);
  });

  it("refuses a swap of a token into itself, even named once by symbol and once by address, in the caller's field names", async () => {
    await expect(requireTokenPair(venue, 'solana', 'SOL', SOL.address)).rejects.toMatchObject({
      kind: 'invalid',
      messages: ['inputMint and outputMint must be different tokens'],
    });
    await expect(requireTokenPair(venue, 'solana', 'USDC', 'USDC', ['sellToken', 'buyToken'])).rejects.toMatchObject({
      messages: ['sellToken and buyToken must be different tokens'],
    });
  });
});
