import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/bench/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // The operator console is built once (when stale) before the suites that serve it.
    globalSetup: ['test/support/console-build.global-setup.ts'],
  },
});
