/** Bitcoin's base58 alphabet, the one Solana's signatures and keys use. */
const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
/** Five base58 digits per limb: 58^5 < 2^30, so a limb times 256 plus a byte stays an exact double. */
const DIGITS_PER_LIMB = 5;
const LIMB = 58 ** DIGITS_PER_LIMB;

/**
 * Base58 of `bytes`, exactly as `bs58.encode` writes it (leading zero bytes as `1`s). The
 * same schoolbook conversion on limbs of five digits instead of one: a paper swap signs every
 * fill with a 64-byte signature, and digit by digit that took five times as many divisions.
 */
export function base58Encode(bytes: Uint8Array): string {
  let zeroes = 0;
  while (zeroes < bytes.length && bytes[zeroes] === 0) zeroes++;
  // Little-endian limbs of the number the bytes after the leading zeroes spell.
  const limbs: number[] = [];
  for (let i = zeroes; i < bytes.length; i++) {
    let carry = bytes[i]!;
    for (let j = 0; j < limbs.length; j++) {
      const x = limbs[j]! * 256 + carry;
      carry = Math.floor(x / LIMB);
      limbs[j] = x - carry * LIMB;
    }
    for (; carry > 0; carry = Math.floor(carry / LIMB)) limbs.push(carry % LIMB);
  }
  let out = '1'.repeat(zeroes);
  for (let j = limbs.length - 1; j >= 0; j--) {
    let limb = limbs[j]!;
    let chunk = '';
    // The most significant limb is written without its leading zero digits; it is never 0.
    for (let k = 0; k < DIGITS_PER_LIMB && (k === 0 || limb > 0 || j < limbs.length - 1); k++) {
      chunk = ALPHABET[limb % 58]! + chunk;
      limb = (limb - (limb % 58)) / 58;
    }
    out += chunk;
  }
  return out;
}
