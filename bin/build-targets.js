import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildStale } from '../kernel/shared/build-freshness.js';

/*
 * What `npm start` builds when stale, and from what: the server's bundle (scripts/build-server.ts)
 * and the operator console (scripts/build-console.ts). Plain JavaScript (typed by
 * build-targets.d.ts) so the launchers beside it decide without loading a TypeScript compiler:
 * a start with nothing changed compiles nothing. It lives with the launchers, its first readers,
 * not among the build scripts, which import the server's sources: the launchers read nothing
 * from scripts/, and the production image ships bin/ without it.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The server's bundle: `main.js` (the service) and `agentctl.js` (the ops CLI), written last, so their presence means a whole build. */
export const SERVER_BUILD = {
  dir: join(ROOT, 'dist', 'server'),
  output: join(ROOT, 'dist', 'server', 'main.js'),
  sources: ['kernel', 'src', 'machines', 'agents', 'adapters', 'scripts/build-server.ts', 'tsconfig.json'].map((path) => join(ROOT, path)),
};

/** The operator console: its sources and the SDK it bundles. */
export const CONSOLE_BUILD = {
  dir: join(ROOT, 'console', 'dist'),
  output: join(ROOT, 'console', 'dist', 'index.html'),
  sources: ['console/src', 'console/index.html', 'console/vite.config.ts', 'sdk/src'].map((path) => join(ROOT, path)),
};

/** Whether the server's bundle is missing or older than a source. */
export const serverStale = () => buildStale(SERVER_BUILD.output, SERVER_BUILD.sources);

/** Whether the console's build is missing or older than a source. */
export const consoleStale = () => buildStale(CONSOLE_BUILD.output, CONSOLE_BUILD.sources);
