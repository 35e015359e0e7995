import { DCA_HELP } from './dca-grammar.js';
import type { TradeSide } from './trade-grammar.js';

/**
 * The Turkish phrasebook of the interpreter: letter folding, case suffixes, trade verbs,
 * the fixed command phrases (`durum`, `bekleyen emirler`, `onayla <id>`, `dca durdur`)
 * with the English command each means, and the replies said in Turkish. Replies are
 * written without Turkish letters, like the interface's own soft errors (`Trading bu bot
 * icin kapali.`), so they survive any transport and font.
 */

export type Case = 'none' | 'acc' | 'dat' | 'abl' | 'ins' | 'gen' | 'lik';

const FOLD: Record<string, string> = {
  ç: 'c',
  ğ: 'g',
  ı: 'i',
  İ: 'i',
  ö: 'o',
  ş: 's',
  ü: 'u',
  â: 'a',
  î: 'i',
  û: 'u',
  '’': "'",
  '‘': "'",
  '`': "'",
  '´': "'",
  ʼ: "'",
};

/** Lower case, Turkish letters folded to ASCII, apostrophes unified; keeps the length, so indices match the original. */
export function foldTurkish(text: string): string {
  return Array.from(text, (c) => {
    const folded = FOLD[c] ?? FOLD[c.toLowerCase()] ?? c.toLowerCase();
    return folded.length === c.length ? folded : c;
  }).join('');
}

// ---------------------------------------------------------------- case suffixes

/** Plural, then a possessive (`-im`/`-m` my, `-in`/`-n` your, `-i`/`-si` its, `-imiz`, `-iniz`); vowels folded (ı→i, ü→u). */
const PLURAL_POSSESSIVE = String.raw`(?:l[ae]r)?(?:[iu]?m|[iu]?m[iu]z|[iu]?n|[iu]?n[iu]z|s?[iu])?`;
/** Folded suffix → grammatical case; the first full match decides (order matters: `la` is instrumental, not dative). */
const SUFFIX_CASES: Array<[RegExp, Case]> = [
  [/^l[iu]k$/, 'lik'],
  [new RegExp(`^${PLURAL_POSSESSIVE}y?l[ae]$`), 'ins'],
  [new RegExp(`^${PLURAL_POSSESSIVE}n?[dt][ae]n$`), 'abl'],
  [/^(?:l[ae]r)?(?:[iu]?m|[iu]?m[iu]z|s?[iu])?n?[iu]n$/, 'gen'],
  [new RegExp(`^${PLURAL_POSSESSIVE}[yn]?[iu]$`), 'acc'],
  [new RegExp(`^${PLURAL_POSSESSIVE}[yn]?[ae]$`), 'dat'],
  [new RegExp(`^${PLURAL_POSSESSIVE}$`), 'none'],
];

export function caseOf(suffix: string): Case | undefined {
  return SUFFIX_CASES.find(([pattern]) => pattern.test(suffix))?.[1];
}

// ---------------------------------------------------------------- trade verbs

const VERBS: Record<TradeSide, string[]> = {
  buy: [
    'al',
    'alir misin',
    'alabilir misin',
    'almak istiyorum',
    'alalim',
    'aliver',
    'alin',
    'satin al',
    'satin alir misin',
    'satin alabilir misin',
    'satin almak istiyorum',
    'satin alin',
  ],
  sell: ['sat', 'satar misin', 'satabilir misin', 'satmak istiyorum', 'satalim', 'sativer'],
  swap: [
    ...['cevir', 'donustur', 'degistir'].flatMap((v) => [v, `${v}ir misin`, `${v}ebilir misin`, `${v}mek istiyorum`, `${v}elim`]),
    ...[
      'donusturur musun',
      'takasla',
      'takas et',
      'takas yap',
      'takas eder misin',
      'takas edebilir misin',
      'takas etmek istiyorum',
      'takas edelim',
    ],
    ...['swap', 'swap et', 'swap yap', 'swap eder misin', 'swap yapar misin', 'swap etmek istiyorum', 'swap yapmak istiyorum'],
  ],
};
/** Verb phrase (folded words; `alir misin` also written `alirmisin`) → side. */
export const VERB_PHRASES = new Map<string, TradeSide>(
  (Object.entries(VERBS) as Array<[TradeSide, string[]]>).flatMap(([side, forms]) =>
    forms.flatMap((form) => [form, form.replace(/ (m[iu]s[iu]n)$/, '$1')].map((f): [string, TradeSide] => [f, side])),
  ),
);
// ---------------------------------------------------------------- commands other than trades

const DCA_OBJECT = String.raw`dca(?:'?(?:yi|yu|mi|mu|ya|ma|lari|larimi|lara))?`;
const NAME = String.raw`(?: (\S+))?`;
const POLITE_ASK = String.raw`(?:r ?misin|r ?musun|yin|yiniz)?`;
const APPROVE_VERB = String.raw`onayla${POLITE_ASK}`;
const ORDER_WORD = String.raw`(?:emri|emrini|siparisi|islemi)`;
/** Words that stand where an order id would, but are not one: `bunu onayla` asks which order. */
const NOT_AN_ID = new Set([
  'bunu',
  'sunu',
  'onu',
  'hepsini',
  'tumunu',
  'hepsi',
  'tumu',
  'son',
  'sonuncuyu',
  'emri',
  'emir',
  'siparisi',
  'islemi',
]);

const SHAPES: Array<{ pattern: RegExp; command: (id: (group: number) => string | undefined) => string }> = [
  {
    pattern:
      /^(?:yardim(?: et| eder ?misin)?|komutlar|menu|kullanim|basla|baslat|ne yapabilirsin|neler yapabilirsin|nasil kullanilir|nasil kullanirim)$/d,
    command: () => 'help',
  },
  {
    pattern: /^(?:yardim (dca)|(dca) yardim|yardim (?:islem|islemler|alim satim|ticaret)|(?:islem|alim satim|ticaret) yardim)$/d,
    command: (g) => ((g(1) ?? g(2)) ? 'help dca' : 'help trading'),
  },
  {
    pattern:
      /^(?:(?:bot|ajan|sistem)(?:un|in)? )?(?:durum|durumu|durumun|saglik|sagligi)(?: (?:ne|nedir|ne durumda|nasil|goster))?$|^(?:(?:bot|ajan) )?(?:calisiyor ?mu(?:sun)?|aktif ?mi(?:sin)?|orada ?mi(?:sin)?|ayakta ?mi(?:sin)?|nasilsin|ne durumdasin)$/d,
    command: () => 'status',
  },
  {
    pattern:
      /^(?:benim )?(?:portfoy(?:um|umu|un|unu)?|bakiye(?:m|mi|n|ni|ler|lerim|lerimi)?|cuzdan(?:im|imi|in|ini)?|varlik(?:lar|larim|larimi)?)(?: (?:goster|ne|nedir|ne kadar|ozeti|ozet|degeri|durumu|durumum))?$|^(?:ne kadar param var|neyim var|elimde ne var)$/d,
    command: () => 'portfolio',
  },
  {
    pattern:
      /^(?:(?:acik )?pozisyon(?:lar|larim|larimi|lari|um)? (?:ve |ile )?)?(?:kar ?[/-]? ?zarar(?:i|im|imi|la|iyla)?|k ?\/ ?z|pnl)(?: (?:ile|durumu|durumum|goster|ne|nedir))?$/d,
    command: () => 'positions with pnl',
  },
  { pattern: /^(?:acik )?pozisyon(?:lar|larim|larimi|lari|um|umu)?(?: (?:goster|neler))?$/d, command: () => 'positions' },
  {
    pattern:
      /^(?:onay )?bekleyen(?:ler| onaylar| (?:emir|siparis|islem)(?:ler|lerim)?)$|^onay bekleyen(?:ler)?$|^(?:emir|siparis)(?:ler|lerim) (?:onay )?bekleyen(?:ler)?$|^onay(?:lanacak|lanmayi bekleyen) (?:emir|siparis|islem)(?:ler)?$/d,
    command: () => 'orders pending',
  },
  { pattern: /^(?:(?:acik|son|tum|butun) )?(?:emir|siparis)(?:ler|lerim|lerimi|leri)(?: (?:goster|neler))?$/d, command: () => 'orders' },
  {
    pattern: new RegExp(`^(?:${ORDER_WORD} )?${APPROVE_VERB}(?: (?:emir|siparis|islem)(?: no| id| numarasi)?)? #?(\\S+)$`, 'd'),
    command: (g) => approve(g(1), false),
  },
  {
    pattern: new RegExp(`^#?(\\S+) (?:(?:no'?lu|numarali|id'?li) )?(?:${ORDER_WORD} )?${APPROVE_VERB}$`, 'd'),
    command: (g) => approve(g(1), true),
  },
  { pattern: new RegExp(`^(?:${ORDER_WORD} )?${APPROVE_VERB}$`, 'd'), command: () => 'approve' },
  {
    pattern: new RegExp(
      `^(?:${DCA_OBJECT} (?:durdur|duraklat|dondur|beklet)(?:ur ?musun|ir ?misin)?|(?:durdur|duraklat) ${DCA_OBJECT})${NAME}$`,
      'd',
    ),
    command: (g) => dca('pause', g(1)),
  },
  {
    pattern: new RegExp(`^${DCA_OBJECT} (?:devam(?: et| ettir)?|surdur|baslat|yeniden baslat|tekrar baslat|aktif et)${NAME}$`, 'd'),
    command: (g) => dca('resume', g(1)),
  },
  {
    pattern: new RegExp(
      `^${DCA_OBJECT} (?:istatistik(?:ler|leri|i)?|performans(?:i)?|durum(?:u)?|sonuc(?:lar|lari)?|rapor(?:u)?|ozet(?:i)?)${NAME}$`,
      'd',
    ),
    command: (g) => dca('stats', g(1)),
  },
];

/** The English command a fixed Turkish phrase means (`lower` is `text` folded), or undefined. */
export function readShape(text: string, lower: string): string | undefined {
  for (const { pattern, command } of SHAPES) {
    const match = pattern.exec(lower);
    if (!match) continue;
    // Ids and names come from the message as typed: they are case-sensitive.
    const id = (group: number) => {
      const span = match.indices?.[group];
      return span ? text.slice(span[0], span[1]) : undefined;
    };
    return command(id);
  }
  return undefined;
}

function approve(word: string | undefined, idFirst: boolean): string {
  const id = word === undefined ? undefined : stripSuffix(word);
  if (id === undefined || NOT_AN_ID.has(foldTurkish(id))) return 'approve';
  // Before the verb only an id-looking word (a digit, `_` or `-`) counts: `islemi onayla` is no order id.
  return idFirst && !/[\d_-]/.test(id) ? 'approve' : `approve ${id}`;
}

function dca(action: 'pause' | 'resume' | 'stats', name: string | undefined): string {
  return name === undefined ? `dca ${action}` : `dca ${action} ${name}`;
}

/** `ord_1'i` → `ord_1`: an apostrophe and a known suffix after it go. */
function stripSuffix(word: string): string {
  const at = foldTurkish(word).indexOf("'");
  return at > 0 && caseOf(foldTurkish(word).slice(at + 1)) ? word.slice(0, at) : word;
}

// ---------------------------------------------------------------- replies

const EXAMPLES: Record<TradeSide, string> = {
  buy: `"0.5 SOL ile BONK al", "1000 BONK al USDC ile" veya "50 dolarlik BONK al SOL ile"`,
  sell: `"20 JUP'u USDC'ye sat", "tum JUP'u SOL'a sat" veya "JUP'un %50'sini USDC'ye sat"`,
  swap: `"100 USDC'yi SOL'a cevir" veya "tum BONK'u USDC'ye cevir"`,
};
const VERB_NOUN: Record<TradeSide, string> = { buy: 'alim', sell: 'satis', swap: 'takas' };
const DCA_EXAMPLE = `"her gun 10 USDC ile SOL al" veya "her 4 saatte bir 25 USDC ile SOL al 30 kez"`;
const TURKISH_DCA_HELP = `DCA komutlari: ${DCA_EXAMPLE}; "dca durdur", "dca devam", "dca istatistik".`;
const COMMAND_HINT = `Ornek komutlar: "durum", "portfoy", "0.5 SOL ile BONK al", "100 USDC'yi SOL'a cevir", "emirler" veya "yardim".`;

/** Questions the Turkish grammar asks itself (forms the English grammar has no sentence for). */
export const turkishQuestion = {
  unreadable: (side: TradeSide) => `Bu ${VERB_NOUN[side]} komutunu okuyamadim. Ornek: ${EXAMPLES[side]}.`,
  payWith: () => `Hangi token ile odenecek? Ornek: ${EXAMPLES.buy}.`,
  ambiguousAmount: (text: string) =>
    `"${text}" belirsiz: bin mi, ondalik mi? Binlik ayirac kullanmadan yazin (1000 veya 1k), ondalik icin nokta ya da virgul (1.5 veya 1,5).`,
};

/** English error sentences of the grammar (trade-grammar, command-values, command-clauses, dca-grammar, approve) → Turkish. */
const SENTENCES: Array<[RegExp, (m: RegExpExecArray) => string]> = [
  [/^Which token should pay for it\?/, () => 'Hangi token ile odenecek?'],
  [/^How much, and paid with which token\?/, () => 'Ne kadar, hangi token ile odenecek?'],
  [/^How much\?/, () => 'Ne kadar?'],
  [/^Swap to which token\?/, () => 'Hangi tokene cevrilsin?'],
  [/^I could not read that (buy|sell|swap) command\./, (m) => `Bu ${VERB_NOUN[m[1] as TradeSide]} komutunu okuyamadim.`],
  [/^The amount must be greater than zero\./, () => 'Miktar sifirdan buyuk olmali.'],
  [/^"(.*)" is not an amount;/, (m) => `"${m[1]}" bir miktar degil; 0.5, 1000 veya 1.5k gibi yazin.`],
  [/^A percentage can be at most 100%\./, () => 'Yuzde en fazla %100 olabilir.'],
  [/^"(.*)" is not a token symbol or address\./, (m) => `"${m[1]}" bir token sembolu ya da adresi degil.`],
  [/^The input and output token are the same\./, () => 'Verilen ve alinan token ayni.'],
  [
    /^Write the slippage as a percentage or in bps/,
    () => 'Kaymayi yuzde ya da bps olarak yazin, ornegin "%1 kayma ile" veya "kayma 50 bps".',
  ],
  [/^Say the slippage unit: "(.*?)%"/, (m) => `Kayma birimini yazin: "%${m[1]}" veya "${m[1]} bps".`],
  [/^Slippage must be greater than zero\./, () => 'Kayma sifirdan buyuk olmali.'],
  [/^Slippage is set in whole basis points/, () => 'Kayma tam baz puan (%0.01) cinsindendir; yuzdede en fazla iki ondalik yazin.'],
  [/^Slippage must be at most (\S+)% \((\d+) bps\)\./, (m) => `Kayma en fazla %${m[1]} (${m[2]} bps) olabilir.`],
  [/^How often\?/, () => 'Ne siklikla? "her gun" veya "her 4 saatte bir" gibi bir aralik ekleyin.'],
  [/^The interval must be between 1 minute and 366 days\./, () => 'Aralik 1 dakika ile 366 gun arasinda olmali.'],
  [/^A strategy name is/, () => 'Strateji adi harf, rakam ve _ . : - isaretlerinden olusur.'],
  [/^Name the amount, the token to spend and the token to buy\./, () => 'Miktari, harcanacak tokeni ve alinacak tokeni yazin.'],
  [/^The number of buys must be between 1 and 100000\./, () => 'Alim sayisi 1 ile 100000 arasinda olmali.'],
  [/^Which order\?/, () => 'Hangi emir? "onayla <emir_id>" yazin; "bekleyen emirler" onay bekleyen emirleri listeler.'],
];

/**
 * The English grammar's reply to a translated Turkish command, said in Turkish: its first
 * sentence translated, then Turkish examples for `side` or the Turkish DCA help where the
 * English reply had examples. A sentence this table does not know stays English (a
 * precise English error beats a vague Turkish one).
 */
export function turkishReply(english: string, side: TradeSide | undefined): string {
  for (const [pattern, say] of SENTENCES) {
    const match = pattern.exec(english);
    if (!match) continue;
    if (english.includes(DCA_HELP)) return `${say(match)} ${TURKISH_DCA_HELP}`;
    return english.includes('For example:') && side ? `${say(match)} Ornek: ${EXAMPLES[side]}.` : say(match);
  }
  return english;
}

const TURKISH_LETTERS = /[çğışöüÇĞİŞÖÜ]/;
/** Folded words that mark a message as Turkish (common words and the command vocabulary). */
const TURKISH_WORDS = new Set(
  (
    'merhaba selam selamlar slm mrb naber nbr nasilsin nasil iyi kotu guzel harika tesekkurler tesekkur sagol saol lutfen evet hayir tamam ' +
    'bugun yarin dun simdi hava cok az ne neden nerede kim bu su bir ve veya ile icin gibi ama degil var yok mi mu misin musun ' +
    'ben sen biz siz benim senin bana sana seni beni yapiyorsun yapar olacak bakalim her gun saat ' +
    'cevir takas kayma tum butun hepsi hepsini yarisi yarisini dolar dolarlik'
  ).split(' '),
);
const TURKISH_STEMS = /^(?:durum|portfoy|bakiye|pozisyon|emir|emri|siparis|onay|yardim|istatistik|durdur|devam|cuzdan|varlik)/;

/** True when a message reads as Turkish (so an unrecognised one gets a Turkish hint). */
export function looksTurkish(message: string, foldedWords: readonly string[]): boolean {
  return TURKISH_LETTERS.test(message) || foldedWords.some((word) => TURKISH_WORDS.has(word) || TURKISH_STEMS.test(word));
}

/** The reply to a Turkish message that is no command. */
export function turkishHint(message: string, mentionsDca: boolean): string {
  const clipped = message.length > 60 ? `${message.slice(0, 57)}...` : message;
  return `"${clipped}" anlasilmadi. ${mentionsDca ? TURKISH_DCA_HELP : COMMAND_HINT}`;
}
