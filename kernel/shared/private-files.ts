/**
 * The embedded store and the generated secrets are for the service's user alone: their
 * directories are 0700 and their files 0600, set by chmod so the umask has no say, on
 * every start (a data directory from an earlier version is tightened too).
 */
import { chmodSync, mkdirSync, type Stats, statSync } from 'node:fs';

const PRIVATE_DIR = 0o700;
const PRIVATE_FILE = 0o600;

/** Creates `dir` (and missing parents, 0700) and makes it 0700; one owned by another user is left as it is. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR });
  tighten(dir, PRIVATE_DIR);
}

/** Makes `file` 0600 when it exists. */
export function makeFilePrivate(file: string): void {
  tighten(file, PRIVATE_FILE);
}

function tighten(path: string, mode: number): void {
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  // chmod would fail (EPERM) on another user's path, e.g. a volume mounted by root: its owner decides.
  if (process.getuid !== undefined && stats.uid !== process.getuid()) return;
  if ((stats.mode & 0o777) !== mode) chmodSync(path, mode);
}
