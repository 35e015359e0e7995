/**
 * Identity that third-party ERC-8004 software can trust, from outside: every onboarded agent's
 * agentId (its tokens' `sub`) is unique in the service — two wallets, two provider subjects
 * with one label, agents stored before ids were unique — while the same identity still finds
 * its agent again; and once an operator claims an agent, the onboarding wallet no longer
 * onboards into it (409 `Agent already claimed`), while the claimant's own wallet does.
 */
import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userIdOfWallet } from '../../src/accounts/users.service.js';
import { evmClaim } from '../support/claim-messages.js';
import { Operator } from '../support/mcp-fixtures.js';
import { TestIdentityProvider } from '../support/oidc-provider.js';
import { Client, evmWallet, startTestService, type TestService } from '../support/test-service.js';

const ONBOARD = '/api/public/erc8004/onboarding';
const ONBOARDED_ID = /^agt_[A-Za-z0-9_-]{27}$/;

let svc: TestService;
let client: Client;
let provider: TestIdentityProvider;

beforeAll(async () => {
  provider = await TestIdentityProvider.start();
  svc = await startTestService({
    env: {
      IDENTITY_PROVIDERS: JSON.stringify({ testidp: { issuer: provider.issuer, audience: provider.audience, jwksUrl: provider.jwksUrl } }),
    },
  });
  client = new Client(svc.url);
}, 60_000);

afterAll(async () => {
  await svc?.stop();
  await provider?.close();
});

async function onboardSiwe(wallet: ReturnType<typeof evmWallet>, scope = 'read') {
  const { body } = await client.post('/api/nest/auth/evm/nonce', {});
  const message = wallet.message(body.nonce);
  return client.post(`${ONBOARD}/siwe`, { message, signature: await wallet.sign(message), scope });
}

const onboardProvider = async (subject: string, agentId?: string) =>
  client.post(`${ONBOARD}/identity`, {
    provider: 'testidp',
    providerToken: await provider.token(subject),
    scope: 'read',
    ...(agentId ? { agentId } : {}),
  });

const subOf = (answer: { body: { accessToken: string } }) => decodeJwt(answer.body.accessToken).sub;

/** The wallet's operator session: the user who owns the agents it onboarded. */
async function signInEvm(wallet: ReturnType<typeof evmWallet>): Promise<Client> {
  const session = new Client(svc.url);
  await session.refreshCsrf();
  const { body } = await session.post('/api/nest/auth/evm/nonce');
  const message = wallet.message(body.nonce);
  const login = await session.post('/api/nest/auth/evm/login', { message, signature: await wallet.sign(message) });
  expect(login.status).toBe(200);
  session.bearer = login.body.accessToken;
  await session.refreshCsrf();
  return session;
}

describe('onboarded agents have ids unique in the service', () => {
  it('two wallets: two agentIds and two token subjects; the same wallet again (even twice at once) → its agent (200)', async () => {
    const alice = evmWallet();
    const bob = evmWallet();
    const a = await onboardSiwe(alice);
    const b = await onboardSiwe(bob);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.agentId).toMatch(ONBOARDED_ID);
    expect(b.body.agentId).toMatch(ONBOARDED_ID);
    expect(a.body.agentId).not.toBe(b.body.agentId);
    expect(subOf(a)).toBe(a.body.agentId);
    expect(subOf(b)).toBe(b.body.agentId);
    const again = await onboardSiwe(alice, 'trade');
    expect(again).toMatchObject({ status: 200, body: { agentId: a.body.agentId, publicId: a.body.publicId } });
    expect(subOf(again)).toBe(a.body.agentId);

    const carol = evmWallet();
    const both = await Promise.all([onboardSiwe(carol), onboardSiwe(carol)]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 201]);
    expect(new Set(both.map((r) => r.body.agentId)).size).toBe(1);
    // The id is the one route parameter the wallet's operator session knows the agent by.
    const session = await signInEvm(carol);
    expect((await session.get(`/api/nest/agents/${both[0]!.body.agentId}`)).body).toMatchObject({
      agentId: both[0]!.body.agentId,
      publicId: both[0]!.body.publicId,
    });
  });

  it('a provider agentId is the caller’s label: one label from two subjects is two agents; the same subject and label find theirs again', async () => {
    const label = `bot-${randomUUID().slice(0, 8)}`;
    const one = await onboardProvider('subject-one', label);
    const two = await onboardProvider('subject-two', label);
    expect([one.status, two.status]).toEqual([201, 201]);
    expect(one.body.agentId).toMatch(ONBOARDED_ID);
    expect(two.body.agentId).toMatch(ONBOARDED_ID);
    expect(one.body.agentId).not.toBe(two.body.agentId);
    expect(subOf(one)).not.toBe(subOf(two));
    const again = await onboardProvider('subject-one', label);
    expect(again).toMatchObject({ status: 200, body: { agentId: one.body.agentId, publicId: one.body.publicId } });
    const other = await onboardProvider('subject-one', `${label}-2`);
    expect(other.status).toBe(201);
    expect(other.body.agentId).not.toBe(one.body.agentId);
    // Without a label: each subject's one agent, again not shared.
    const plainOne = await onboardProvider('subject-one');
    const plainTwo = await onboardProvider('subject-two');
    expect(plainOne.body.agentId).not.toBe(plainTwo.body.agentId);
    expect((await onboardProvider('subject-one')).body.agentId).toBe(plainOne.body.agentId);
  });

  it('agents onboarded before ids were unique (every wallet’s `erc8004-wallet`) each get an id of their own and are found again', async () => {
    const { runtime } = svc.service;
    const wallets = [evmWallet(), evmWallet()];
    const seeded: string[] = [];
    for (const wallet of wallets) {
      // As onboarding stored them: the chosen id `erc8004-wallet`, scoped to the wallet's user.
      const actorId = `${userIdOfWallet('evm', wallet.address)}~erc8004-wallet`;
      const publicId = `pub_${randomUUID().replace(/-/g, '')}`;
      await runtime.create('agent', actorId, {
        agentId: actorId,
        publicId,
        ownerId: userIdOfWallet('evm', wallet.address),
        name: 'Onboarded agent',
        createdAt: Date.now(),
      });
      await runtime.send({ type: 'agent', id: actorId }, { type: 'agent.activate' });
      seeded.push(publicId);
    }
    const answers = [await onboardSiwe(wallets[0]!), await onboardSiwe(wallets[1]!)];
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    expect(answers.map((r) => r.body.publicId)).toEqual(seeded);
    const [first, second] = answers.map((r) => r.body.agentId as string);
    expect(first).not.toBe(second);
    expect(first).not.toBe('erc8004-wallet');
    expect(answers.map(subOf)).toEqual([first, second]);
    // The wallet's operator session lists and finds the agent by that id.
    const session = await signInEvm(wallets[0]!);
    const listed = (await session.get('/api/nest/agents')).body.items as Array<{ agentId: string; publicId: string }>;
    expect(listed).toEqual([expect.objectContaining({ agentId: first, publicId: seeded[0] })]);
    expect((await session.get(`/api/nest/agents/${encodeURIComponent(first!)}`)).body).toMatchObject({ agentId: first });
  });

  it('an operator may not take the ids the service names its agents with', async () => {
    const operator = await Operator.signIn(svc);
    for (const agentId of ['agt_mine', 'erc8004-wallet', 'erc8004:1:0xabc:7']) {
      const refused = await operator.client.post('/api/nest/agents', { name: 'mine', agentId });
      expect(refused.status).toBe(400);
    }
  });
});

describe('a claim ends the onboarding wallet’s say', () => {
  it('after another operator’s claim the onboarding wallet is refused with 409 Agent already claimed; its own operator’s claim keeps it', async () => {
    const wallet = evmWallet();
    const onboarded = await onboardSiwe(wallet, 'trade');
    expect(onboarded.status).toBe(201);
    const { agentId } = onboarded.body as { agentId: string };
    const operator = await Operator.signIn(svc);
    const claim = await operator.client.post(`/api/nest/agents/${agentId}/control/claim`, await evmClaim(operator.client, wallet, agentId));
    expect(claim).toMatchObject({ status: 200, body: { agentId, claimed: true, claimedBy: operator.userId } });
    for (const scope of ['trade', 'read']) {
      const refused = await onboardSiwe(wallet, scope);
      expect(refused).toMatchObject({ status: 409, body: { message: 'Agent already claimed' } });
    }

    // The claimant is the onboarding wallet's own user: its wallet goes on onboarding into the agent.
    const own = evmWallet();
    const mine = await onboardSiwe(own, 'trade');
    const session = await signInEvm(own);
    const claimed = await session.post(
      `/api/nest/agents/${mine.body.agentId}/control/claim`,
      await evmClaim(session, own, mine.body.agentId),
    );
    expect(claimed.status).toBe(200);
    expect(await onboardSiwe(own, 'trade')).toMatchObject({
      status: 200,
      body: { agentId: mine.body.agentId, publicId: mine.body.publicId },
    });
  });
});
