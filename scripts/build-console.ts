/**
 * Builds the operator console (console/ → console/dist) when its build is missing or older
 * than any of its sources (or the SDK it bundles): `npm start` runs it first (prestart) and
 * the tests once (test/support/console-build.global-setup.ts), so the README's two commands
 * need no extra step. `--force` builds anyway.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CONSOLE = join(ROOT, 'console');
const BUILT = join(CONSOLE, 'dist', 'index.html');
/** What the build reads: the console and the SDK it bundles. */
const SOURCES = [join(CONSOLE, 'src'), join(CONSOLE, 'index.html'), join(CONSOLE, 'vite.config.ts'), join(ROOT, 'sdk', 'src')];

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((newest, name) => Math.max(newest, newestMtime(join(path, name))), stat.mtimeMs);
}

/** True when console/dist is missing or older than a source. */
export function consoleBuildStale(): boolean {
  if (!existsSync(BUILT)) return true;
  const built = statSync(BUILT).mtimeMs;
  return SOURCES.some((source) => existsSync(source) && newestMtime(source) > built);
}

/** Builds when stale (or always with `force`); answers whether it built. */
export async function buildConsole(options: { force?: boolean } = {}): Promise<boolean> {
  if (!options.force && !consoleBuildStale()) return false;
  // vite is a devDependency: loaded only when a build is due.
  const { build } = await import('vite');
  await build({ configFile: join(CONSOLE, 'vite.config.ts'), logLevel: 'warn' });
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = Date.now();
  const built = await buildConsole({ force: process.argv.includes('--force') });
  if (built) console.log(`console built into console/dist in ${Date.now() - started} ms`);
}
