/** The SDK's own base58 (it installs with no dependency) writes what the bs58 package the service reads with writes. */
import bs58 from 'bs58';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { base58 } from '../../sdk/src/base58.js';

it('base58 matches bs58 on any bytes, leading zeros and empty input included', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 80 }), fc.nat({ max: 4 }), (bytes, zeros) => {
      const input = new Uint8Array([...new Array(zeros).fill(0), ...bytes]);
      expect(base58(input)).toBe(bs58.encode(input));
    }),
    { numRuns: 2_000 },
  );
});
