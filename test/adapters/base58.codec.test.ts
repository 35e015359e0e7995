import { createHash, randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { base58Encode } from '../../adapters/paper/base58.codec.js';

describe('base58Encode', () => {
  it('writes what bs58 writes: signatures, leading zero bytes, every length up to 80 bytes', () => {
    const inputs: Uint8Array[] = [new Uint8Array(0), new Uint8Array(3), Uint8Array.of(0, 0, 1), Uint8Array.of(57), Uint8Array.of(58)];
    for (let n = 0; n < 400; n++) inputs.push(createHash('sha512').update(`paper:o-${n}`).digest());
    for (let length = 1; length <= 80; length++) {
      for (let n = 0; n < 10; n++) {
        const bytes = randomBytes(length);
        if (n % 3 === 0) bytes.fill(0, 0, Math.min(length, n % 4));
        inputs.push(bytes);
      }
    }
    inputs.push(Buffer.alloc(64, 0xff), Buffer.from(`${'00'.repeat(5)}${'ff'.repeat(59)}`, 'hex'));
    for (const bytes of inputs) expect(base58Encode(bytes)).toBe(bs58.encode(bytes));
  });
});
