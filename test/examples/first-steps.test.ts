import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PUBLIC_URL, startTestService, type TestService } from '../support/test-service.js';

// The README's walkthrough is this script: it must work against a real service as written.
const SCRIPT = fileURLToPath(new URL('../../examples/first-steps.ts', import.meta.url));
let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.stop();
});

it('signs in with both wallets, creates an agent and a key, trades with it, pauses and resumes the agent', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', SCRIPT], {
    env: { ...process.env, BASE_URL: svc.url, PUBLIC_URL },
  });
  expect(stdout).toMatch(/signed in with an EVM wallet as 0x[0-9a-fA-F]{40}/);
  expect(stdout).toMatch(/signed in with a Solana wallet as \w+/);
  expect(stdout).toMatch(/created a trade key mcpk_[\w-]{8}…/);
  expect(stdout).toContain('switched trading on');
  expect(stdout).toMatch(/swapped 10 USDC to SOL over MCP: order \S+ filled/);
  expect(stdout).toContain('paused the agent: paused');
  expect(stdout).toContain('resumed the agent: active');
});
