import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The SDK's samples import its package by name (sdk/package.json): its sources here, as tsconfig's `paths` says for tsc and tsx.
  resolve: { alias: { 'agent-runtime-sdk': fileURLToPath(new URL('./sdk/src/index.ts', import.meta.url)) } },
  // JSX of the console's components and their tests is Preact's.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  test: {
    // The console's component tests (tsx) render Preact in happy-dom.
    include: ['test/**/*.test.ts', 'console/test/**/*.test.tsx'],
    exclude: ['test/bench/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // One test file per core, two to four (vitest's default leaves one core idle: on the 2-core CI
    // machine that ran the suite serially, 8.7 min; two files at once take 4.9 min). Most time is in
    // child processes, browsers and I/O waits, so the files do not starve each other; past four, a
    // large machine would start a browser and a service per core for little gain.
    maxWorkers: Math.max(2, Math.min(availableParallelism(), 4)),
    // The operator console is built once (when stale) before the suites that serve it.
    globalSetup: ['test/support/console-build.global-setup.ts'],
  },
});
