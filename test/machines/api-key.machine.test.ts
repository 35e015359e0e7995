import { describe, expect, it } from 'vitest';
import { startActor } from '../support/machine-harness.js';
import { apiKeyMachine, keyStatus, type ApiKeyInput } from '../../machines/api-key.machine.js';
import { scopeCovers, SCOPES } from '../../kernel/vocabulary/scopes.js';

const createdAt = 1_700_000_000_000;
const input: ApiKeyInput = {
  keyId: 'key-1',
  ownerType: 'agent',
  ownerId: 'agent-1',
  name: 'runtime',
  scope: 'trade',
  prefix: 'mcpk_abcdefgh',
  secretHash: 'hash',
  createdAt,
  expiresAt: createdAt + 90 * 86_400_000,
};

const start = (snapshot?: unknown) => startActor(apiKeyMachine, input, snapshot);

describe('api-key machine', () => {
  it('starts active', () => {
    expect(start().actor.getSnapshot().value).toBe('active');
  });

  it('active → revoked, permanently, recording when and announcing it', () => {
    const { actor, emitted } = start();
    actor.send({ type: 'key.revoke', at: createdAt + 5 });
    const snapshot = actor.getSnapshot();
    expect(snapshot.value).toBe('revoked');
    expect(snapshot.status).toBe('done');
    expect(snapshot.context.revokedAt).toBe(createdAt + 5);
    expect(emitted).toEqual([{ type: 'key.revoked', keyId: 'key-1', ownerType: 'agent', ownerId: 'agent-1' }]);
    actor.send({ type: 'key.expire', at: input.expiresAt });
    expect(actor.getSnapshot().value).toBe('revoked');
  });

  it('active → expired once expiresAt is reached', () => {
    const { actor, emitted } = start();
    actor.send({ type: 'key.expire', at: input.expiresAt });
    expect(actor.getSnapshot().value).toBe('expired');
    expect(actor.getSnapshot().context.expiredAt).toBe(input.expiresAt);
    expect(emitted).toHaveLength(1);
  });

  it('ignores an expiry wake-up that comes early', () => {
    const { actor } = start();
    expect(actor.getSnapshot().can({ type: 'key.expire', at: input.expiresAt - 1 })).toBe(false);
    actor.send({ type: 'key.expire', at: input.expiresAt - 1 });
    expect(actor.getSnapshot().value).toBe('active');
  });

  it('an expired key cannot be revoked or revived', () => {
    const { actor } = start();
    actor.send({ type: 'key.expire', at: input.expiresAt + 1 });
    actor.send({ type: 'key.revoke', at: input.expiresAt + 2 });
    expect(actor.getSnapshot().value).toBe('expired');
    expect(actor.getSnapshot().context.revokedAt).toBeUndefined();
  });

  it('rehydrates from a persisted snapshot and behaves the same', () => {
    const persisted = JSON.parse(JSON.stringify(start().actor.getPersistedSnapshot()));
    const restored = start(persisted).actor;
    expect(restored.getSnapshot().context).toEqual(input);
    restored.send({ type: 'key.revoke', at: createdAt + 1 });
    expect(restored.getSnapshot().value).toBe('revoked');
  });
});

// The key model auth and accounts share (it lives with the machine, not in accounts).
describe('api-key scopes and status', () => {
  it('scopes are cumulative: read < trade < manage', () => {
    const covered = SCOPES.map((held) => SCOPES.filter((required) => scopeCovers(held, required)));
    expect(covered).toEqual([['read'], ['read', 'trade'], ['read', 'trade', 'manage']]);
  });

  it('a key is expired from its expiry on, before the scheduled event lands; revoked and expired states win', () => {
    const view = (state: string) => ({ state, context: input });
    expect(keyStatus(view('active'), input.expiresAt - 1)).toBe('active');
    expect(keyStatus(view('active'), input.expiresAt)).toBe('expired');
    expect(keyStatus(view('revoked'), input.expiresAt)).toBe('revoked');
    expect(keyStatus(view('expired'), createdAt)).toBe('expired');
  });

  it('retire (rotation): expiry brought forward once, never pushed back; announced for the credential caches', () => {
    const { actor, emitted } = start();
    actor.send({ type: 'key.retire', at: createdAt + 10, expiresAt: createdAt + 70, replacedBy: 'key-2' });
    const { context } = actor.getSnapshot();
    expect(context).toMatchObject({ expiresAt: createdAt + 70, retiredAt: createdAt + 10, replacedBy: 'key-2' });
    expect(emitted).toEqual([{ type: 'key.retired', keyId: 'key-1', ownerType: 'agent', ownerId: 'agent-1' }]);
    expect(keyStatus({ state: 'active', context }, createdAt + 69)).toBe('active');
    expect(keyStatus({ state: 'active', context }, createdAt + 70)).toBe('expired');
    // A second retirement does not re-time it.
    expect(actor.getSnapshot().can({ type: 'key.retire', at: createdAt + 20, expiresAt: createdAt + 1_000, replacedBy: 'key-3' })).toBe(
      false,
    );
    actor.send({ type: 'key.expire', at: createdAt + 70 });
    expect(actor.getSnapshot().value).toBe('expired');
  });
});
