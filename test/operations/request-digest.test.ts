import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { digestArguments, keyedRequestDigest, requestFingerprint } from '../../src/operations/request-digest.js';

const hmac = (text: string) => createHmac('sha256', 'k'.repeat(32)).update(text).digest('hex');

describe('request fingerprint: the idempotency identity of a request', () => {
  const usdc = {
    chain: 'base',
    token: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
    spender: '0x1111111254EEB25477B68fb85Ed929f73A960582',
    amount: '1',
  };
  const weth = { ...usdc, token: '0x4200000000000000000000000000000000000006' };

  it('covers fields the audit digest leaves out (secret-named `token`, a TOTP `code`), key order aside', () => {
    // The audit digest cannot tell these apart, by design: it is shown to owners.
    expect(digestArguments(usdc)).toBe(digestArguments(weth));
    expect(requestFingerprint('op', usdc, hmac).fingerprint).not.toBe(requestFingerprint('op', weth, hmac).fingerprint);
    expect(requestFingerprint('op', { code: '123456' }, hmac).fingerprint).not.toBe(
      requestFingerprint('op', { code: '654321' }, hmac).fingerprint,
    );
    expect(requestFingerprint('op', { a: 1, b: { c: 2, d: 3 } }, hmac).fingerprint).toBe(
      requestFingerprint('op', { b: { d: 3, c: 2 }, a: 1 }, hmac).fingerprint,
    );
    expect(requestFingerprint('op', usdc, hmac).fingerprint).not.toBe(requestFingerprint('other', usdc, hmac).fingerprint);
  });

  it('is keyed: the stored value is no plain hash anyone could recompute from a guess', () => {
    const other = (text: string) => createHmac('sha256', 'x'.repeat(32)).update(text).digest('hex');
    expect(requestFingerprint('op', usdc, hmac).fingerprint).not.toBe(requestFingerprint('op', usdc, other).fingerprint);
  });

  it('offers the form stored before only where that form covered every field', () => {
    const plain = { chain: 'base', amount: '1' };
    expect(requestFingerprint('op', plain, hmac).legacy).toBe(`op:${digestArguments(plain)}`);
    expect(requestFingerprint('op', {}, hmac).legacy).toBe(`op:${digestArguments({})}`);
    expect(requestFingerprint('op', usdc, hmac).legacy).toBeUndefined();
    expect(requestFingerprint('op', { nested: { secret: 'x' } }, hmac).legacy).toBeUndefined();
  });
});

describe('keyed request digest: what a keyed order or withdrawal remembers of its request', () => {
  it('is `<kind>:<sha256 hex of the canonical args>`, the form orders and withdrawals already stored', () => {
    const sha = (text: string) => createHash('sha256').update(text).digest('hex');
    expect(keyedRequestDigest('withdraw_evm', { to: '0xab', amount: '1' })).toBe(`withdraw_evm:${sha('{"amount":"1","to":"0xab"}')}`);
    expect(keyedRequestDigest('swap', undefined)).toBe(`swap:${sha('{}')}`);
  });

  it('covers every field (secret-named ones too), key order aside, and the kind', () => {
    expect(keyedRequestDigest('swap', { token: 'a' })).not.toBe(keyedRequestDigest('swap', { token: 'b' }));
    expect(keyedRequestDigest('swap', { a: 1, b: 2 })).toBe(keyedRequestDigest('swap', { b: 2, a: 1 }));
    expect(keyedRequestDigest('withdraw_evm', {})).not.toBe(keyedRequestDigest('withdraw_solana', {}));
  });
});
