import { closeSync, fsyncSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Left in the directory while the environment is open: the id of the boot that opened it. */
const MARK = 'open-in-boot';
const BOOT_ID = '/proc/sys/kernel/random/boot_id';

/** This boot of the machine (Linux), undefined where the system does not say. */
export function currentBootId(): string | undefined {
  try {
    return readFileSync(BOOT_ID, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * For an LMDB environment opened with `noSync`: its commits reach the disk when the OS writes
 * its pages back, in any order, so a machine that stopped (power, kernel) while it was open may
 * have left a file that LMDB cannot read safely, while a process that was killed left nothing
 * wrong (the page cache outlives it). Called before opening: the files are removed when the
 * mark of another boot is there, then this boot's mark is written, on disk before any commit.
 * Returns whether the files were removed. Where the boot is unknown nothing is ever removed.
 */
export function guardUnsyncedOpen(path: string, files: readonly string[], bootId: string | undefined): boolean {
  const mark = join(path, MARK);
  let previous: string | undefined;
  try {
    previous = readFileSync(mark, 'utf8');
  } catch {
    previous = undefined;
  }
  const discard = previous !== undefined && bootId !== undefined && previous !== bootId;
  if (discard) for (const file of files) rmSync(join(path, file), { force: true });
  writeDurably(mark, bootId ?? '');
  return discard;
}

/** After a clean close: the file flushed to disk, then the mark removed (a later boot keeps it). */
export function guardUnsyncedClose(path: string, dataFile: string): void {
  const fd = openSync(join(path, dataFile), 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  rmSync(join(path, MARK), { force: true });
}

function writeDurably(file: string, text: string): void {
  const fd = openSync(file, 'w', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  // The directory too: the mark must exist after a power loss if any commit may be torn.
  const dir = openSync(dirname(file), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}
