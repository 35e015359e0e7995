import type { CollectionSpec } from '../../kernel/ports/store.port.js';
import type { TradingSubject } from './portfolio.types.js';

/**
 * Where the trading records live. The trading pipeline writes these collections; each
 * is indexed by `subject` = `<type>:<id>` (e.g. `agent:agt_1`). Until that pipeline
 * declares them the reader answers with empty lists: nothing is invented.
 */
export const TRADING_RECORDS = {
  wallets: 'trading.wallets',
  positions: 'trading.positions',
  subjectIndex: 'subject',
} as const;

/**
 * The trading record collections, declared at start so that reading an account with no
 * records yet is an empty page, not an error. Orders are actors: the runtime declares theirs.
 */
export const TRADING_RECORD_COLLECTIONS: CollectionSpec[] = [
  { name: TRADING_RECORDS.wallets, indexes: [TRADING_RECORDS.subjectIndex] },
  { name: TRADING_RECORDS.positions, indexes: [TRADING_RECORDS.subjectIndex] },
];

/** The `subject` index value of a trading record. */
export function subjectKey(subject: TradingSubject): string {
  return `${subject.type}:${subject.id}`;
}

/** The subject a `subject` index value (or a subject's event stream, the same text) names; null for any other text. */
export function subjectOfKey(key: string): TradingSubject | null {
  const colon = key.indexOf(':');
  const type = key.slice(0, colon);
  if (colon < 1 || (type !== 'agent' && type !== 'bot') || colon === key.length - 1) return null;
  return { type, id: key.slice(colon + 1) };
}
