import { defineConfig } from 'vitest/config';

export default defineConfig({
  // JSX of the console's components and their tests is Preact's.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  test: {
    // The console's component tests (tsx) render Preact in happy-dom.
    include: ['test/**/*.test.ts', 'console/test/**/*.test.tsx'],
    exclude: ['test/bench/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // The operator console is built once (when stale) before the suites that serve it.
    globalSetup: ['test/support/console-build.global-setup.ts'],
  },
});
