import { describe, expect, it } from 'vitest';
import { startActor } from '../support/machine-harness.js';
import { grantStatus, oauthGrantMachine, type OAuthGrantInput } from '../../machines/oauth-grant.machine.js';

const input: OAuthGrantInput = {
  grantId: 'grt_1',
  clientId: 'dcr_1',
  clientName: 'Client',
  redirectUri: 'http://127.0.0.1/cb',
  codeChallenge: 'c'.repeat(43),
  createdAt: 0,
  pendingExpiresAt: 600,
};
const approve = {
  type: 'grant.approve',
  userId: 'usr_1',
  agentId: 'agt_1',
  publicId: 'pub_1',
  scope: 'trade',
  codeHash: 'code',
  codeExpiresAt: 100,
  at: 10,
} as const;
const exchange = {
  type: 'grant.exchange',
  codeHash: 'code',
  expiresAt: 10_000,
  at: 20,
  accessHash: 'a1',
  accessExpiresAt: 900,
  refreshHash: 'r1',
} as const;
const refresh = (presentedHash: string, next: string, at: number) =>
  ({ type: 'grant.refresh', presentedHash, at, accessHash: `a-${next}`, accessExpiresAt: at + 900, refreshHash: next }) as const;

const start = (snapshot?: unknown) => startActor(oauthGrantMachine, input, snapshot);

function active() {
  const started = start();
  started.actor.send(approve);
  started.actor.send(exchange);
  return started;
}

describe('oauth-grant machine', () => {
  it('pending → approved → active: the code is taken once, before it expires', () => {
    const { actor } = active();
    expect(actor.getSnapshot().value).toBe('active');
    expect(actor.getSnapshot().context).toMatchObject({ agentId: 'agt_1', scope: 'trade', accessHash: 'a1', refreshHash: 'r1' });
  });

  it('refuses a wrong code and a code presented after its expiry', () => {
    const wrong = start();
    wrong.actor.send(approve);
    wrong.actor.send({ ...exchange, codeHash: 'other' });
    expect(wrong.actor.getSnapshot().value).toBe('approved');
    wrong.actor.send({ ...exchange, at: 100 });
    expect(wrong.actor.getSnapshot().value).toBe('approved');
    wrong.actor.send({ type: 'grant.expire', at: 100 });
    expect(wrong.actor.getSnapshot().value).toBe('expired');
  });

  it('the code presented again after the exchange revokes the grant', () => {
    const { actor, emitted } = active();
    actor.send({ ...exchange, at: 30 });
    expect(actor.getSnapshot()).toMatchObject({ value: 'revoked', context: { endReason: 'code_reuse' } });
    expect(emitted).toEqual([{ type: 'grant.revoked', grantId: 'grt_1', agentId: 'agt_1' }]);
  });

  it('rotates the refresh token on each use; the spent one presented again revokes the grant', () => {
    const { actor, emitted } = active();
    actor.send(refresh('r1', 'r2', 30));
    actor.send(refresh('r2', 'r3', 40));
    expect(actor.getSnapshot().context).toMatchObject({ refreshHash: 'r3', accessHash: 'a-r3', usedRefreshHashes: ['r1', 'r2'] });
    expect(emitted.map((event) => (event as { type: string }).type)).toEqual(['grant.rotated', 'grant.rotated']);
    actor.send(refresh('r1', 'r9', 50));
    expect(actor.getSnapshot()).toMatchObject({ value: 'revoked', context: { endReason: 'refresh_reuse', refreshHash: 'r3' } });
    expect(emitted.at(-1)).toEqual({ type: 'grant.revoked', grantId: 'grt_1', agentId: 'agt_1' });
  });

  it('an unknown refresh token changes nothing; one presented after the grant ended rotates nothing', () => {
    const { actor } = active();
    actor.send(refresh('never-issued', 'r2', 30));
    expect(actor.getSnapshot()).toMatchObject({ value: 'active', context: { refreshHash: 'r1' } });
    actor.send(refresh('r1', 'r2', 10_000));
    expect(actor.getSnapshot().context.refreshHash).toBe('r1');
    const snapshot = actor.getSnapshot();
    expect(grantStatus({ state: snapshot.value, context: snapshot.context }, 10_000)).toBe('expired');
  });

  it('deny and expiry end a pending request for good; a revoked grant takes no refresh', () => {
    const denied = start();
    denied.actor.send({ type: 'grant.deny', at: 5 });
    denied.actor.send(approve);
    expect(denied.actor.getSnapshot().value).toBe('denied');
    const early = start();
    early.actor.send({ type: 'grant.expire', at: 599 });
    expect(early.actor.getSnapshot().value).toBe('pending');
    const { actor } = active();
    actor.send({ type: 'grant.revoke', at: 40 });
    actor.send(refresh('r1', 'r2', 41));
    expect(actor.getSnapshot()).toMatchObject({ value: 'revoked', context: { refreshHash: 'r1', endReason: 'revoked' } });
  });

  it('rehydrates from a persisted snapshot and behaves the same', () => {
    const { actor } = active();
    actor.send(refresh('r1', 'r2', 30));
    const restored = start(actor.getPersistedSnapshot());
    restored.actor.send(refresh('r1', 'r9', 31));
    expect(restored.actor.getSnapshot()).toMatchObject({ value: 'revoked', context: { endReason: 'refresh_reuse' } });
  });
});
