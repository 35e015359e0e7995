import type { CardContent } from './card.records.js';

/**
 * The directory's search terms (search reads an index, never a scan). A card's
 * terms are every prefix of each word of its name (so `arb` finds "Arbitrage bot") and each
 * whole word of its description; a query word matches a card holding it as a term, and every
 * query word must match. Each term of a published card is one index entry `<term> <newest-first
 * key>`, so one word's matches come out of one index range, newest first.
 */

/** Longest term kept: words past it are cut (a query word is cut the same way). */
const MAX_TERM = 32;
/** Description words indexed per card (the first distinct ones): bounds one card's entries. */
const MAX_DESCRIPTION_TERMS = 100;
/** Query words looked at: a longer query narrows no further in practice. */
const MAX_QUERY_WORDS = 8;

/** Lower-case words of letters and digits, compatibility-normalized (`Ｔrade` is `trade`). */
export function words(text: string): string[] {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0)
    .map((word) => [...word].slice(0, MAX_TERM).join(''));
}

/** The distinct terms of a card's content. */
export function cardTerms(content: Pick<CardContent, 'name' | 'description'>): string[] {
  const terms = new Set<string>();
  for (const word of words(content.name)) {
    const chars = [...word];
    for (let n = 1; n <= chars.length; n++) terms.add(chars.slice(0, n).join(''));
  }
  let described = 0;
  for (const word of words(content.description)) {
    if (described >= MAX_DESCRIPTION_TERMS) break;
    if (!terms.has(word)) described++;
    terms.add(word);
  }
  return [...terms];
}

/** The distinct words of a query, longest first (the longest usually has the fewest matches, so it drives the lookup). */
export function queryWords(q: string): string[] {
  return [...new Set(words(q))].slice(0, MAX_QUERY_WORDS).sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
}

/** Index value of a term entry, and the range of one term's entries. */
export const termKey = (term: string, sortKey: string) => `${term} ${sortKey}`;
// Sort keys are digits: every entry of `term` lies between "term " and "term ~"; longer terms ("terms") fall outside.
export const termRange = (term: string) => ({ gte: `${term} `, lte: `${term} ~` });
