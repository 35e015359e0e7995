#!/usr/bin/env node
// `npm start`: builds what is stale (the server's bundle, the console) in a child process that
// compiles TypeScript, then runs the compiled server in this process (node stays PID of the
// start, so SIGTERM reaches the service); a restart with nothing changed compiles nothing.
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { consoleStale, SERVER_BUILD, serverStale } from './build-targets.js';

if (serverStale() || consoleStale()) {
  const build = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('../scripts/build.ts', import.meta.url))], {
    stdio: 'inherit',
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
// Stack traces name the TypeScript sources (the bundle carries source maps).
process.setSourceMapsEnabled(true);
await import(pathToFileURL(SERVER_BUILD.output).href);
