import { execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const MAIN = join(ROOT, 'src/main.ts');

/** A child with only the given variables set (and PATH, HOME), its output captured. */
function spawnCapturing(command: string, args: string[], env: Record<string, string>, cwd?: string) {
  const child = spawn(command, args, {
    ...(cwd ? { cwd } : {}),
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

/** Runs `src/main.ts` as `npm start` does. */
const startMain = (env: Record<string, string>) => spawnCapturing(process.execPath, ['--import', 'tsx', MAIN], env);

/** Runs `npm start` itself in the repository (or a copy of it), as an operator would. */
const startNpm = (env: Record<string, string>, cwd = ROOT) => spawnCapturing('npm', ['start', '--silent'], env, cwd);

/**
 * A copy of the checkout without the server's bundle (modification times kept, so the console's
 * build stays fresh), its packages linked from this one's: all of them, or all but `without`.
 */
function checkoutCopy(into: string): { linkPackages(without?: string): void } {
  for (const path of [
    'package.json',
    'tsconfig.json',
    'bin',
    'scripts',
    'kernel',
    'src',
    'machines',
    'agents',
    'adapters',
    'console',
    'sdk/src',
    'widget',
  ]) {
    cpSync(join(ROOT, path), join(into, path), {
      recursive: true,
      preserveTimestamps: true,
      filter: (source) => !source.includes('node_modules'),
    });
  }
  return {
    linkPackages(without?: string) {
      const modules = join(into, 'node_modules');
      rmSync(modules, { recursive: true, force: true });
      if (without === undefined) return symlinkSync(join(ROOT, 'node_modules'), modules);
      mkdirSync(modules);
      for (const name of readdirSync(join(ROOT, 'node_modules'))) {
        if (name !== without) symlinkSync(join(ROOT, 'node_modules', name), join(modules, name));
      }
    },
  };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitForUrl(output: () => { stdout: string }): Promise<string> {
  // Up to a minute: a first start builds the server's bundle, on a machine that may be busy.
  for (let i = 0; i < 600; i++) {
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
    // A directory the service creates itself (mkdtemp's would already be 0700).
    const data = join(dataDir, 'data');
    const main = startMain({ PORT: '0', DATA_DIR: data });
    const url = await waitForUrl(main.output);
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect((await ready.json()).checks).toMatchObject({ store: 'ok', scheduler: 'ok', bus: 'ok', runtime: 'ok' });
    // The scrape asks for the ops token, here the one generated into the data directory.
    expect((await fetch(`${url}/metrics`)).status).toBe(401);
    const opsToken = (JSON.parse(readFileSync(join(data, 'secrets.json'), 'utf8')) as { OPS_TOKEN: string }).OPS_TOKEN;
    const metrics = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${opsToken}` } })).text();
    expect(metrics).toContain('runtime_actors_live');
    // Generated secrets are said in the log by name and kept private on disk.
    expect(main.output().stdout).toContain('generated missing secrets');
    expect(main.output().stdout).not.toMatch(/"OPS_TOKEN":"/);
    // The data directory, the store and its files are the service user's alone.
    const modeOf = (path: string) => statSync(join(data, path)).mode & 0o777;
    expect([modeOf('.'), modeOf('secrets.json'), modeOf('store'), modeOf('store/data.mdb'), modeOf('store/lock.mdb')]).toEqual([
      0o700, 0o600, 0o700, 0o600, 0o600,
    ]);

    main.child.kill('SIGTERM');
    expect(await main.exited).toBe(0);
    expect(main.output().stdout).toContain('service stopped');
  }, 60_000);

  it('stops the server when the npm start process is sent SIGTERM (no child left behind)', async () => {
    const npmDir = mkdtempSync(join(tmpdir(), 'npm-start-'));
    const npm = startNpm({ PORT: '0', DATA_DIR: npmDir });
    let serverPid: number | undefined;
    try {
      const url = await waitForUrl(npm.output);
      // The server process is the one whose log line announced the url.
      serverPid = Number(/"pid":(\d+)[^\n]*"service listening"/.exec(npm.output().stdout)?.[1]);
      expect(serverPid).toBeGreaterThan(0);
      expect(serverPid).not.toBe(npm.child.pid);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);

      npm.child.kill('SIGTERM');
      await npm.exited;
      const deadline = Date.now() + 5_000;
      while (isAlive(serverPid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(isAlive(serverPid)).toBe(false);
      await expect(fetch(`${url}/healthz`)).rejects.toThrow();
      expect(npm.output().stdout).toContain('service stopped');
    } finally {
      if (serverPid !== undefined && isAlive(serverPid)) process.kill(serverPid, 'SIGKILL');
      rmSync(npmDir, { recursive: true, force: true });
    }
  }, 90_000);

  it('npm start builds the server into dist/server when stale and runs that JavaScript: a restart builds nothing and needs no tsx, agentctl too', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'compiled-start-'));
    const checkout = checkoutCopy(copy);
    const bundle = join(copy, 'dist/server/main.js');
    /** One `npm start` in the copy until /healthz answers; its output once stopped. */
    const startOnce = async (extra: (url: string) => Promise<void> = async () => undefined) => {
      const npm = startNpm({ PORT: '0', DATA_DIR: join(copy, 'data') }, copy);
      try {
        const url = await waitForUrl(npm.output);
        expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok' });
        await extra(url);
      } finally {
        npm.child.kill('SIGTERM');
      }
      expect(await npm.exited).toBe(0);
      return npm.output();
    };
    try {
      checkout.linkPackages();
      // The bundle finds the console's build where the sources do.
      const first = await startOnce(async (url) => {
        const page = await fetch(`${url}/`);
        expect(page.status).toBe(200);
        expect(page.headers.get('content-type')).toContain('text/html');
      });
      expect(first.stdout).toMatch(/^server built into dist\/server in \d+ ms$/m);
      const builtAt = statSync(bundle).mtimeMs;

      // Nothing changed: no build, and the server and the ops CLI run without the TypeScript loader.
      checkout.linkPackages('tsx');
      const again = await startOnce(async (url) => {
        const cli = await promisify(execFile)(process.execPath, [join(copy, 'bin/agentctl.js'), 'types', '--url', url], {
          env: { PATH: process.env.PATH, DATA_DIR: join(copy, 'data') },
          encoding: 'utf8',
        });
        expect(cli.stdout).toMatch(/^agent\b/m);
      });
      expect(again.stdout).not.toContain('server built');
      expect(statSync(bundle).mtimeMs).toBe(builtAt);

      // A source edited since: built again before the start.
      checkout.linkPackages();
      const later = new Date(Date.now() + 2_000);
      utimesSync(join(copy, 'src/main.ts'), later, later);
      const edited = await startOnce();
      expect(edited.stdout).toMatch(/^server built into dist\/server in \d+ ms$/m);
      expect(statSync(bundle).mtimeMs).toBeGreaterThan(builtAt);
      expect(existsSync(join(copy, 'dist/server/agentctl.js'))).toBe(true);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  }, 240_000);

  it('says in one line that the port is taken, naming PORT, instead of a stack', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as AddressInfo;
    try {
      const main = startMain({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: mkdtempSync(join(dataDir, 'taken-')) });
      expect(await main.exited).toBe(1);
      expect(main.output().stderr).toBe(
        `Failed to start: 127.0.0.1:${port} is already in use; stop the process that holds it or set PORT to a free port.\n`,
      );
    } finally {
      holder.close();
    }
  }, 60_000);

  it('refuses a wrong setting with a message naming the variable', async () => {
    const main = startMain({ PORT: 'eighty', DATA_DIR: dataDir });
    expect(await main.exited).toBe(1);
    expect(main.output().stderr).toContain('PORT:');
  }, 30_000);
});
