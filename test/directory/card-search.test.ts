import { describe, expect, it } from 'vitest';
import { cardTerms, queryWords, termKey, termRange, words } from '../../src/directory/card-search.js';

describe('directory search terms', () => {
  it('words are lower case letters and digits, compatibility-normalized, in any script', () => {
    expect(words('Ｔrade-Bot v2, Ümit çalışır 交易')).toEqual(['trade', 'bot', 'v2', 'ümit', 'çalışır', '交易']);
  });

  it('a card holds every prefix of its name words and the whole words of its description', () => {
    const terms = cardTerms({ name: 'Arb Fox', description: 'hunts spreads' });
    expect(terms.sort()).toEqual(['a', 'ar', 'arb', 'f', 'fo', 'fox', 'hunts', 'spreads']);
    expect(terms).not.toContain('spread');
  });

  it('description words are bounded per card', () => {
    const description = Array.from({ length: 500 }, (_, i) => `w${i}`).join(' ');
    expect(cardTerms({ name: 'x', description }).length).toBe(101);
  });

  it('query words: distinct, longest first', () => {
    expect(queryWords('fox  ARB fox hunts')).toEqual(['hunts', 'arb', 'fox']);
    expect(queryWords('!!!')).toEqual([]);
  });

  it("one term's range holds its entries and not a longer term's", () => {
    const range = termRange('arb');
    const inside = termKey('arb', '000000000000123');
    const longer = termKey('arbx', '000000000000000');
    expect(inside >= range.gte && inside <= range.lte).toBe(true);
    expect(longer >= range.gte && longer <= range.lte).toBe(false);
  });
});
