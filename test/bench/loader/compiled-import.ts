/**
 * How a bench starts Node on a tree's TypeScript compiled as the production build compiles it
 * (build-hooks.mjs): for its own child processes, and for another commit's tree (baseline-run.ts
 * copies these files into it first).
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The checkout this file is in. */
const THIS_TREE = join(import.meta.dirname, '..', '..', '..');

/** The loader's files, to copy into a tree that predates them. */
export const LOADER_FILES = ['test/bench/loader/register.mjs', 'test/bench/loader/build-hooks.mjs', 'test/bench/loader/compiled-import.ts'];

/** Node's arguments that load `tree`'s TypeScript through the loader. */
export function compiledImport(tree = THIS_TREE): string[] {
  return ['--import', pathToFileURL(join(tree, 'test/bench/loader/register.mjs')).href];
}
