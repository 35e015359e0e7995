/**
 * One service process per data directory without REDIS_URL: a second one is
 * refused at start with a message saying why, while the first goes on serving; the data
 * directory is free again once its holder stops, or dies (SIGKILL leaves a stale socket).
 * With REDIS_URL two processes share it: two-process.test.ts.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ServiceProcess } from '../support/service-process.js';

const MAIN = join(import.meta.dirname, '../../src/main.ts');

/** `src/main.ts` as `npm start` runs it; resolves with its exit code and stderr. */
function runMain(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    }),
  );
}

describe('a data directory without REDIS_URL', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'dir-lock-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('refuses a second process, and is free again once the first stops or dies', async () => {
    const first = await ServiceProcess.start({ DATA_DIR: dataDir });
    try {
      const second = await runMain({ PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(`DATA_DIR: ${dataDir} is in use by another service process`);
      expect(second.stderr).toContain('REDIS_URL');
      // The refused one changed nothing for the holder.
      expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
      expect(existsSync(join(dataDir, 'instance.sock'))).toBe(true);
    } finally {
      await first.kill(); // dies holding it: the socket file stays, nobody listens
    }
    expect(existsSync(join(dataDir, 'instance.sock'))).toBe(true);

    const afterCrash = await ServiceProcess.start({ DATA_DIR: dataDir });
    expect((await fetch(`${afterCrash.url}/healthz`)).status).toBe(200);
    await afterCrash.stop();
    expect(existsSync(join(dataDir, 'instance.sock'))).toBe(false);

    const afterStop = await ServiceProcess.start({ DATA_DIR: dataDir });
    await afterStop.stop();
  }, 120_000);

  it('lets only one of two processes started at once on it serve', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dir-lock-race-'));
    try {
      const started = await Promise.allSettled([ServiceProcess.start({ DATA_DIR: dir }), ServiceProcess.start({ DATA_DIR: dir })]);
      const serving = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
      expect(serving).toHaveLength(1);
      await serving[0]!.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
