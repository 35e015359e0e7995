import { describe, expect, it } from 'vitest';
import {
  belowSmallestUnit,
  finerThanToken,
  formatUsd,
  fromBaseUnits,
  fromMicros,
  isDecimal,
  percentOf,
  plainDecimal,
  significantDecimal,
  toBaseUnits,
  toMicros,
} from '../../../kernel/vocabulary/amounts.js';

describe('decimal formatting of amounts and prices', () => {
  it('plainDecimal never writes an exponent, however large the value', () => {
    expect(plainDecimal(1.5, 2)).toBe('1.50');
    expect(plainDecimal(1e21, 2)).toBe('1000000000000000000000.00');
    expect(plainDecimal(-1.4021345667109799e21, 6)).toBe('-1402134566710979900000.000000');
    expect(plainDecimal(1e30, 0)).toBe('1000000000000000000000000000000');
    expect(plainDecimal(1.25e25, 1)).toBe('12500000000000000000000000.0');
  });

  it('formatUsd rounds half a cent away from zero and stays a two-decimal string past 1e21', () => {
    expect(formatUsd(1.005)).toBe('1.01');
    expect(formatUsd(-1.005)).toBe('-1.01');
    expect(formatUsd(1.4021345667109799e21)).toBe('1402134566710979900000.00');
    expect(formatUsd(1e30)).toBe('1000000000000000000000000000000.00');
  });

  it('significantDecimal is toPrecision as a plain decimal without trailing zeros', () => {
    expect(significantDecimal(1.4090026e-7, 8)).toBe('0.00000014090026');
    expect(significantDecimal(1.23456789e9, 5)).toBe('1234600000');
    expect(significantDecimal(1, 8)).toBe('1');
    expect(significantDecimal(3225.8545845721596, 12)).toBe('3225.85458457');
    expect(significantDecimal(3225.854584572159, 12)).toBe('3225.85458457');
    expect(significantDecimal(0.1 + 0.2, 12)).toBe('0.3');
    expect(significantDecimal(0, 8)).toBe('0');
    expect(significantDecimal(2.5e22, 8)).toBe('25000000000000000000000');
  });
});

describe('token amounts in base units', () => {
  it('converts whole-token decimals to base units and back exactly, past what a float holds', () => {
    expect(toBaseUnits('0.5', 9)).toBe(500_000_000n);
    expect(toBaseUnits('12', 6)).toBe(12_000_000n);
    expect(toBaseUnits('123456789.123456789123456789', 18)).toBe(123456789123456789123456789n);
    expect(fromBaseUnits(123456789123456789123456789n, 18)).toBe('123456789.123456789123456789');
    expect(fromBaseUnits('500000000', 9)).toBe('0.5');
    expect(fromBaseUnits(1n, 9)).toBe('0.000000001');
    expect(fromBaseUnits(-1_500_000n, 6)).toBe('-1.5');
    expect(fromBaseUnits(0n, 6)).toBe('0');
  });

  it('truncates digits past the decimals and refuses what is not a plain decimal', () => {
    expect(toBaseUnits('0.1234567', 6)).toBe(123_456n);
    for (const bad of ['-1', '1e3', '.5', '1.', ' 1', '0x10', '']) expect(() => toBaseUnits(bad, 6), bad).toThrow(RangeError);
    expect(isDecimal('0.5')).toBe(true);
    expect(isDecimal('1e3')).toBe(false);
    expect(isDecimal(5)).toBe(false);
  });

  it('takes a percentage exactly, rounded down', () => {
    expect(percentOf(1_000_000n, '0.125')).toBe(1_250n);
    expect(percentOf(999n, '1')).toBe(9n);
    expect(percentOf(10n ** 30n, '33.3')).toBe(333n * 10n ** 27n);
    expect(() => percentOf(1n, '-1')).toThrow(RangeError);
  });

  it("says why an amount does not fit the token's decimals", () => {
    const usdc = { symbol: 'USDC', decimals: 6 };
    expect(finerThanToken('1.1234560', usdc)).toBeUndefined();
    expect(finerThanToken('1.1234561', usdc)).toBe('amount has more decimals than USDC has (6)');
    expect(belowSmallestUnit(usdc)).toBe('amount is below the smallest unit of USDC (0.000001)');
  });
});

describe('USD as whole micro-dollars', () => {
  it('sums without float drift at a limit', () => {
    expect(toMicros(0.1) + toMicros(0.2)).toBe(toMicros(0.3));
    expect(fromMicros(toMicros(0.1) + toMicros(0.2))).toBe(0.3);
    expect(toMicros(1.0000004)).toBe(1_000_000);
  });
});
