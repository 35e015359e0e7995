import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const MAIN = join(import.meta.dirname, '../../src/main.ts');

/** Runs `src/main.ts` as `npm start` does, with only the given variables set. */
function startMain(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => ({ stdout, stderr }) };
}

async function waitForUrl(output: () => { stdout: string }): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const match = /"url":"(http:\/\/[^"]+)"/.exec(output().stdout);
    if (match) return match[1]!;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`service did not start: ${output().stdout}`);
}

describe('the service process (npm start)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'main-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('starts on the embedded profile with nothing set, serves probes, and stops cleanly on SIGTERM', async () => {
    const main = startMain({ PORT: '0', DATA_DIR: dataDir });
    const url = await waitForUrl(main.output);
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect((await ready.json()).checks).toMatchObject({ store: 'ok', scheduler: 'ok', bus: 'ok', runtime: 'ok' });
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toContain('runtime_actors_live');
    // Generated secrets are said in the log by name and kept private on disk.
    expect(main.output().stdout).toContain('generated missing secrets');
    expect(main.output().stdout).not.toMatch(/"OPS_TOKEN":"/);
    expect(statSync(join(dataDir, 'secrets.json')).mode & 0o777).toBe(0o600);

    main.child.kill('SIGTERM');
    expect(await main.exited).toBe(0);
    expect(main.output().stdout).toContain('service stopped');
  }, 60_000);

  it('refuses a wrong setting with a message naming the variable', async () => {
    const main = startMain({ PORT: 'eighty', DATA_DIR: dataDir });
    expect(await main.exited).toBe(1);
    expect(main.output().stderr).toContain('PORT:');
  }, 30_000);
});
