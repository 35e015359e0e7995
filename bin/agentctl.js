#!/usr/bin/env node
// Ops CLI: runs the compiled CLI (dist/server/agentctl.js, built by `npm start`) when it is
// newer than every source, else loads the TypeScript sources through tsx, so no build step is needed.
import { pathToFileURL } from 'node:url';
import { SERVER_BUILD, serverStale } from './build-targets.js';

async function loadCli() {
  if (!serverStale()) return import(pathToFileURL(`${SERVER_BUILD.dir}/agentctl.js`).href);
  const { register } = await import('tsx/esm/api');
  register();
  return import('../src/cli/agentctl.ts');
}

const { runCli } = await loadCli();
process.exitCode = await runCli(process.argv.slice(2), process.env);
