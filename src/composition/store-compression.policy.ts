import { BALANCES_COLLECTION } from '../../adapters/paper/paper-ledger.js';
import { TRADING_RECORDS } from '../../agents/portfolio/portfolio.records.js';
import { DAILY_VOLUME_COLLECTION } from '../../agents/trading/daily-volume.js';
import { AUDIT_HEADS } from '../operations/audit-log.js';
import { IDEMPOTENCY_COLLECTION } from '../operations/idempotency-guard.js';

/**
 * Collections the embedded store keeps uncompressed (`LmdbStoreOptions.storedAsIs`): documents
 * a swap or a DCA tick rewrites on every call and whose number stays bounded (one per wallet,
 * position, account and day, guarded key for a day, audited subject). Compressing them cost a
 * swap about a fifth of its CPU, for bytes that never pile up; a balance's and a position's
 * rings of random order ids barely compress anyway, nor do an audit head's hashes and
 * signature. What accumulates (orders, fills, journal entries, audit entries, agents,
 * strategies) is compressed.
 */
export const STORED_AS_IS: readonly string[] = [
  IDEMPOTENCY_COLLECTION.name,
  BALANCES_COLLECTION,
  TRADING_RECORDS.positions,
  DAILY_VOLUME_COLLECTION.name,
  AUDIT_HEADS,
];
