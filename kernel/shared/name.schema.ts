import { z } from 'zod';

/**
 * Characters a human-chosen name may not hold: C0 controls (NUL, ESC, CR, LF...), DEL, C1
 * controls, the Unicode line and paragraph separators, bidirectional marks, embeddings,
 * overrides and isolates (U+200E/U+200F, U+061C, U+202A–U+202E, U+2066–U+2069), invisible
 * characters (the zero-width space U+200B, U+2060–U+2064, U+FEFF) and surrogates that pair
 * with nothing. Names are echoed into consoles, logs and terminals, where these forge lines,
 * colour output, reverse what a reader sees (`U+202E`) or make two names look alike.
 * The zero-width joiner and non-joiner (U+200D/U+200C) stay: emoji sequences and Persian or
 * Indic spelling need them.
 */
const REST = String.raw`\u007F-\u009F\u061C\u200B\u200E\u200F\u2028\u2029\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF`;
// With the `u` flag a lone surrogate is a code point of its own (\p{Cs}); a valid pair is not.
const UNSAFE = new RegExp(String.raw`[\u0000-\u001F${REST}]|\p{Cs}`, 'u');

const UNSAFE_NAME_MESSAGE = 'must not contain control characters, invisible or bidirectional formatting characters or unpaired surrogates';

/** True when `value` holds none of the characters a name may not hold. */
function isSafeName(value: string): boolean {
  return !UNSAFE.test(value);
}

/**
 * The one schema of every human-chosen name (agents, bots, keys, wallet labels): trimmed,
 * 1 to `max` characters, none of the unsafe ones above. A refusal is a 400 naming the field
 * (`name: must not contain ...`).
 */
export function nameSchema(max = 100) {
  return z.string().trim().min(1).max(max).refine(isSafeName, UNSAFE_NAME_MESSAGE);
}

// Free text keeps tab and line feed (a description has paragraphs); CR, other controls and the rest stay out.
const UNSAFE_IN_TEXT = new RegExp(String.raw`[\u0000-\u0008\u000B-\u001F${REST}]|\p{Cs}`, 'u');

/**
 * Human-written free text (a bot's or a card's description): up to `max` characters, with tabs
 * and line feeds, and none of the characters a name may not hold otherwise (same reasons).
 */
export function freeTextSchema(max: number) {
  return z
    .string()
    .max(max)
    .refine(
      (value) => !UNSAFE_IN_TEXT.test(value),
      'must not contain control characters other than tab and line feed, invisible or bidirectional formatting characters or unpaired surrogates',
    );
}
