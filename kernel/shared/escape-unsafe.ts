/**
 * Characters never written back as they came: C0 controls, DEL, C1 controls, the line and
 * paragraph separators (U+2028/U+2029), bidirectional marks, embeddings, overrides and
 * isolates (U+061C, U+200E/U+200F, U+202A–U+202E, U+2066–U+2069), zero-width and invisible
 * characters (U+200B–U+200D, U+2060–U+2064, U+FEFF) and unpaired surrogates. Quoted into an
 * answer, a log or a console they forge lines, hide text or reverse what a reader sees.
 */
// Besides the C0 range (whose tab and line feed multi-line text keeps): DEL, C1, U+061C, zero-width and bidi marks, separators.
const REST = String.raw`\u007F-\u009F\u061C\u200B-\u200F\u2028\u2029\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF`;
const UNSAFE = new RegExp(String.raw`[\u0000-\u001F${REST}]|\p{Cs}`, 'gu');
const UNSAFE_IN_TEXT = new RegExp(String.raw`[\u0000-\u0008\u000B-\u001F${REST}]|\p{Cs}`, 'gu');

const escapeOne = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * `text` with every character above written as its six visible characters (`U+202E` becomes
 * `\u202e`): the one rule of every place that quotes input back (error messages, chat replies,
 * echoed ids, notes shown to an owner). `keepLineBreaks` keeps tab and line feed, for
 * multi-line text such as a chat reply.
 */
export function escapeUnsafe(text: string, options: { keepLineBreaks?: boolean } = {}): string {
  return text.replace(options.keepLineBreaks ? UNSAFE_IN_TEXT : UNSAFE, escapeOne);
}
