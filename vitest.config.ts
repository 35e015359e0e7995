import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The SDK's samples import its package by name (sdk/package.json): its sources here, as tsconfig's `paths` says for tsc and tsx.
  resolve: { alias: { 'agent-runtime-sdk': fileURLToPath(new URL('./sdk/src/index.ts', import.meta.url)) } },
  // JSX of the console's components and their tests is Preact's.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  test: {
    exclude: ['test/bench/**', 'node_modules/**'],
    projects: [
      {
        extends: true,
        // One module graph per worker, not per file: every file here imports most of the service, and
        // loading it afresh per file was over a third of the suite's time (9.9 min in all, 6.3 without).
        // So a file must leave no global behind: no vi.mock (pass the fake in, as the adapters take
        // their resolver), globals stubbed in a test are unstubbed after it, spies are restored.
        test: { name: 'service', include: ['test/**/*.test.ts'], isolate: false },
      },
      // The console's component tests (tsx) render Preact in happy-dom, each file in a fresh one
      // (the console's API client and its session are module state).
      { extends: true, test: { name: 'console', include: ['console/test/**/*.test.tsx'] } },
    ],
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
