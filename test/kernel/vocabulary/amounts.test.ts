import { describe, expect, it } from 'vitest';
import { formatUsd, plainDecimal, significantDecimal } from '../../../kernel/vocabulary/amounts.js';

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
