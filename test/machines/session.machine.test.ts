import { describe, expect, it } from 'vitest';
import { startActor } from '../support/machine-harness.js';
import { sessionMachine, type SessionInput } from '../../machines/session.machine.js';

const input: SessionInput = { sessionId: 'ses_1', userId: 'usr_1', walletAddress: 'W', refreshJti: 'r1', createdAt: 1 };

const start = (snapshot?: unknown) => startActor(sessionMachine, input, snapshot);

describe('session machine', () => {
  it('rotates the refresh token when the current one is presented', () => {
    const { actor, emitted } = start();
    actor.send({ type: 'session.refresh', presentedJti: 'r1', nextJti: 'r2', at: 10 });
    expect(actor.getSnapshot().value).toBe('active');
    expect(actor.getSnapshot().context).toMatchObject({ refreshJti: 'r2', refreshedAt: 10 });
    actor.send({ type: 'session.refresh', presentedJti: 'r2', nextJti: 'r3', at: 20 });
    expect(actor.getSnapshot().context.refreshJti).toBe('r3');
    expect(emitted).toEqual([]);
  });

  it('active → revoked on reuse of an older refresh token, revoking the family', () => {
    const { actor, emitted } = start();
    actor.send({ type: 'session.refresh', presentedJti: 'r1', nextJti: 'r2', at: 10 });
    actor.send({ type: 'session.refresh', presentedJti: 'r1', nextJti: 'r9', at: 11 });
    const snapshot = actor.getSnapshot();
    expect(snapshot.value).toBe('revoked');
    expect(snapshot.status).toBe('done');
    expect(snapshot.context).toMatchObject({ refreshJti: 'r2', revokedAt: 11, revokeReason: 'refresh_reuse' });
    expect(emitted).toEqual([{ type: 'session.revoked', sessionId: 'ses_1', userId: 'usr_1', reason: 'refresh_reuse' }]);
  });

  it('active → revoked on logout; nothing revives it', () => {
    const { actor, emitted } = start();
    actor.send({ type: 'session.logout', at: 5 });
    expect(actor.getSnapshot()).toMatchObject({ value: 'revoked', context: { revokeReason: 'logout', revokedAt: 5 } });
    actor.send({ type: 'session.refresh', presentedJti: 'r1', nextJti: 'r2', at: 6 });
    expect(actor.getSnapshot().context.refreshJti).toBe('r1');
    expect(emitted).toHaveLength(1);
  });

  it('rehydrates from a persisted snapshot and behaves the same', () => {
    const { actor } = start();
    actor.send({ type: 'session.refresh', presentedJti: 'r1', nextJti: 'r2', at: 10 });
    const restored = start(JSON.parse(JSON.stringify(actor.getPersistedSnapshot()))).actor;
    restored.send({ type: 'session.refresh', presentedJti: 'r1', nextJti: 'x', at: 11 });
    expect(restored.getSnapshot().value).toBe('revoked');
  });
});
