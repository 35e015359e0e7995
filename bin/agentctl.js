#!/usr/bin/env node
// Ops CLI: loads the TypeScript sources through tsx so no build step is needed.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../src/cli/agentctl.ts');
process.exitCode = await runCli(process.argv.slice(2), process.env);
