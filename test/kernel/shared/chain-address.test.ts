import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import {
  invalidAddress,
  isKnownSolanaProgram,
  parseEvmAddress,
  parseSolanaAddress,
  tokenAddressProblem,
} from '../../../kernel/vocabulary/chain-address.js';

const CHECKSUMMED = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

describe('chain addresses', () => {
  it('EVM: checksummed, all-lower and all-upper are taken and answered checksummed; a wrong checksum is refused, never fixed', () => {
    expect(parseEvmAddress(CHECKSUMMED)).toBe(CHECKSUMMED);
    expect(parseEvmAddress(CHECKSUMMED.toLowerCase())).toBe(CHECKSUMMED);
    expect(parseEvmAddress(`0x${CHECKSUMMED.slice(2).toUpperCase()}`)).toBe(CHECKSUMMED);
    expect(parseEvmAddress('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD')).toBeNull();
    for (const bad of ['0x1234', `0X${CHECKSUMMED.slice(2)}`, `${CHECKSUMMED}0`, '0xg000000000000000000000000000000000000000'])
      expect(parseEvmAddress(bad), bad).toBeNull();
  });

  it('Solana: base58 of 32 bytes, as given', () => {
    const key = Keypair.generate().publicKey.toBase58();
    expect(parseSolanaAddress(key)).toBe(key);
    // Base58 of 31 and of 33 bytes: a random key with a digit appended is not always too long
    // (a key below 2^256 / 58 times 58 still fits in 32 bytes).
    const short = bs58.encode(new Uint8Array(31).fill(0xff));
    const long = bs58.encode(new Uint8Array(33).fill(0x01));
    for (const bad of ['0x1234', '1111111111111111111111111111111', 'O0000000000000000000000000000000', short, long])
      expect(parseSolanaAddress(bad), bad).toBeNull();
  });

  it('knows the native and SPL programs and the sysvars, and nothing else', () => {
    for (const id of [
      '11111111111111111111111111111111',
      'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb',
      'SysvarRent111111111111111111111111111111111',
    ])
      expect(isKnownSolanaProgram(id), id).toBe(true);
    expect(isKnownSolanaProgram(Keypair.generate().publicKey.toBase58())).toBe(false);
  });

  it('a token reference is refused before any lookup only for a 0x address with a wrong checksum on an EVM chain', () => {
    const wrong = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD';
    expect(tokenAddressProblem('base', wrong, 'sellToken')).toBe('sellToken is not a valid base address');
    expect(tokenAddressProblem('base', CHECKSUMMED.toLowerCase(), 'sellToken')).toBeUndefined();
    expect(tokenAddressProblem('base', 'USDC', 'sellToken')).toBeUndefined();
    expect(tokenAddressProblem('solana', wrong, 'mint')).toBeUndefined();
    expect(invalidAddress('to', 'solana')).toBe('to is not a valid solana address');
  });
});
