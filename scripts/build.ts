/**
 * Builds what is stale: the server's bundle (dist/server) and the operator console
 * (console/dist); `--force` builds both anyway. bin/start.js (`npm start`) runs it only when
 * one of them is stale; the Docker image's build stage runs it with `--force`.
 */
import { buildConsole } from './build-console.js';
import { buildServer } from './build-server.js';

const force = process.argv.includes('--force');
for (const [name, build, where] of [
  ['server', buildServer, 'dist/server'],
  ['console', buildConsole, 'console/dist'],
] as const) {
  const started = Date.now();
  if (await build({ force })) console.log(`${name} built into ${where} in ${Date.now() - started} ms`);
}
