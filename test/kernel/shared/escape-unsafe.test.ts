import { describe, expect, it } from 'vitest';
import { escapeUnsafe } from '../../../kernel/shared/escape-unsafe.js';

describe('escapeUnsafe', () => {
  it('writes controls, bidi, zero-width and separators as six visible characters', () => {
    const cases: Array<[string, string]> = [
      ['a\u202eb', 'a\\u202eb'],
      ['\u0000\u0007\u001b\r\n\t', '\\u0000\\u0007\\u001b\\u000d\\u000a\\u0009'],
      ['\u007f\u0085\u009f', '\\u007f\\u0085\\u009f'],
      ['\u200e\u200f\u061c\u202a\u202d\u2066\u2069', '\\u200e\\u200f\\u061c\\u202a\\u202d\\u2066\\u2069'],
      ['\u200b\u200c\u200d\u2060\ufeff', '\\u200b\\u200c\\u200d\\u2060\\ufeff'],
      ['\u2028\u2029', '\\u2028\\u2029'],
      ['x\ud800y', 'x\\ud800y'],
    ];
    for (const [input, expected] of cases) expect(escapeUnsafe(input)).toBe(expected);
  });

  it('leaves everything else alone: text, accents, emoji (paired surrogates), backslashes', () => {
    const text = 'Token not found: BONK çğü 日本 🚀 \\u202e ~';
    expect(escapeUnsafe(text)).toBe(text);
    // What it writes is safe already: escaping twice changes nothing.
    expect(escapeUnsafe(escapeUnsafe('a\u202eb'))).toBe('a\\u202eb');
  });

  it('keeps tab and line feed for multi-line text, and nothing else of the kind', () => {
    expect(escapeUnsafe('line 1\n\tline 2\r\u202e', { keepLineBreaks: true })).toBe('line 1\n\tline 2\\u000d\\u202e');
  });
});
