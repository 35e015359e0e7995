import { assign, emit, setup } from 'xstate';
import type { MachineDefinition } from './machine-definition.types.js';
import { AUTH_STREAM } from './auth-stream.js';
import type { KeyScope } from '../kernel/vocabulary/scopes.js';

export type KeyStatus = 'active' | 'revoked' | 'expired';

/** A scoped API key. Only a keyed hash of its secret is ever stored. */
export interface ApiKeyContext {
  keyId: string;
  /** What the key operates: an agent (current model) or a legacy bot. */
  ownerType: 'agent' | 'bot';
  ownerId: string;
  name: string;
  scope: KeyScope;
  /** First 13 characters of the secret; safe to display. */
  prefix: string;
  secretHash: string;
  /** Epoch ms. */
  createdAt: number;
  /** Epoch ms; set by the system (creation + 90 days). */
  expiresAt: number;
  revokedAt?: number;
  expiredAt?: number;
  /** Epoch ms a rotation replaced the key (`expiresAt` was brought forward to the end of its grace then). */
  retiredAt?: number;
  /** The key that replaced it. */
  replacedBy?: string;
}

/**
 * A key's status at `now`: `expired` as soon as the time has come, even before the
 * scheduled `key.expire` lands. Takes any view of an `api-key` actor (state and context).
 */
export function keyStatus(key: { state: unknown; context: unknown }, now: number): KeyStatus {
  if (key.state === 'revoked') return 'revoked';
  if (key.state === 'expired' || now >= (key.context as ApiKeyContext).expiresAt) return 'expired';
  return 'active';
}

export type ApiKeyInput = Omit<ApiKeyContext, 'revokedAt' | 'expiredAt' | 'retiredAt' | 'replacedBy'>;

/** Time is data: events carry the time they happen at (`at`, epoch ms). */
export type ApiKeyEvent =
  | { type: 'key.revoke'; at: number }
  | { type: 'key.expire'; at: number }
  /** A rotation: the key now expires at `expiresAt` (the end of its grace period), never later than it would have. */
  | { type: 'key.retire'; at: number; expiresAt: number; replacedBy: string };

export const apiKeyMachine = setup({
  types: {
    context: {} as ApiKeyContext,
    input: {} as ApiKeyInput,
    events: {} as ApiKeyEvent,
    emitted: {} as { type: 'key.revoked' | 'key.expired' | 'key.retired'; keyId: string; ownerType: string; ownerId: string },
  },
  guards: {
    // An expiry wake-up that arrives early (clock skew, a replayed job) is ignored.
    expiryReached: ({ context, event }) => event.type === 'key.expire' && event.at >= context.expiresAt,
    // Retired once: a second rotation of an already retired key must not extend or re-time it.
    firstRetirement: ({ context, event }) => event.type === 'key.retire' && context.retiredAt === undefined,
  },
}).createMachine({
  id: 'api-key',
  initial: 'active',
  context: ({ input }) => ({ ...input }),
  states: {
    active: {
      on: {
        'key.revoke': {
          target: 'revoked',
          actions: [
            assign({ revokedAt: ({ event }) => event.at }),
            emit(({ context }) => ({
              type: 'key.revoked' as const,
              keyId: context.keyId,
              ownerType: context.ownerType,
              ownerId: context.ownerId,
            })),
          ],
        },
        'key.retire': {
          guard: 'firstRetirement',
          actions: [
            assign(({ context, event }) =>
              event.type === 'key.retire'
                ? { retiredAt: event.at, replacedBy: event.replacedBy, expiresAt: Math.min(context.expiresAt, event.expiresAt) }
                : {},
            ),
            // On the auth stream: every process drops its cached copy, whose expiry is now wrong.
            emit(({ context }) => ({
              type: 'key.retired' as const,
              keyId: context.keyId,
              ownerType: context.ownerType,
              ownerId: context.ownerId,
            })),
          ],
        },
        'key.expire': {
          guard: 'expiryReached',
          target: 'expired',
          actions: [
            assign({ expiredAt: ({ event }) => event.at }),
            emit(({ context }) => ({
              type: 'key.expired' as const,
              keyId: context.keyId,
              ownerType: context.ownerType,
              ownerId: context.ownerId,
            })),
          ],
        },
      },
    },
    // Both ends are permanent: a key is never re-activated.
    revoked: { type: 'final' },
    expired: { type: 'final' },
  },
});

export const apiKeyDefinition: MachineDefinition<ApiKeyContext, ApiKeyEvent, ApiKeyInput> = {
  type: 'api-key',
  version: 1,
  machine: apiKeyMachine,
  indexNames: ['secretHash', 'owner'],
  indexes: (context) => ({ secretHash: context.secretHash, owner: `${context.ownerType}:${context.ownerId}` }),
  // The owner's stream for its subscribers, and `auth` so every process drops cached credentials.
  stream: (context) => [`${context.ownerType}:${context.ownerId}`, AUTH_STREAM],
};
