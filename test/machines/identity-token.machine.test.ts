import { describe, expect, it } from 'vitest';
import { startActor } from '../support/machine-harness.js';
import { identityTokenMachine, identityTokenStatus, type IdentityTokenInput } from '../../machines/identity-token.machine.js';

const issuedAt = 1_700_000_000_000;
const input: IdentityTokenInput = {
  jti: 'jti-1',
  agentId: 'agt_1',
  publicId: 'pub_1',
  scope: 'trade',
  kid: 'kid-1',
  method: 'siwe',
  issuedAt,
  expiresAt: issuedAt + 300_000,
};

const start = (snapshot?: unknown) => startActor(identityTokenMachine, input, snapshot);

describe('identity-token machine', () => {
  it('starts valid', () => {
    const { actor } = start();
    expect(actor.getSnapshot().value).toBe('valid');
    expect(identityTokenStatus({ state: 'valid', context: input }, issuedAt)).toBe('valid');
  });

  it('valid → revoked (the states and transitions), for good, announcing the jti', () => {
    const { actor, emitted } = start();
    actor.send({ type: 'token.revoke', at: issuedAt + 10 });
    expect(actor.getSnapshot().value).toBe('revoked');
    expect(actor.getSnapshot().status).toBe('done');
    expect(actor.getSnapshot().context.revokedAt).toBe(issuedAt + 10);
    expect(emitted).toEqual([{ type: 'token.revoked', jti: 'jti-1', agentId: 'agt_1' }]);
    actor.send({ type: 'token.expire', at: input.expiresAt });
    expect(actor.getSnapshot().value).toBe('revoked');
  });

  it('valid → expired at exp; an early wake-up is ignored; an expired token is not revoked', () => {
    const { actor, emitted } = start();
    actor.send({ type: 'token.expire', at: input.expiresAt - 1 });
    expect(actor.getSnapshot().value).toBe('valid');
    actor.send({ type: 'token.revoke', at: input.expiresAt });
    expect(actor.getSnapshot().value).toBe('valid');
    actor.send({ type: 'token.expire', at: input.expiresAt });
    expect(actor.getSnapshot().value).toBe('expired');
    expect(emitted).toEqual([{ type: 'token.expired', jti: 'jti-1', agentId: 'agt_1' }]);
    expect(identityTokenStatus({ state: 'valid', context: input }, input.expiresAt)).toBe('expired');
  });

  it('rehydrates from its persisted snapshot and behaves the same', () => {
    const first = start();
    first.actor.send({ type: 'token.revoke', at: issuedAt + 1 });
    const restored = start(first.actor.getPersistedSnapshot());
    expect(restored.actor.getSnapshot().value).toBe('revoked');
    expect(restored.actor.getSnapshot().context.revokedAt).toBe(issuedAt + 1);
  });
});
