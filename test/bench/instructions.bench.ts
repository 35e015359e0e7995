/**
 * Instructions a flow costs, counted by valgrind (callgrind), not timed: `npm run bench:instructions`.
 *
 * CPU time per request swings 10-20% between rounds on this shared machine, more than most
 * changes to the hot path move it; an instruction count is the same whatever else the machine
 * does (it does not see cache misses or the kernel's share, so it complements the timed benches
 * rather than replacing them). A flow of `store-call-flows.ts` (the real service in-process, the
 * embedded profile, a manual clock so that no timer fires on its own) runs BENCH_WARMUP (200)
 * times, then BENCH_CALLS (200) more; the process runs under callgrind twice, once without the
 * measured calls, and the difference divided by BENCH_CALLS is the flow's instructions per call.
 * The audit trail is flushed every 50 calls, as the service's 100 ms flush meets ~60 swaps at
 * full load. Node runs with `--single-threaded` (V8 compiles and collects on the main thread), so
 * that the counts repeat; what lmdb-js's write thread does is counted too (valgrind counts
 * every thread). The service maps 8 GiB per LMDB environment instead of 64 (STORE_MAP_SIZE_MB):
 * valgrind gives a process 128 GB of address space.
 *
 * BENCH_FLOW ('MCP swap'; any of FLOWS), BENCH_BASE (a commit: measured first the same way in
 * a worktree of it, and this tree's figures printed as ratios to its).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FLOWS, type FlowName, startStoreCallBench } from '../support/store-call-flows.js';
import { isBaselineChild, printRatios, runBaseline, writeResult, type Figures } from './baseline-run.js';
import { compiledImport } from './loader/compiled-import.js';

const FLOW = (process.env.BENCH_FLOW ?? 'MCP swap') as FlowName;
const WARMUP = Number(process.env.BENCH_WARMUP ?? 200);
const CALLS = Number(process.env.BENCH_CALLS ?? 200);
const AUDIT_FLUSH_EVERY = 50;
/** Set in the process valgrind runs: how many measured calls it makes after the warm-up. */
const WORKLOAD_CALLS = process.env.BENCH_INSTRUCTIONS_WORKLOAD;
const THIS_FILE = fileURLToPath(import.meta.url);
const TREE = join(THIS_FILE, '..', '..', '..');

/** The process under valgrind: the warm-up, then `calls` measured calls. */
async function workload(calls: number): Promise<void> {
  // Valgrind gives a process 128 GB of address space: two 64 GiB LMDB maps do not fit.
  const bench = await startStoreCallBench({ env: { STORE_MAP_SIZE_MB: '8192' }, unmetered: true });
  for (let i = 1; i <= WARMUP + calls; i++) {
    await bench.call(FLOW);
    if (i % AUDIT_FLUSH_EVERY === 0) await bench.settle();
  }
  await bench.settle();
  await bench.stop();
}

/** Instructions of one process under callgrind making `calls` measured calls. */
function instructionsOf(calls: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'instructions-'));
  const args = [
    '--tool=callgrind',
    `--callgrind-out-file=${join(dir, 'callgrind.out')}`,
    process.execPath,
    '--single-threaded',
    ...compiledImport(TREE),
    THIS_FILE,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn('valgrind', args, {
      cwd: TREE,
      env: { ...process.env, BENCH_INSTRUCTIONS_WORKLOAD: String(calls) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      rmSync(dir, { recursive: true, force: true });
      const collected = /Collected : (\d+)/.exec(stderr);
      if (code !== 0 || !collected) reject(new Error(`valgrind run of ${calls} calls failed (exit ${code}):\n${stderr.slice(-2000)}`));
      else resolve(Number(collected[1]));
    });
  });
}

/** This tree's figures: instructions per call, and of the warm-up-only run. */
async function measure(): Promise<Figures> {
  const started = performance.now();
  const base = await instructionsOf(0);
  const loaded = await instructionsOf(CALLS);
  const perCall = (loaded - base) / CALLS;
  console.log(
    `${FLOW}: ${Math.round(perCall).toLocaleString('en-US')} instructions a call (${CALLS} calls after ${WARMUP}; ` +
      `the run without them ${(base / 1e9).toFixed(2)} G; ${((performance.now() - started) / 1000).toFixed(0)} s under valgrind)`,
  );
  return { perCall, warmupRun: base };
}

if (!FLOWS.includes(FLOW)) throw new Error(`BENCH_FLOW must be one of: ${FLOWS.join(', ')}`);
if (WORKLOAD_CALLS !== undefined) {
  await workload(Number(WORKLOAD_CALLS));
} else if (isBaselineChild) {
  writeResult(await measure());
} else {
  const ref = process.env.BENCH_BASE;
  const baseline = ref
    ? await runBaseline({
        ref,
        benchFile: 'test/bench/instructions.bench.ts',
        files: ['test/bench/baseline-run.ts', 'test/support/store-call-flows.ts', 'test/support/unmetered-limiter.ts'],
        env: {},
      })
    : undefined;
  const current = await measure();
  printRatios(`${FLOW}, instructions`, current, baseline, { perCall: 'instructions a call', warmupRun: 'the run without measured calls' });
}
