/**
 * The operator client against the real service: EVM and Solana sign-in, the access token
 * renewed before it expires (driven SDK clock), CSRF fetched again when the service refuses
 * it, and typed REST calls with idempotency keys on guarded routes.
 */
import nacl from 'tweetnacl';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentEvent, naclSigner, OperatorClient } from '../../sdk/src/index.js';
import { PUBLIC_URL, startTestService, type TestService } from '../support/test-service.js';
import { DrivenClock } from './sdk-fakes.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.stop());

/** A fetch that records each request's method, path and headers on the way through. */
function recordingFetch() {
  const seen: Array<{ method: string; path: string; headers: Record<string, string> }> = [];
  const fetchImpl: typeof fetch = (input, init = {}) => {
    seen.push({
      method: init.method ?? 'GET',
      path: new URL(String(input)).pathname,
      headers: { ...(init.headers as Record<string, string>) },
    });
    return fetch(input, init);
  };
  return { fetch: fetchImpl, seen };
}

describe('OperatorClient (e2e)', () => {
  it('signs in with a viem account (SIWE) and acts as that user', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const operator = new OperatorClient({ baseUrl: svc.url, publicUrl: PUBLIC_URL });
    const user = await operator.signInWithEthereum(account);
    expect(user.walletAddress).toBe(account.address);
    const agent = await operator.agents.create({ name: 'evm-operated' });
    expect((await operator.agents.list()).items.map((item) => item.agentId)).toContain(agent.agentId);
  });

  it('renews the access token a minute before it expires (15 min), and goes on with the new one', async () => {
    const clock = new DrivenClock(Date.now());
    const { fetch, seen } = recordingFetch();
    const operator = new OperatorClient({ baseUrl: svc.url, publicUrl: PUBLIC_URL, clock, fetch });
    await operator.signInWithSolana(naclSigner(nacl.sign.keyPair()));
    await operator.agents.list();
    clock.time += 13 * 60_000;
    await operator.agents.list();
    expect(seen.filter((r) => r.path === '/api/nest/auth/refresh')).toHaveLength(0);
    // 14 minutes and 10 s in: within a minute of the expiry, which the service counted from its sign-in
    // a moment after this clock started (the margin covers a slow sign-in on a busy machine).
    clock.time += 70_000;
    await operator.agents.list();
    expect(seen.filter((r) => r.path === '/api/nest/auth/refresh')).toHaveLength(1);
    const bearers = seen.filter((r) => r.path === '/api/nest/agents').map((r) => r.headers.authorization);
    expect(bearers[2]).not.toBe(bearers[1]);
    // Mutating calls still carry a CSRF token the session accepts.
    await expect(operator.agents.create({ name: 'after-refresh' })).resolves.toMatchObject({ name: 'after-refresh' });
  });

  it('guarded routes get a UUID v4 X-Idempotency-Key; trading calls act on the named agent', async () => {
    const { fetch, seen } = recordingFetch();
    const operator = new OperatorClient({ baseUrl: svc.url, publicUrl: PUBLIC_URL, fetch });
    await operator.signInWithSolana(naclSigner(nacl.sign.keyPair()));
    const agent = await operator.agents.create({ name: 'wallets' });
    const wallet = await operator.wallets.ensureCustodial({ chain: 'solana' }, { agentId: agent.agentId });
    expect(wallet).toMatchObject({ chain: 'solana', custodial: true });
    const ensure = seen.find((r) => r.path.startsWith('/api/nest/trading/wallets/custodial/'))!;
    expect(ensure.headers['x-idempotency-key']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(ensure.headers['x-csrf-token']).toBeTruthy();
    await operator.trading.paperFaucet({ chain: 'solana', token: 'USDC', amount: '5' }, { agentId: agent.agentId });
    const { positions } = await operator.trading.positions({ agentId: agent.agentId });
    expect(Array.isArray(positions)).toBe(true);
    // A read carries no CSRF token and no idempotency key.
    const read = seen.filter((r) => r.path.startsWith('/api/nest/trading/positions/')).at(-1)!;
    expect(read.headers['x-csrf-token']).toBeUndefined();
    expect(read.headers['x-idempotency-key']).toBeUndefined();
  });

  it("reads the portfolio's value history the service recorded after a deposit, with a range and a limit", async () => {
    const operator = new OperatorClient({ baseUrl: svc.url, publicUrl: PUBLIC_URL });
    await operator.signInWithSolana(naclSigner(nacl.sign.keyPair()));
    const agent = await operator.agents.create({ name: 'history' });
    await operator.wallets.ensureCustodial({ chain: 'solana' }, { agentId: agent.agentId });
    const from = new Date().toISOString();
    await operator.trading.paperFaucet({ chain: 'solana', token: 'USDC', amount: '250' }, { agentId: agent.agentId });
    // The reading is taken once the change settles (a second).
    await expect
      .poll(async () => (await operator.trading.history({ from, limit: 10 }, { agentId: agent.agentId })).points, { timeout: 5_000 })
      .toEqual([expect.objectContaining({ valueUsd: '250.00', costBasisUsd: '250.00', reason: 'change' })]);
    await expect(operator.trading.history({ from: 'last week' }, { agentId: agent.agentId })).rejects.toMatchObject({
      status: 400,
      message: 'from: Invalid ISO datetime',
    });
  });
  it("reads its agent's events with the session (events), resuming after the last id", async () => {
    const operator = new OperatorClient({ baseUrl: svc.url, publicUrl: PUBLIC_URL });
    await operator.signInWithSolana(naclSigner(nacl.sign.keyPair()));
    const agent = await operator.agents.create({ name: 'watched' });
    await operator.agents.pause(agent.agentId);
    // From the start of the agent's stream (replayed), so no race with the connection opening.
    const events = operator.events(agent.publicId, { lastEventId: 0 });
    let paused: AgentEvent | undefined;
    for await (const event of events) {
      expect(event.data.agentId).toBe(agent.agentId);
      if (event.data.state === 'paused') {
        paused = event;
        break;
      }
    }
    expect(paused).toMatchObject({ event: 'agent.updated' });
    expect(events.lastEventId).toBe(paused?.id);
    events.close();
  });
});
