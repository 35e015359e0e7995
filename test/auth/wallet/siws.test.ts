import { ed25519 } from '@noble/curves/ed25519.js';
import { numberToBytesLE } from '@noble/curves/abstract/utils.js';
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import {
  buildSiwsMessage,
  isSolanaAddress,
  parseSiwsMessage,
  SiwsFormatError,
  verifySiwsSignature,
  type SiwsFields,
} from '../../../src/auth/wallet/siws.js';
import { solanaWallet } from '../../support/wallet-login-harness.js';

const wallet = solanaWallet();
const fields: SiwsFields = {
  domain: 'agents.example.com',
  address: wallet.address,
  statement: 'Sign in to the agent service',
  uri: 'https://agents.example.com',
  version: '1',
  chainId: 'mainnet',
  nonce: '0123456789abcdef0123456789abcdef',
  issuedAt: '2026-01-01T00:00:00.000Z',
  expirationTime: '2026-01-01T00:05:00.000Z',
};

describe('SIWS message text', () => {
  it('builds the wallet-standard format exactly', () => {
    expect(buildSiwsMessage(fields)).toBe(
      'agents.example.com wants you to sign in with your Solana account:\n' +
        `${wallet.address}\n\n` +
        'Sign in to the agent service\n\n' +
        'URI: https://agents.example.com\n' +
        'Version: 1\n' +
        'Chain ID: mainnet\n' +
        'Nonce: 0123456789abcdef0123456789abcdef\n' +
        'Issued At: 2026-01-01T00:00:00.000Z\n' +
        'Expiration Time: 2026-01-01T00:05:00.000Z',
    );
  });

  it('round-trips with and without the optional parts', () => {
    expect(parseSiwsMessage(buildSiwsMessage(fields))).toEqual(fields);
    const { statement: _s, expirationTime: _e, ...bare } = fields;
    expect(parseSiwsMessage(buildSiwsMessage(bare))).toEqual(bare);
    const full: SiwsFields = { ...fields, notBefore: fields.issuedAt, requestId: 'r1', resources: ['https://a', 'ipfs://b'] };
    expect(parseSiwsMessage(buildSiwsMessage(full))).toEqual(full);
  });

  it('refuses to build text where a value could forge lines', () => {
    expect(() => buildSiwsMessage({ ...fields, statement: 'hi\n\nURI: https://evil' })).toThrow(SiwsFormatError);
  });

  const good = buildSiwsMessage(fields);
  const malformed: Array<[string, string]> = [
    ['empty', ''],
    ['Ethereum header', good.replace('Solana account', 'Ethereum account')],
    ['CRLF line ends', good.replaceAll('\n', '\r\n')],
    ['missing nonce', good.replace(/\nNonce: .*/, '')],
    ['short nonce', good.replace(/Nonce: \w+/, 'Nonce: abc')],
    ['fields out of order', good.replace('Version: 1\nChain ID: mainnet', 'Chain ID: mainnet\nVersion: 1')],
    ['version 2', good.replace('Version: 1', 'Version: 2')],
    ['bad timestamp', good.replace('2026-01-01T00:00:00.000Z', 'yesterday')],
    ['double space', good.replace('URI: ', 'URI:  ')],
    ['trailing newline', `${good}\n`],
    ['extra line', `${good}\nAdmin: true`],
    ['non-base58 address', good.replace(wallet.address, `0OIl${wallet.address.slice(4)}`)],
  ];
  it.each(malformed)('rejects %s', (_name, text) => {
    expect(() => parseSiwsMessage(text)).toThrow(SiwsFormatError);
  });
});

describe('verifySiwsSignature', () => {
  const message = buildSiwsMessage(fields);

  it('accepts a real ed25519 signature of the UTF-8 text', () => {
    expect(verifySiwsSignature(message, wallet.sign(message), wallet.address)).toBe(true);
  });

  it('rejects another text, another key, and mangled input without throwing', () => {
    const signature = wallet.sign(message);
    expect(verifySiwsSignature(`${message} `, signature, wallet.address)).toBe(false);
    expect(verifySiwsSignature(message, signature, solanaWallet().address)).toBe(false);
    expect(verifySiwsSignature(message, 'not-base58!', wallet.address)).toBe(false);
    expect(verifySiwsSignature(message, signature, '0OIl')).toBe(false);
    expect(verifySiwsSignature(message, bs58.encode(new Uint8Array(63)), wallet.address)).toBe(false);
    expect(verifySiwsSignature(message, signature, bs58.encode(new Uint8Array(31)))).toBe(false);
    expect(verifySiwsSignature(message, '', '')).toBe(false);
  });

  it('refuses a key of small order, for which a signature can be forged without a private key (tweetnacl accepts it)', () => {
    // The identity point (encoded 01 00..00) has order 1: [k]A vanishes, so R = [s]B with any s
    // "signs" every message. The other small-order keys fall to a few guesses of [k]A.
    const identity = new Uint8Array(32);
    identity[0] = 1;
    const s = 0x1234567890abcdefn;
    const forged = new Uint8Array(64);
    forged.set(ed25519.ExtendedPoint.BASE.multiply(s).toRawBytes(), 0);
    forged.set(numberToBytesLE(s, 32), 32);
    const text = new TextEncoder().encode(message);
    expect(nacl.sign.detached.verify(text, forged, identity)).toBe(true); // the hole this closes
    expect(verifySiwsSignature(message, bs58.encode(forged), bs58.encode(identity))).toBe(false);
    // The System Program's address (32 zero bytes) is such a key too.
    expect(verifySiwsSignature(message, bs58.encode(forged), '11111111111111111111111111111111')).toBe(false);
  });

  it('recognises Solana addresses by decoded length', () => {
    expect(isSolanaAddress(wallet.address)).toBe(true);
    expect(isSolanaAddress(bs58.encode(new Uint8Array(31).fill(1)))).toBe(false);
    expect(isSolanaAddress('0x0000000000000000000000000000000000000000')).toBe(false);
  });
});
