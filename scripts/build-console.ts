/**
 * Builds the operator console (console/ → console/dist) when its build is missing or older
 * than any of its sources (or the SDK it bundles): `npm start` runs it first (prestart) and
 * the tests once (test/support/console-build.global-setup.ts), so the README's two commands
 * need no extra step. `--force` builds anyway.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildStale } from '../src/shared/build-freshness.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CONSOLE = join(ROOT, 'console');
const BUILT = join(CONSOLE, 'dist', 'index.html');
/** What the build reads: the console and the SDK it bundles. */
const SOURCES = [join(CONSOLE, 'src'), join(CONSOLE, 'index.html'), join(CONSOLE, 'vite.config.ts'), join(ROOT, 'sdk', 'src')];

/** Builds when stale (or always with `force`); answers whether it built. */
export async function buildConsole(options: { force?: boolean } = {}): Promise<boolean> {
  if (!options.force && !buildStale(BUILT, SOURCES)) return false;
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
