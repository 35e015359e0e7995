/**
 * The SDK README's samples are the files under sdk/examples (word for word), and they work:
 * the operator's five minutes, then the agent's with the key it printed, against a real service.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PUBLIC_URL, startTestService, type TestService } from '../support/test-service.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);
let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.stop());

/** Every `<!-- sample: path -->` of the README with the fenced block that follows it. */
function samples(): Array<{ path: string; block: string }> {
  const readme = readFileSync(`${ROOT}sdk/README.md`, 'utf8');
  return [...readme.matchAll(/<!-- sample: (\S+) -->\n```ts\n([\s\S]*?)```/g)].map((match) => ({ path: match[1]!, block: match[2]! }));
}

/** Runs a sample as a user would: tsx, the package's own name resolved to its sources. */
const runSample = (path: string, env: Record<string, string>) =>
  run(process.execPath, ['--conditions=source', '--import', 'tsx', `${ROOT}${path}`], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 30_000 });

it('the README shows each sample file as it is', () => {
  const found = samples();
  expect(found.map((sample) => sample.path)).toEqual(['sdk/examples/operator-quickstart.ts', 'sdk/examples/agent-quickstart.ts']);
  for (const { path, block } of found) expect(block).toBe(readFileSync(`${ROOT}${path}`, 'utf8'));
});

it('the operator quickstart, then the agent quickstart with its key: a paper swap filled and seen on the event stream', async () => {
  const operator = await runSample('sdk/examples/operator-quickstart.ts', { BASE_URL: svc.url, PUBLIC_URL });
  expect(operator.stdout).toMatch(/^signed in as \w{32,44}$/m);
  expect(operator.stdout).toMatch(/^agent \S+ ready, \d+ calls in its audit log$/m);
  const value = (name: string) => new RegExp(`^${name}=(\\S+)$`, 'm').exec(operator.stdout)?.[1] ?? '';
  expect(value('AGENT_KEY')).toMatch(/^mcpk_/);

  const agent = await runSample('sdk/examples/agent-quickstart.ts', { BASE_URL: svc.url, PUBLIC_ID: value('PUBLIC_ID'), AGENT_KEY: value('AGENT_KEY') });
  expect(agent.stdout).toMatch(/^\d+ tools, among them the swap$/m);
  const orderId = /^order (\S+): filled$/m.exec(agent.stdout)?.[1];
  expect(orderId).toBeDefined();
  expect(agent.stdout).toMatch(/^event \d+ order\.created$/m);
  expect(agent.stdout.trimEnd().split('\n').at(-1)).toMatch(/^event \d+ order\.updated$/);
});
