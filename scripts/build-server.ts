/**
 * Compiles the server (src/main.ts) and the ops CLI (src/cli/agentctl.ts) into plain
 * JavaScript under dist/server with esbuild, so a start loads one bundle instead of compiling
 * its TypeScript (bin/start.js runs it when stale; `--force` builds anyway). Packages stay
 * imports of node_modules. Code splitting keeps a module loaded by `import()` (the production
 * adapters, chosen by the configuration) and its packages out of the start of the embedded profile.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVER_BUILD, serverStale } from '../bin/build-targets.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Builds when stale (or always with `force`); answers whether it built. */
export async function buildServer(options: { force?: boolean } = {}): Promise<boolean> {
  if (!options.force && !serverStale()) return false;
  // esbuild is a devDependency: loaded only when a build is due.
  const { build } = await import('esbuild');
  const result = await build({
    absWorkingDir: ROOT,
    // Every output file sits two folders deep (dist/server), as the sources do (src/<area>, kernel/<area>), so paths a
    // module finds from its own URL (the console's build, the widget's sources) are the same in both.
    entryPoints: { main: 'src/main.ts', agentctl: 'src/cli/agentctl.ts' },
    outdir: SERVER_BUILD.dir,
    entryNames: '[name]',
    chunkNames: '[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    // Stack traces name the TypeScript line (bin/start.js turns source maps on); the checkout has the text.
    sourcemap: true,
    sourcesContent: false,
    write: false,
    logLevel: 'warning',
  });
  await writeOutputs(result.outputFiles.map((file) => ({ path: file.path, contents: file.contents })));
  return true;
}

/**
 * Writes each file whole (a temporary file renamed over it), `main.js` last (its time is the
 * build's), then removes what an earlier build left (chunks of another hash).
 */
async function writeOutputs(files: { path: string; contents: Uint8Array }[]): Promise<void> {
  const ordered = [
    ...files.filter((file) => file.path !== SERVER_BUILD.output),
    ...files.filter((file) => file.path === SERVER_BUILD.output),
  ];
  for (const file of ordered) {
    await mkdir(dirname(file.path), { recursive: true });
    const temporary = `${file.path}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temporary, file.contents);
    await rename(temporary, file.path);
  }
  const written = new Set(files.map((file) => relative(SERVER_BUILD.dir, file.path)));
  const present = await readdir(SERVER_BUILD.dir, { recursive: true, withFileTypes: true });
  for (const item of present) {
    const path = relative(SERVER_BUILD.dir, join(item.parentPath, item.name));
    // Another start building at the same moment may be writing its temporary files.
    if (item.isFile() && !written.has(path) && !path.endsWith('.tmp')) await rm(join(SERVER_BUILD.dir, path), { force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = Date.now();
  const built = await buildServer({ force: process.argv.includes('--force') });
  if (built) console.log(`server built into dist/server in ${Date.now() - started} ms`);
}
