import { describe, expect, it } from 'vitest';
import { constantTimeEqual, SecretBox } from '../../../kernel/crypto/secret-box.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import { httpStatusOf } from '../../../src/surface-common/http-status.js';

const MASTER = `${'m'.repeat(16)}a-master-secret-of-32+chars`;
const SEALED_FORMAT = /^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]{22}$/;

function expectInternal(fn: () => unknown): void {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('INTERNAL_SERVICE_ERROR');
    expect(httpStatusOf(error as AppError)).toBe(500);
    return;
  }
  throw new Error('expected an AppError INTERNAL_SERVICE_ERROR');
}

/** Replaces the first character of one dot-separated part, which always changes its bytes. */
function tamper(sealed: string, part: number): string {
  const parts = sealed.split('.');
  const text = parts[part]!;
  parts[part] = (text[0] === 'A' ? 'B' : 'A') + text.slice(1);
  return parts.join('.');
}

describe('SecretBox', () => {
  const box = new SecretBox(MASTER, 'totp-secret');

  it('round-trips strings and buffers in the versioned compact format', () => {
    const sealed = box.seal('JBSWY3DPEHPK3PXPJBSWY3DP');
    expect(sealed).toMatch(SEALED_FORMAT);
    expect(box.openText(sealed)).toBe('JBSWY3DPEHPK3PXPJBSWY3DP');
    const bytes = Buffer.from([0, 1, 2, 255]);
    expect(box.open(box.seal(bytes, 'user-1'), 'user-1').equals(bytes)).toBe(true);
    expect(box.openText(box.seal(''))).toBe('');
  });

  it('uses a fresh IV per seal', () => {
    expect(box.seal('same')).not.toBe(box.seal('same'));
  });

  it('opens with another instance of the same master secret and purpose (another process)', () => {
    expect(new SecretBox(MASTER, 'totp-secret').openText(box.seal('shared'))).toBe('shared');
  });

  it('refuses tampered iv, ciphertext or tag instead of returning garbage', () => {
    const sealed = box.seal('a secret value', 'aad');
    for (const part of [1, 2, 3]) expectInternal(() => box.open(tamper(sealed, part), 'aad'));
  });

  it('refuses a wrong or missing AAD', () => {
    const sealed = box.seal('bound', 'user-1');
    expectInternal(() => box.open(sealed, 'user-2'));
    expectInternal(() => box.open(sealed));
    expectInternal(() => box.open(box.seal('unbound'), 'user-1'));
  });

  it('refuses malformed values', () => {
    for (const bad of ['', 'garbage', 'v2.a.b.c', 'v1.a.b', 'v1.AAAA.AAAA.AAAA', `${box.seal('x')}.extra`]) {
      expectInternal(() => box.open(bad));
    }
  });

  it('keeps purposes and master secrets apart', () => {
    const other = new SecretBox(MASTER, 'step-up-token');
    expectInternal(() => other.open(box.seal('for totp only')));
    expectInternal(() => box.open(other.seal('for step-up only')));
    expectInternal(() => new SecretBox('x'.repeat(32), 'totp-secret').open(box.seal('v')));
  });

  it('keyed hashes are deterministic hex, and differ by purpose and input', () => {
    const hash = box.keyedHash('sut_token');
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(box.keyedHash('sut_token')).toBe(hash);
    expect(new SecretBox(MASTER, 'totp-secret').keyedHash('sut_token')).toBe(hash);
    expect(new SecretBox(MASTER, 'api-key').keyedHash('sut_token')).not.toBe(hash);
    expect(box.keyedHash('sut_tokem')).not.toBe(hash);
  });

  it('compares in constant time, including different lengths', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
    expect(box.constantTimeEqual(Buffer.from('abc'), 'abc')).toBe(true);
  });

  it('refuses a short master secret or an empty purpose', () => {
    expectInternal(() => new SecretBox('x'.repeat(31), 'p'));
    expectInternal(() => new SecretBox(MASTER, ''));
  });
});
