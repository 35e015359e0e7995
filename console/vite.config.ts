/**
 * The operator console's build: Preact, hashed assets under /assets/ (served `immutable`),
 * index.html served `no-cache` (src/http/console.routes.ts). `npm start` and the test setup
 * build it when its output is missing or older than its sources (scripts/build-console.ts).
 */
import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [preact()],
  // The SDK by its package name, bundled from its sources (as tsconfig's `paths` says for tsc): the console uses only its public surface.
  resolve: { alias: { 'agent-runtime-sdk': fileURLToPath(new URL('../sdk/src/index.ts', import.meta.url)) } },
  logLevel: 'warn',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    // No inline scripts or data-URL assets: the console's CSP allows scripts and styles from 'self' only.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
});
