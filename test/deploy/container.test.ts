/**
 * The container files, checked without docker (it cannot run here): the build context that
 * .dockerignore leaves (matched by the `ignore` package: gitignore rules, which the file's
 * patterns are written to share with docker's, every one anchored at the root or starting with
 * `**\/`), the Dockerfile's stages, user, health check and command, and the compose file's MongoDB
 * health check, run against fake replica-set answers.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import ignore from 'ignore';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = join(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

interface Instruction {
  keyword: string;
  args: string;
}

/** The Dockerfile's instructions by stage (continuation lines joined, comments dropped). */
function stages(): Array<{ name: string; instructions: Instruction[] }> {
  const lines = read('Dockerfile')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  const found: Array<{ name: string; instructions: Instruction[] }> = [];
  for (const line of lines) {
    const [, keyword = '', args = ''] = /^(\S+)\s+(.*)$/.exec(line) ?? [];
    if (keyword.toUpperCase() === 'FROM') found.push({ name: /\sAS\s+(\S+)$/i.exec(args)?.[1] ?? '', instructions: [] });
    found.at(-1)?.instructions.push({ keyword: keyword.toUpperCase(), args });
  }
  return found;
}

describe('the build context (.dockerignore)', () => {
  const context = ignore().add(read('.dockerignore'));

  it('leaves out installed packages, local data and secrets, build outputs and the git folder, wherever they sit', () => {
    const left = [
      'node_modules/express/package.json',
      'sdk/node_modules/typescript/package.json',
      'console/node_modules/.vite/deps/preact.js',
      'data/secrets.json',
      'data/store/data.mdb',
      'secrets.json',
      'deploy/secrets.json',
      '.env',
      'deploy/.env.production',
      '.git/HEAD',
      'dist/server/main.js',
      'console/dist/index.html',
      'sdk/dist/index.js',
      'npm-debug.log',
    ];
    expect(left.filter((path) => !context.ignores(path))).toEqual([]);
  });

  it('keeps every file the Dockerfile copies from the context', () => {
    const copied = stages()
      .flatMap((stage) => stage.instructions)
      .filter((instruction) => instruction.keyword === 'COPY' && !instruction.args.includes('--from='))
      .flatMap((instruction) => instruction.args.split(/\s+/).slice(0, -1));
    expect(copied).toEqual(expect.arrayContaining(['package.json', 'package-lock.json', 'src', 'console', 'sdk', 'bin']));
    // The tracked files under each copied path: what a clean checkout would send.
    const files = execFileSync('git', ['ls-files', '--', ...copied], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
    expect(files.length).toBeGreaterThan(100);
    expect(files.filter((path) => context.ignores(path))).toEqual([]);
  });
});

describe('the Dockerfile', () => {
  const all = stages();
  const runtime = all.at(-1)!;
  const last = (keyword: string) => runtime.instructions.filter((instruction) => instruction.keyword === keyword).at(-1);

  it('builds in one stage and runs compiled JavaScript from another, with the runtime packages only', () => {
    expect(all.length).toBeGreaterThanOrEqual(2);
    const build = all.find((stage) => stage.instructions.some((instruction) => instruction.args.includes('scripts/build.ts')));
    expect(build).toBeDefined();
    expect(build).not.toBe(runtime);
    const fromBuild = runtime.instructions.filter((instruction) => instruction.args.includes(`--from=${build!.name}`));
    expect(fromBuild.map((instruction) => instruction.args.split(/\s+/).at(-1))).toEqual(
      expect.arrayContaining(['./dist/server', './console/dist', './dist/widget']),
    );
    // Packages come from a stage that installed without dev dependencies (no tsx, vite, esbuild).
    const packages = runtime.instructions.find((instruction) => instruction.args.includes('/app/node_modules'));
    const source = all.find((stage) => packages?.args.includes(`--from=${stage.name}`));
    expect(source?.instructions.some((instruction) => /npm ci .*--omit=dev/.test(instruction.args))).toBe(true);
    expect(runtime.instructions.some((instruction) => /\btsx\b/.test(instruction.args))).toBe(false);

    const command = JSON.parse(last('CMD')!.args) as string[];
    expect(command[0]).toBe('node');
    expect(command.at(-1)).toBe('dist/server/main.js');
  });

  it('runs as an unprivileged user and says when the service is ready', () => {
    expect(last('USER')?.args).toMatch(/^(?!root$|0$)\S+$/);
    const health = last('HEALTHCHECK')?.args ?? '';
    expect(health).toMatch(/\bCMD\b/);
    expect(health).toContain('/readyz');
  });
});

describe('docker-compose.yml', () => {
  const compose = parse(read('docker-compose.yml')) as {
    services: Record<string, { healthcheck?: { test: string[] }; depends_on?: Record<string, { condition: string }> }>;
  };

  /** Runs the MongoDB health check's script against a fake server: its exit code (0 when it ends without `quit`). */
  function mongoHealth(server: { initiated: boolean; writablePrimary: boolean }): { code: number; initiated: boolean } {
    const test = compose.services.mongo!.healthcheck!.test;
    expect(test.slice(0, 2)).toEqual(['CMD', 'mongosh']);
    const script = test[test.indexOf('--eval') + 1]!;
    const exit = Symbol('exit');
    let code = 0;
    const rs = {
      status: () => {
        if (!server.initiated) throw new Error('no replset config has been received');
        return { ok: 1 };
      },
      initiate: () => {
        server.initiated = true;
        return { ok: 1 };
      },
    };
    const db = { hello: () => ({ isWritablePrimary: server.writablePrimary }) };
    const quit = (status = 0) => {
      code = status;
      throw exit;
    };
    try {
      runInNewContext(script, { rs, db, quit });
    } catch (error) {
      if (error !== exit) throw error;
    }
    return { code, initiated: server.initiated };
  }

  it('MongoDB is healthy only once it is a writable primary, and initiates its replica set on the way', () => {
    expect(mongoHealth({ initiated: false, writablePrimary: false })).toEqual({ code: 1, initiated: true });
    expect(mongoHealth({ initiated: true, writablePrimary: false }).code).toBe(1);
    expect(mongoHealth({ initiated: true, writablePrimary: true }).code).toBe(0);
  });

  it('the service waits for a healthy MongoDB and Redis, and the proxy for a healthy service', () => {
    expect(compose.services.service?.depends_on).toMatchObject({
      mongo: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
    });
    expect(compose.services.proxy?.depends_on).toMatchObject({ service: { condition: 'service_healthy' } });
  });
});
