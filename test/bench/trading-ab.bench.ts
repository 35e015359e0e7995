/**
 * `bench:trading` on a base commit and on this tree in one run, and the ratio of each figure
 * (this tree / base): `npm run bench:trading-ab`. On a shared machine figures move 2x between
 * runs, so a ratio means something only when both sides ran side by side.
 *
 * The base is BENCH_BASE (a commit, tag or branch; default: where this branch left main),
 * extracted with `git archive` into a temporary directory (no worktree, nothing of the
 * repository changes) beside this tree's node_modules, and measured with this tree's bench
 * file, so that both sides run the same phases and only the service's code differs.
 * BENCH_AB_ROUNDS (1) rounds of base then this tree; every other BENCH_* setting is passed
 * to both (see trading.bench.ts), each side printing its own tables as well. The open loops
 * run at one rate on both sides, BENCH_SWAP_RATE (50) swaps/s and BENCH_SUMMARY_RATE (200)
 * reads/s, so that their CPU per call compares like with like.
 */
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchResult } from './trading.bench.js';
import { compiledImport, LOADER_FILES } from './loader/compiled-import.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '../..');
const ROUNDS = Number(process.env.BENCH_AB_ROUNDS ?? 1);
/** The bench and the modules of its own it imports (a base commit may predate them). */
const BENCH_FILES = [
  'test/bench/trading.bench.ts',
  'test/bench/cpu-profile.ts',
  'test/bench/bare-ceiling.ts',
  'test/support/unmetered-limiter.ts',
];

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
}

/** The base commit's tree in a temporary directory, run with this tree's bench files and node_modules. */
function extractBase(ref: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'trading-ab-base-'));
  execFileSync('sh', ['-c', `git archive --format=tar ${JSON.stringify(ref)} | tar -x -C ${JSON.stringify(dir)}`], { cwd: ROOT });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  mkdirSync(join(dir, 'test/bench/loader'), { recursive: true });
  for (const file of [...BENCH_FILES, ...LOADER_FILES]) copyFileSync(join(ROOT, file), join(dir, file));
  return dir;
}

/** One full bench run of the tree at `root`; its tables go to this output, its figures come back. */
function runBench(root: string, label: string): Promise<BenchResult> {
  const resultPath = join(tmpdir(), `trading-ab-${process.pid}-${label}.json`);
  return new Promise((done, fail) => {
    console.log(`\n# ${label} (${root})`);
    const child = spawn(process.execPath, [...compiledImport(root), join(root, 'test/bench/trading.bench.ts')], {
      cwd: root,
      // One open-loop rate for both sides (half of each side's own closed-loop rate would load them differently).
      env: { BENCH_SWAP_RATE: '50', BENCH_SUMMARY_RATE: '200', ...process.env, BENCH_RESULT_PATH: resultPath },
      stdio: 'inherit',
    });
    child.on('error', fail);
    child.on('exit', (code) => {
      try {
        const result = JSON.parse(readFileSync(resultPath, 'utf8')) as BenchResult;
        rmSync(resultPath, { force: true });
        if (code !== 0) console.log(`(${label} exited with ${code}: its checks failed, see above)`);
        done(result);
      } catch (error) {
        fail(new Error(`${label}: no figures (exit ${code}): ${String(error)}`));
      }
    });
  });
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

type Phase = 'summary' | 'swap' | 'openSwap' | 'openSummary' | 'ceiling' | 'ceilingOpenSwap' | 'ceilingOpenSummary';
const PHASES: Array<[Phase, string]> = [
  ['summary', 'MCP trading_portfolio_summary, closed loop'],
  ['swap', 'MCP guarded paper swap, closed loop'],
  ['openSwap', 'MCP guarded paper swap, open loop'],
  ['openSummary', 'MCP trading_portfolio_summary, open loop'],
  // The same code on both sides: how much the machine itself moved between the two runs.
  ['ceiling', 'bare node:http ceiling, closed loop'],
  ['ceilingOpenSwap', 'bare node:http ceiling, open loop at the swap rate'],
  ['ceilingOpenSummary', 'bare node:http ceiling, open loop at the summary rate'],
];
const FIGURES: Array<[keyof BenchResult['swap'], string, number]> = [
  ['rps', 'calls/s', 0],
  ['cpuUsPerCall', 'CPU µs per call', 0],
  ['txnsPerCall', 'LMDB write txns per call', 2],
  ['durablePerCall', 'flush waits per call', 2],
  ['switchesPerCall', 'context switches per call', 1],
  ['gcPct', 'GC pauses % of wall', 1],
  ['p50', 'p50 ms', 1],
  ['p99', 'p99 ms', 1],
];

async function main(): Promise<void> {
  const ref = process.env.BENCH_BASE ?? git('merge-base', 'HEAD', 'main');
  const base = git('rev-parse', '--short', ref);
  const head = git('rev-parse', '--short', 'HEAD');
  const dirty = git('status', '--porcelain', '--untracked-files=no') !== '';
  const baseDir = extractBase(ref);
  const runs: Record<'base' | 'head', BenchResult[]> = { base: [], head: [] };
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      runs.base.push(await runBench(baseDir, `base ${base}, round ${round}`));
      runs.head.push(await runBench(ROOT, `this tree ${head}${dirty ? ' (with uncommitted changes)' : ''}, round ${round}`));
    }
  } finally {
    rmSync(baseDir, { recursive: true, force: true });
  }
  console.log(`\n## This tree (${head}) against base ${base}, same run, ${ROUNDS} round(s) each (mean over rounds)`);
  console.log('| phase | figure | base | this tree | ratio |\n|---|---|---|---|---|');
  for (const [phase, name] of PHASES) {
    const of = (side: 'base' | 'head') => runs[side].map((r) => r[phase]).filter((p) => p !== undefined);
    const [b, h] = [of('base'), of('head')];
    if (b.length === 0 || h.length === 0) continue;
    const rates = (list: typeof b) => list.map((p) => ('rate' in p ? p.rate : undefined)).filter((r) => r !== undefined);
    const label = rates(b).length ? `${name} (base at ${rates(b).join(', ')}/s, this tree at ${rates(h).join(', ')}/s)` : name;
    for (const [figure, title, digits] of FIGURES) {
      const [x, y] = [mean(b.map((p) => p[figure])), mean(h.map((p) => p[figure]))];
      console.log(`| ${label} | ${title} | ${x.toFixed(digits)} | ${y.toFixed(digits)} | ${x ? (y / x).toFixed(2) : '-'}x |`);
    }
  }
  const loads = [...runs.base, ...runs.head].map((r) => r.loadAverage.toFixed(1));
  console.log(`\nload average at the end of each run: ${loads.join(', ')} (2 cores; above 2 other work competed for the CPU)`);
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
