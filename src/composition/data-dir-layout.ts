import { join } from 'node:path';

/**
 * Where the embedded profile keeps its store inside DATA_DIR (beside secrets.json and the
 * instance lock): the service opens it here and `agentctl backup`/`restore` copy it from and to here.
 */
export function embeddedStoreDir(dataDir: string): string {
  return join(dataDir, 'store');
}
