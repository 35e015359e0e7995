import { describe, expect, it } from 'vitest';
import { isIsoTime } from '../../../kernel/shared/iso-time.js';

describe('isIsoTime', () => {
  it.each([
    '2030-02-28T09:00:00Z',
    '2028-02-29T00:00:00Z',
    '2000-02-29T00:00:00Z',
    '2030-01-01T23:59:59.123+05:30',
    '2030-12-31T00:00:00-08:00',
  ])('accepts %s', (value) => {
    expect(isIsoTime(value)).toBe(true);
  });

  it.each([
    ['a day the month does not have', '2030-02-29T00:00:00Z'],
    ['February 29 of a century that is no leap year (years below 100 too)', '0100-02-29T00:00:00Z'],
    ['month 13', '2030-13-01T00:00:00Z'],
    ['hour 24', '2030-01-01T24:00:00Z'],
    ['second 60', '2030-01-01T00:00:60Z'],
    ['no zone', '2030-01-01T00:00:00'],
    ['a date without a time', '2030-01-01'],
    ['a number', '1'],
    ['words Date.parse understands', 'March 7 2031'],
  ])('refuses %s', (_why, value) => {
    expect(isIsoTime(value)).toBe(false);
  });
});
