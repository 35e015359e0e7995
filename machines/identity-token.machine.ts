import { assign, emit, setup } from 'xstate';
import type { KeyScope } from '../kernel/vocabulary/scopes.js';
import { AUTH_STREAM } from './auth-stream.js';
import type { MachineDefinition } from './machine-definition.types.js';

/**
 * One identity access token (identity access tokens), addressed by its `jti`.
 * The JWT itself is never stored: what can change about a token (revoked, expired) is.
 */
export interface IdentityTokenContext {
  jti: string;
  /** Actor id of the agent the token operates. */
  agentId: string;
  publicId: string;
  scope: KeyScope;
  /** Signing key id. */
  kid: string;
  /** How the agent proved itself: a wallet (SIWE), an ERC-8004 identity (SIWA) or an identity provider. */
  method: 'siwe' | 'siwa' | 'provider';
  /** Epoch ms. */
  issuedAt: number;
  /** Epoch ms, the JWT's `exp`. */
  expiresAt: number;
  revokedAt?: number;
  expiredAt?: number;
}

export type IdentityTokenInput = Omit<IdentityTokenContext, 'revokedAt' | 'expiredAt'>;

/** Time is data: events carry the time they happen at (`at`, epoch ms). */
export type IdentityTokenEvent = { type: 'token.revoke'; at: number } | { type: 'token.expire'; at: number };

export type IdentityTokenState = 'valid' | 'revoked' | 'expired';

/** A token's state at `now`: `expired` as soon as its time has come, before `token.expire` lands. */
export function identityTokenStatus(token: { state: unknown; context: unknown }, now: number): IdentityTokenState {
  if (token.state === 'revoked') return 'revoked';
  if (token.state === 'expired' || now >= (token.context as IdentityTokenContext).expiresAt) return 'expired';
  return 'valid';
}

export const identityTokenMachine = setup({
  types: {
    context: {} as IdentityTokenContext,
    input: {} as IdentityTokenInput,
    events: {} as IdentityTokenEvent,
    emitted: {} as { type: 'token.revoked' | 'token.expired'; jti: string; agentId: string },
  },
  guards: {
    // An expiry wake-up that arrives early (clock skew, a replayed job) is ignored.
    expiryReached: ({ context, event }) => event.at >= context.expiresAt,
    // A token past its `exp` is expired, whether or not its wake-up has landed yet.
    stillValid: ({ context, event }) => event.at < context.expiresAt,
  },
}).createMachine({
  id: 'identity-token',
  initial: 'valid',
  context: ({ input }) => ({ ...input }),
  states: {
    valid: {
      on: {
        'token.revoke': {
          guard: 'stillValid',
          target: 'revoked',
          actions: [
            assign({ revokedAt: ({ event }) => event.at }),
            emit(({ context }) => ({ type: 'token.revoked' as const, jti: context.jti, agentId: context.agentId })),
          ],
        },
        'token.expire': {
          guard: 'expiryReached',
          target: 'expired',
          actions: [
            assign({ expiredAt: ({ event }) => event.at }),
            emit(({ context }) => ({ type: 'token.expired' as const, jti: context.jti, agentId: context.agentId })),
          ],
        },
      },
    },
    // Both ends are permanent.
    revoked: { type: 'final' },
    expired: { type: 'final' },
  },
});

export const identityTokenDefinition: MachineDefinition<IdentityTokenContext, IdentityTokenEvent, IdentityTokenInput> = {
  type: 'identity-token',
  version: 1,
  machine: identityTokenMachine,
  indexNames: ['agentId'],
  indexes: (context) => ({ agentId: context.agentId }),
  // `auth`: every process drops the token from its verification cache, and event streams opened with it end.
  stream: () => AUTH_STREAM,
};
