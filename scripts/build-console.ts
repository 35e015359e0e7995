/**
 * Builds the operator console (console/ → console/dist) when its build is missing or older
 * than any of its sources (or the SDK it bundles): `npm start` runs it first (scripts/build.ts)
 * and the tests once (test/support/console-build.global-setup.ts), so the README's two commands
 * need no extra step. `--force` builds anyway.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONSOLE_BUILD, consoleStale } from '../bin/build-targets.js';

/** Builds when stale (or always with `force`); answers whether it built. */
export async function buildConsole(options: { force?: boolean } = {}): Promise<boolean> {
  if (!options.force && !consoleStale()) return false;
  // vite is a devDependency: loaded only when a build is due.
  const { build } = await import('vite');
  await build({ configFile: join(CONSOLE_BUILD.dir, '..', 'vite.config.ts'), logLevel: 'warn' });
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = Date.now();
  const built = await buildConsole({ force: process.argv.includes('--force') });
  if (built) console.log(`console built into console/dist in ${Date.now() - started} ms`);
}
