/**
 * Every TypeScript block of the SDK README is a sample: a file under sdk/examples shown word
 * for word, typechecked with the SDK's compiler options (sdk/examples/tsconfig.json). The
 * five-minute paths run as a user runs them (tsx, against a real service): the operator's, then
 * the agent's with the key it printed, and the agent's that onboards with its owner's wallet
 * (SIWE) instead. The reference samples (functions of a client) are called here against a real
 * service: the control plane, withdrawal settings and the agent's wallet on one whose clock the
 * test moves (each step-up takes a TOTP code of a new time step), cards and the directory, the
 * value history and the identity onboardings on one with the real clock.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Keypair } from '@solana/web3.js';
import nacl from 'tweetnacl';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentIdentities } from '../../sdk/examples/agent-identities.js';
import { publishAndFind } from '../../sdk/examples/agent-card.js';
import { balanceAndWithdraw } from '../../sdk/examples/withdrawals.js';
import { claimCapAndRotate } from '../../sdk/examples/control-plane.js';
import { lastDayValue } from '../../sdk/examples/portfolio-history.js';
import { allowWithdrawals } from '../../sdk/examples/withdrawal-settings.js';
import { AgentClient, naclSigner, OperatorClient, type SdkClock, systemClock } from '../../sdk/src/index.js';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { codeAt } from '../support/totp-codes.js';
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

/** Runs a sample as a user would: tsx, the package's name resolved to its sources (tsconfig's `paths`). */
const runSample = (path: string, env: Record<string, string>) =>
  run(process.execPath, ['--import', 'tsx', `${ROOT}${path}`], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });

it('the README shows each sample file as it is, and has no TypeScript block that is not a sample', () => {
  const found = samples();
  expect(found.map((sample) => sample.path)).toEqual([
    'sdk/examples/operator-quickstart.ts',
    'sdk/examples/portfolio-history.ts',
    'sdk/examples/control-plane.ts',
    'sdk/examples/agent-card.ts',
    'sdk/examples/agent-quickstart.ts',
    'sdk/examples/agent-siwe-quickstart.ts',
    'sdk/examples/agent-identities.ts',
    'sdk/examples/withdrawals.ts',
    'sdk/examples/withdrawal-settings.ts',
  ]);
  for (const { path, block } of found) expect(block).toBe(readFileSync(`${ROOT}${path}`, 'utf8'));
  const blocks = readFileSync(`${ROOT}sdk/README.md`, 'utf8').match(/^```(ts|typescript|js|javascript)$/gm) ?? [];
  expect(blocks).toHaveLength(found.length);
});

it("the samples typecheck against the SDK's sources with its compiler options", async () => {
  await expect(
    run(process.execPath, [`${ROOT}node_modules/typescript/bin/tsc`, '-p', `${ROOT}sdk/examples/tsconfig.json`], { encoding: 'utf8' }),
  ).resolves.toMatchObject({ stdout: '' });
}, 60_000);

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
  const line = new RegExp(`^agent agt_[A-Za-z0-9_-]{27} \\((pub_\\S+)\\) of ${address}: (\\d+) tools with a trade token$`, 'm').exec(
    first.stdout,
  );
  expect(line).not.toBeNull();
  expect(Number(line![2])).toBeGreaterThan(10);
  expect(first.stdout).toMatch(/^the token lives 300 s; the SDK renews it at \S+Z$/m);
  expect(first.stdout).toMatch(/^portfolio: \{/m);
  expect(first.stdout).toMatch(/^\d+ custodial wallets$/m);
  expect(first.stdout.trimEnd().split('\n').at(-1)).toMatch(/^event \d+ \S+$/);
  const again = await runSample('sdk/examples/agent-siwe-quickstart.ts', { BASE_URL: svc.url, PUBLIC_URL, OWNER_KEY: ownerKey });
  expect(again.stdout).toContain(`(${line![1]}) of ${address}`);
});

/** A fresh operator, signed in with a new Solana wallet (returned: it is the owner wallet of the agents it creates). */
async function signedIn(url: string, clock?: SdkClock) {
  const wallet = naclSigner(nacl.sign.keyPair());
  const operator = new OperatorClient({ baseUrl: url, publicUrl: PUBLIC_URL, ...(clock ? { clock } : {}) });
  await operator.signInWithSolana(wallet);
  return { operator, wallet };
}

it("trading.history: the value the service recorded after a deposit, in the last day's points", async () => {
  const { operator } = await signedIn(svc.url);
  const { agentId } = await operator.agents.create({ name: 'history sample' });
  await operator.wallets.ensureCustodial({ chain: 'solana' }, { agentId });
  await operator.trading.paperFaucet({ chain: 'solana', token: 'USDC', amount: '250' }, { agentId });
  // The reading is taken once the change settles (a second).
  await expect
    .poll(async () => (await lastDayValue(operator, agentId)).values, { timeout: 5_000 })
    .toEqual([expect.stringMatching(/^\S+Z 250\.00 USD$/)]);
  expect((await lastDayValue(operator, agentId)).intervalSeconds).toBeGreaterThan(0);
});

it('cards and the directory: a published card is found by search, read with its snapshot, and not in the verified feed', async () => {
  const { operator } = await signedIn(svc.url);
  const { agentId, publicId } = await operator.agents.create({ name: 'card sample' });
  const found = await publishAndFind(operator, agentId, svc.url);
  expect(found.items.map((card) => card.publicId)).toEqual([publicId]);
  expect(found.card).toMatchObject({ publicId, name: 'Heron', description: 'Watches stablecoin pools' });
  expect(found.snapshot).toMatchObject({ publicId, openOrders: 0 });
  expect(found.feed.items.map((card) => card.publicId)).not.toContain(publicId);
});

it('identity onboardings: the wallet one gets a trade token; an unknown provider and an unreadable registry are provider_auth_error', async () => {
  const owner = privateKeyToAccount(generatePrivateKey());
  const { wallet, registered, provided } = agentIdentities(svc.url, PUBLIC_URL, owner, async () => 'not.a.jwt');
  expect((await wallet.listTools()).length).toBeGreaterThan(10);
  expect(wallet.identityToken!.identity).toMatchObject({ agentId: expect.stringMatching(/^agt_/), scope: 'trade' });
  await expect(provided.listTools()).rejects.toMatchObject({ code: 'provider_auth_error', message: 'Unknown identity provider: acme' });
  await expect(registered.listTools()).rejects.toMatchObject({ code: 'provider_auth_error' });
});

describe('samples that take step-up tokens, on a service whose clock the test moves', () => {
  const clock = new ManualClock(Date.now());
  // The SDK dates its sign-in messages by the service's clock, which the step-ups move on.
  const sdkClock: SdkClock = { now: () => clock.now(), sleep: systemClock.sleep };
  let moved: TestService;
  let totpSecret: string;
  let owner: Awaited<ReturnType<typeof signedIn>>;
  /** The authenticator's next code: each works once, so the clock moves to the next 30 s step first. */
  const nextTotpCode = async () => {
    await clock.advance(31_000);
    return codeAt(totpSecret, clock);
  };

  beforeAll(async () => {
    moved = await startTestService({ clock });
    owner = await signedIn(moved.url, sdkClock);
    totpSecret = (await owner.operator.totp.enroll()).secret;
    await owner.operator.totp.activate(await codeAt(totpSecret, clock));
  });
  afterAll(() => moved?.stop());

  it('control plane: claimed with the owner wallet, scopes capped at read, the key rotated (the old one kept for its grace)', async () => {
    const { operator, wallet } = owner;
    const { agentId, publicId } = await operator.agents.create({ name: 'control sample' });
    const old = await operator.keys.create(agentId, { name: 'runtime', scope: 'trade' });
    const { claim, keys } = await claimCapAndRotate(operator, agentId, wallet, nextTotpCode);
    expect(claim).toEqual({ agentId, claimed: true, claimedBy: operator.user.id, claimedAt: expect.any(String) });
    expect(keys).toEqual([expect.objectContaining({ replaces: old.keyId, scope: 'trade', secret: expect.stringMatching(/^mcpk_/) })]);
    // Both keys authenticate (the old one within its grace of 300 s) and act as read: the cap holds for each.
    const capped = { code: 'policy_error', status: 403, message: 'Scope insufficient: required trade, got read' };
    for (const apiKey of [keys[0]!.secret, old.secret]) {
      await expect(new AgentClient({ baseUrl: moved.url, publicId, apiKey }).walletBalance()).rejects.toMatchObject(capped);
    }
    await expect(new AgentClient({ baseUrl: moved.url, publicId, apiKey: keys[0]!.secret }).listTools()).resolves.not.toHaveLength(0);
  });

  it('withdrawal settings switched on with a step-up token, then the agent reads its balances and withdraws on Solana and EVM', async () => {
    const { operator, wallet } = owner;
    const { agentId, publicId } = await operator.agents.create({ name: 'wallet sample' });
    const key = await operator.keys.create(agentId, { name: 'runtime', scope: 'trade' });
    await operator.wallets.ensureCustodial({ chain: 'solana' }, { agentId });
    await operator.wallets.ensureCustodial({ chain: 'evm' }, { agentId });
    await operator.trading.paperFaucet({ chain: 'solana', token: 'USDC', amount: '100' }, { agentId });
    await operator.trading.paperFaucet({ chain: 'base', token: 'USDC', amount: '50' }, { agentId });
    const solanaTo = Keypair.generate().publicKey.toBase58();
    const evmTo = privateKeyToAccount(generatePrivateKey()).address;

    const settings = await allowWithdrawals(operator, agentId, wallet, await nextTotpCode(), [solanaTo, evmTo]);
    expect(settings).toMatchObject({ enabled: true, allowlist: [solanaTo, evmTo], dailyCapUsd: 50, requireStepUp: false });

    const agent = new AgentClient({ baseUrl: moved.url, publicId, apiKey: key.secret });
    const { wallets, withdrawals } = await balanceAndWithdraw(agent, solanaTo, evmTo);
    expect(wallets.find((w) => w.chain === 'solana')?.tokens).toEqual([expect.objectContaining({ symbol: 'USDC', amount: '100000000' })]);
    expect(withdrawals).toEqual([
      expect.objectContaining({ chain: 'solana', to: solanaTo, amount: '2000000', status: 'confirmed' }),
      expect.objectContaining({ chain: 'base', to: evmTo, amount: '1000000', status: 'confirmed' }),
    ]);
  });
});
