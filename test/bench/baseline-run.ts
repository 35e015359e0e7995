import { spawn, execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compiledImport, LOADER_FILES } from './loader/compiled-import.js';

/**
 * A/B in one run: a bench measures another commit's code (the baseline) in a child process
 * before it measures its own, with the same settings, and prints its figures as ratios to the
 * baseline's. Figures typed in from an earlier run drift with the machine's load (2x on a
 * shared VM); two runs a few minutes apart on one machine drift far less.
 *
 * The baseline runs in a detached git worktree of `ref` (node_modules linked to this one's),
 * with this bench's own files copied over the old ones: the same measurement, the other
 * commit's service. The child writes its figures to `BENCH_RESULT_FILE` (`writeResult`).
 */

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Set in the child: where its figures go, and that it must not start a baseline of its own. */
const RESULT_FILE = process.env.BENCH_RESULT_FILE;

export type Figures = Record<string, number>;

/** True in the child run that measures the baseline. */
export const isBaselineChild = RESULT_FILE !== undefined;

/** Hands this run's figures to the parent (a no-op outside a baseline child). */
export function writeResult(figures: Figures): void {
  if (RESULT_FILE) writeFileSync(RESULT_FILE, JSON.stringify(figures));
}

/**
 * Runs `benchFile` (relative to the repository root) at `ref` in a child process with `env`,
 * its output indented under a heading, and answers the figures it wrote (undefined when the
 * child failed). `files` are the bench's own modules copied over the worktree's versions.
 */
export async function runBaseline(options: {
  ref: string;
  benchFile: string;
  files: readonly string[];
  env: Record<string, string>;
  nodeArgs?: readonly string[];
}): Promise<Figures | undefined> {
  const commit = execFileSync('git', ['rev-parse', '--short', options.ref], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  const dir = mkdtempSync(join(tmpdir(), 'bench-base-'));
  const tree = join(dir, 'tree');
  execFileSync('git', ['worktree', 'add', '--detach', '--quiet', tree, commit], { cwd: REPO_ROOT, stdio: 'ignore' });
  try {
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(tree, 'node_modules'));
    mkdirSync(join(tree, 'test/bench/loader'), { recursive: true });
    for (const file of [options.benchFile, ...options.files, ...LOADER_FILES]) {
      const from = join(REPO_ROOT, file);
      if (existsSync(from)) copyFileSync(from, join(tree, relative(REPO_ROOT, from)));
    }
    const resultFile = join(dir, 'result.json');
    console.log(`\n# baseline: ${options.ref} (${commit}), same settings, in a child process\n`);
    const code = await new Promise<number>((resolve, reject) => {
      const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...compiledImport(tree), options.benchFile], {
        cwd: tree,
        env: { ...process.env, ...options.env, BENCH_RESULT_FILE: resultFile },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const indent = (chunk: Buffer) =>
        process.stdout.write(
          chunk
            .toString()
            .split('\n')
            .map((line) => (line ? `    ${line}` : line))
            .join('\n'),
        );
      child.stdout.on('data', indent);
      child.stderr.on('data', indent);
      child.on('error', reject);
      child.on('close', (status) => resolve(status ?? 1));
    });
    console.log(`\n# baseline done (exit ${code}); now this worktree's code\n`);
    return existsSync(resultFile) ? (JSON.parse(readFileSync(resultFile, 'utf8')) as Figures) : undefined;
  } finally {
    execFileSync('git', ['worktree', 'remove', '--force', tree], { cwd: REPO_ROOT, stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One line per figure both runs have: this run's, the baseline's, and their ratio. */
export function printRatios(title: string, current: Figures, baseline: Figures | undefined, labels: Record<string, string>): void {
  if (!baseline) return;
  console.log(`\n### ${title}: this commit against the baseline, same run\n| figure | baseline | this commit | ratio |\n|---|---|---|---|`);
  for (const [key, label] of Object.entries(labels)) {
    const a = baseline[key];
    const b = current[key];
    // NaN (no sample) travels through JSON as null.
    if (typeof a !== 'number' || typeof b !== 'number' || !Number.isFinite(a) || !Number.isFinite(b)) continue;
    const ratio = a === 0 ? '—' : `${(b / a).toFixed(2)}x`;
    console.log(
      `| ${label} | ${a.toLocaleString('en-US', { maximumFractionDigits: 1 })} | ${b.toLocaleString('en-US', { maximumFractionDigits: 1 })} | ${ratio} |`,
    );
  }
}
