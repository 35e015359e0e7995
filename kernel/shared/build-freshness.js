import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/*
 * Whether a build output is older than what it is built from, by modification time: the one
 * check of every build that `npm start` makes when stale (bin/build-targets.js) and of the
 * widget's bundle at start. Plain JavaScript (typed by build-freshness.d.ts): the launchers in
 * bin/ run it before anything can compile TypeScript.
 */

/** The newest modification time under `path`: a file's own, a folder's and everything in it (a folder's changes when a file is added or removed). */
function newestMtime(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((newest, name) => Math.max(newest, newestMtime(join(path, name))), stat.mtimeMs);
}

/** True when `output` is missing or older than any of `sources` (files or folders; a missing one is not read, as in an image that ships only the output). */
export function buildStale(output, sources) {
  if (!existsSync(output)) return true;
  const built = statSync(output).mtimeMs;
  return sources.some((source) => existsSync(source) && newestMtime(source) > built);
}
