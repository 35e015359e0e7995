import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { currentBootId, guardUnsyncedClose, guardUnsyncedOpen } from '../../adapters/lmdb/lmdb-boot.guard.js';

const dirs: string[] = [];
const FILES = ['data.mdb', 'lock.mdb'];

async function dirWithFiles(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'boot-guard-'));
  dirs.push(dir);
  for (const file of FILES) writeFileSync(join(dir, file), 'pages');
  return dir;
}

const present = (dir: string) => FILES.filter((file) => existsSync(join(dir, file)));

afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('guardUnsyncedOpen / guardUnsyncedClose', () => {
  it('keeps the files of a first open and of a process stopped in the same boot, and marks the boot', async () => {
    const dir = await dirWithFiles();
    expect(guardUnsyncedOpen(dir, FILES, 'boot-a')).toBe(false);
    expect(readFileSync(join(dir, 'open-in-boot'), 'utf8')).toBe('boot-a');
    // Killed without closing, started again before the machine stopped: the page cache had it all.
    expect(guardUnsyncedOpen(dir, FILES, 'boot-a')).toBe(false);
    expect(present(dir)).toEqual(FILES);
  });

  it('removes the files left open when the machine stopped, and keeps those closed cleanly', async () => {
    const dir = await dirWithFiles();
    guardUnsyncedOpen(dir, FILES, 'boot-a');
    expect(guardUnsyncedOpen(dir, FILES, 'boot-b')).toBe(true);
    expect(present(dir)).toEqual([]);
    expect(readFileSync(join(dir, 'open-in-boot'), 'utf8')).toBe('boot-b');
    for (const file of FILES) writeFileSync(join(dir, file), 'pages');
    guardUnsyncedClose(dir, 'data.mdb');
    expect(existsSync(join(dir, 'open-in-boot'))).toBe(false);
    expect(guardUnsyncedOpen(dir, FILES, 'boot-c')).toBe(false);
    expect(present(dir)).toEqual(FILES);
  });

  it('removes nothing when the boot is unknown', async () => {
    const dir = await dirWithFiles();
    guardUnsyncedOpen(dir, FILES, 'boot-a');
    expect(guardUnsyncedOpen(dir, FILES, undefined)).toBe(false);
    expect(present(dir)).toEqual(FILES);
  });

  it('reads the boot of this machine where the system tells it', () => {
    const boot = currentBootId();
    if (existsSync('/proc/sys/kernel/random/boot_id')) expect(boot).toMatch(/^[0-9a-f-]{36}$/);
    else expect(boot).toBeUndefined();
  });
});
