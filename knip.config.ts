/**
 * knip: unused files, exports, types and dependencies, checked in `npm test` (`npm run lint:unused`).
 * Run twice: the default run sees tests as entries (an export a test imports is used); the
 * `--production` run sees only the `!` entries and project files, and checks files only, so a
 * file under src/, agents/, machines/ or adapters/ that only tests reach is reported (it belongs
 * in test/support).
 */
import type { KnipConfig } from 'knip';

const config: KnipConfig = {
  // bin/agentctl.js (package.json "bin"), vitest.config.ts and .dependency-cruiser.cjs are found by
  // knip's own plugins; listing them again only earns a "redundant entry" hint.
  // The SDK's public surface is its index (sdk/package.json, a package of its own); the generator is a script run by hand and by its test.
  entry: [
    'src/main.ts!',
    // `npm start`: builds what is stale, then runs the compiled src/main.ts.
    'bin/start.js!',
    'sdk/src/index.ts!',
    'src/cli/agentctl.ts!',
    // The chat widget's bundle entry (esbuild, src/widget/widget-script.ts).
    'widget/src/main.ts!',
    'sdk/examples/*.ts',
    'scripts/*.ts',
    'examples/*.ts',
    'test/**/*.test.ts',
    'console/test/**/*.test.tsx',
    'test/bench/*.bench.ts',
    // The operator console: its entry (index.html names it) and its build config.
    'console/src/main.tsx!',
    'console/vite.config.ts',
  ],
  project: [
    'kernel/**/*.ts!',
    'src/**/*.ts!',
    'agents/**/*.ts!',
    'machines/**/*.ts!',
    'adapters/**/*.ts!',
    'bin/**/*.js!',
    'sdk/src/**/*.ts!',
    'console/src/**/*.{ts,tsx}!',
    'widget/src/**/*.ts!',
    'sdk/examples/**/*.ts',
    'scripts/**/*.ts',
    'test/**/*.ts',
    'examples/**/*.ts',
  ],
  // A value (function, constant, schema) exported but used only in its own file is surface nobody
  // needs: drop the `export`. A type used in its own file usually names a parameter or result of an
  // exported function, and callers may need to name it too, so it may stay exported.
  ignoreDependencies: [
    // Resolved from tools/mcp-inspector, its own package (it asks for Node 22; see scripts/ensure-inspector.js).
    '@modelcontextprotocol/inspector',
  ],
  ignoreExportsUsedInFile: { interface: true, type: true },
  // Debian packages, not npm ones: util-linux's CPU pinning (bench:trading runs the service and its load generator
  // under it) and the machines' Redis (the chaos run starts its own server).
  ignoreBinaries: ['taskset', 'redis-server'],
};

export default config;
