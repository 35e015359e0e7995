import { join } from 'node:path';

/**
 * Where the embedded profile keeps its store inside DATA_DIR (beside secrets.json and the
 * instance lock): the service opens it here and `agentctl backup`/`restore` copy it from and to here.
 */
export function embeddedStoreDir(dataDir: string): string {
  return join(dataDir, 'store');
}

/**
 * Where the embedded event bus keeps its replay history (24 hours of every agent's events):
 * its own LMDB environment, apart from the store, because it is no part of a backup (a
 * restored service starts its streams afresh, with ids that keep growing).
 */
export function embeddedBusHistoryDir(dataDir: string): string {
  return join(dataDir, 'bus-history');
}
