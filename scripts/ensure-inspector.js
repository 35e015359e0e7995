#!/usr/bin/env node
// Installs the MCP Inspector into tools/mcp-inspector (its own package and lock file) when it is
// missing or not the locked version. It lives there, not among the project's dev dependencies,
// because every Inspector release since 0.17 asks for Node 22 in `engines`, which made the
// project's own `npm install` on Node 20 print engine warnings; its CLI runs on Node 20 all the
// same, and a test runs the README's Inspector lines through it. From the npm registry only.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const DIR = fileURLToPath(new URL('../tools/mcp-inspector/', import.meta.url));
const PACKAGE = 'node_modules/@modelcontextprotocol/inspector';

const version = (file) => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).version : undefined);
const locked = JSON.parse(readFileSync(`${DIR}package-lock.json`, 'utf8')).packages[PACKAGE]?.version;
if (locked === undefined || version(`${DIR}${PACKAGE}/package.json`) !== locked) {
  // Warnings are the engine ones explained above; errors still print and fail the test command.
  const install = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: DIR, stdio: 'inherit' });
  if (install.status !== 0) process.exit(install.status ?? 1);
}
