import type { CollectionSpec } from '../src/ports/store.port.js';
import type { TradingSubject } from './portfolio.types.js';

/**
 * Where the trading records live. The trading pipeline writes these collections; each
 * is indexed by `subject` = `<type>:<id>` (e.g. `agent:agt_1`). Until that pipeline
 * declares them the reader answers with empty lists: nothing is invented.
 */
export const TRADING_RECORDS = {
  wallets: 'trading.wallets',
  positions: 'trading.positions',
  /** Orders are actors: the runtime's collection of the `order` machine type. */
  orders: 'actors.order',
  subjectIndex: 'subject',
} as const;

/**
 * The trading record collections, declared at start so that reading an account with no
 * records yet is an empty page, not an error. The `order` machine must index `subject` too.
 */
export const TRADING_RECORD_COLLECTIONS: CollectionSpec[] = [
  { name: TRADING_RECORDS.wallets, indexes: [TRADING_RECORDS.subjectIndex] },
  { name: TRADING_RECORDS.positions, indexes: [TRADING_RECORDS.subjectIndex] },
  { name: TRADING_RECORDS.orders, indexes: ['state', TRADING_RECORDS.subjectIndex, 'subjectTime', 'subjectStatus', 'subjectOpen'] },
];

/** The `subject` index value of a trading record. */
export function subjectKey(subject: TradingSubject): string {
  return `${subject.type}:${subject.id}`;
}
