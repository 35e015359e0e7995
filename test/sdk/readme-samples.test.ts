/**
 * The SDK README's samples are the files under sdk/examples (word for word), and they work:
 * the operator's five minutes, then the agent's with the key it printed, and the agent's that
 * onboards with its owner's wallet (SIWE) instead, against a real service.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
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
  run(process.execPath, ['--conditions=source', '--import', 'tsx', `${ROOT}${path}`], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });

it('the README shows each sample file as it is', () => {
  const found = samples();
  expect(found.map((sample) => sample.path)).toEqual([
    'sdk/examples/operator-quickstart.ts',
    'sdk/examples/agent-quickstart.ts',
    'sdk/examples/agent-siwe-quickstart.ts',
  ]);
  for (const { path, block } of found) expect(block).toBe(readFileSync(`${ROOT}${path}`, 'utf8'));
});

it('the operator quickstart, then the agent quickstart with its key: a paper swap filled and seen on the event stream', async () => {
  const operator = await runSample('sdk/examples/operator-quickstart.ts', { BASE_URL: svc.url, PUBLIC_URL });
  expect(operator.stdout).toMatch(/^signed in as \w{32,44}$/m);
  expect(operator.stdout).toMatch(/^agent \S+ ready, \d+ calls in its audit log$/m);
  const value = (name: string) => new RegExp(`^${name}=(\\S+)$`, 'm').exec(operator.stdout)?.[1] ?? '';
  expect(value('AGENT_KEY')).toMatch(/^mcpk_/);

  const agent = await runSample('sdk/examples/agent-quickstart.ts', {
    BASE_URL: svc.url,
    PUBLIC_ID: value('PUBLIC_ID'),
    AGENT_KEY: value('AGENT_KEY'),
  });
  expect(agent.stdout).toMatch(/^\d+ tools, among them the swap$/m);
  const orderId = /^order (\S+): filled$/m.exec(agent.stdout)?.[1];
  expect(orderId).toBeDefined();
  expect(agent.stdout).toMatch(/^event \d+ order\.created$/m);
  expect(agent.stdout.trimEnd().split('\n').at(-1)).toMatch(/^event \d+ order\.updated$/);
});

it('the agent quickstart with SIWE instead of a key: onboarded, its tools, a read tool, its wallet and its first event; the same wallet comes back to the same agent', async () => {
  const ownerKey = generatePrivateKey();
  const first = await runSample('sdk/examples/agent-siwe-quickstart.ts', { BASE_URL: svc.url, PUBLIC_URL, OWNER_KEY: ownerKey });
  const address = privateKeyToAccount(ownerKey).address;
  const line = new RegExp(`^agent erc8004-wallet \\((pub_\\S+)\\) of ${address}: (\\d+) tools with a trade token$`, 'm').exec(first.stdout);
  expect(line).not.toBeNull();
  expect(Number(line![2])).toBeGreaterThan(10);
  expect(first.stdout).toMatch(/^the token lives 300 s; the SDK renews it at \S+Z$/m);
  expect(first.stdout).toMatch(/^portfolio: \{/m);
  expect(first.stdout).toMatch(/^\d+ custodial wallets$/m);
  expect(first.stdout.trimEnd().split('\n').at(-1)).toMatch(/^event \d+ \S+$/);
  const again = await runSample('sdk/examples/agent-siwe-quickstart.ts', { BASE_URL: svc.url, PUBLIC_URL, OWNER_KEY: ownerKey });
  expect(again.stdout).toContain(`(${line![1]}) of ${address}`);
});
