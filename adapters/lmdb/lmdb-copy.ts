/**
 * Copies of the embedded store's LMDB environment, for `agentctl backup` and `restore`.
 *
 * Safe while the service writes, from this or any other process: LMDB's copy (lmdb-js
 * `backup`, C `mdb_env_copy2`) reads the environment inside one read transaction, an MVCC
 * snapshot of the last committed transaction when it began. Writers go on committing beside
 * it (a read transaction never blocks them; the plain copy holds the writer lock only while
 * it snapshots the two meta pages), and whatever they commit after it began is not in the
 * copy. With compaction the copy walks the B-trees and writes only pages in use, renumbered,
 * so the copy has no free pages; LMDB refuses to compact an environment that leaked pages
 * (MDB_INCOMPATIBLE), and the plain page-for-page copy is taken then.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { open, type Database } from 'lmdb';

const DATA_FILE = 'data.mdb';
const LOCK_FILE = 'lock.mdb';

/** Opened as the store opens it (lmdb-store.adapter.ts): an environment's sync mode must match across its processes. */
const openEnvironment = (path: string) => open({ path, overlappingSync: true });

/** Whether `dir` holds an LMDB environment (its data file). */
export function hasLmdbEnvironment(dir: string): boolean {
  return existsSync(join(dir, DATA_FILE));
}

/**
 * Copies the environment in `source` (which must exist: opening a missing one would create
 * it) into `targetDir`, which must exist and be empty; the copy is `targetDir/data.mdb`.
 */
export async function copyLmdbEnvironment(source: string, targetDir: string): Promise<{ compacted: boolean }> {
  if (!hasLmdbEnvironment(source)) throw new Error(`${source} holds no LMDB environment (${DATA_FILE})`);
  const root = openEnvironment(source);
  try {
    try {
      await root.backup(targetDir, true);
      return { compacted: true };
    } catch (error) {
      if (!/INCOMPATIBLE/i.test((error as Error).message)) throw error;
      // A compacting copy refuses an environment with leaked pages; the plain copy does not care.
      return await root.backup(targetDir, false).then(() => ({ compacted: false }));
    }
  } finally {
    await root.close();
  }
}

/**
 * Opens the environment in `dir` and counts its stored documents: throws when the file is not
 * an LMDB environment. Only for files whose bytes are known good (a copy just taken, or one
 * matching its checksum): LMDB trusts its pages, and a damaged data file can crash the process.
 */
export async function countLmdbDocuments(dir: string): Promise<number> {
  const root = openEnvironment(dir);
  try {
    // The store's own sub-database of documents, not created when absent (lmdb-js reads `create`; its types omit it).
    const options = { name: 'documents', keyEncoding: 'binary', encoding: 'binary', create: false } as const;
    const documents = root.openDB<Buffer, Buffer>(options as Omit<typeof options, 'create'>) as Database<Buffer, Buffer> | undefined;
    return documents ? documents.getCount() : 0;
  } finally {
    await root.close();
  }
}

/**
 * Whether a process has the environment in `dir` open. Every process that opens an LMDB
 * environment holds a POSIX read lock on its lock file for as long as it has it open, and
 * Linux lists those locks in /proc/locks (by device and inode). `undefined`: cannot tell
 * (no /proc/locks, not Linux).
 */
export function lmdbEnvironmentInUse(dir: string): boolean | undefined {
  const lockFile = join(dir, LOCK_FILE);
  if (!existsSync(lockFile)) return false;
  let locks: string;
  try {
    locks = readFileSync('/proc/locks', 'utf8');
  } catch {
    return undefined;
  }
  const { dev, ino } = statSync(lockFile);
  // glibc's encoding of dev_t: the major number's low 12 bits at 8–19, the minor's low 8 bits at 0–7.
  const major = (dev >>> 8) & 0xfff;
  const minor = (dev & 0xff) | ((dev >>> 12) & 0xfff00);
  // Lines read `1: POSIX  ADVISORY  READ 13967 fe:00:2148876 0 0` (device numbers in hex).
  return locks.split('\n').some((line) => {
    const id = /\s([0-9a-f]+):([0-9a-f]+):(\d+)\s/.exec(line);
    return id !== null && Number.parseInt(id[1]!, 16) === major && Number.parseInt(id[2]!, 16) === minor && Number(id[3]) === ino;
  });
}
