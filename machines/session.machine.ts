import { assign, emit, setup } from 'xstate';
import type { MachineDefinition } from './machine-definition.types.js';
import { AUTH_STREAM } from './auth-stream.js';

/**
 * An operator's sign-in session: one refresh-token family. The refresh token rotates on
 * every use; presenting any other token of the family than the current one is reuse
 * (a stolen token) and revokes the whole family.
 */
export interface SessionContext {
  sessionId: string;
  userId: string;
  walletAddress: string;
  /** jti of the only refresh token that may be used next. */
  refreshJti: string;
  /** Epoch ms. */
  createdAt: number;
  refreshedAt?: number;
  revokedAt?: number;
  revokeReason?: 'logout' | 'refresh_reuse';
}

export type SessionInput = Pick<SessionContext, 'sessionId' | 'userId' | 'walletAddress' | 'refreshJti' | 'createdAt'>;

export type SessionEvent =
  | { type: 'session.refresh'; presentedJti: string; nextJti: string; at: number }
  | { type: 'session.logout'; at: number };

export const sessionMachine = setup({
  types: {
    context: {} as SessionContext,
    input: {} as SessionInput,
    events: {} as SessionEvent,
    emitted: {} as { type: 'session.revoked'; sessionId: string; userId: string; reason: string },
  },
  guards: {
    isCurrentRefreshToken: ({ context, event }) => event.type === 'session.refresh' && event.presentedJti === context.refreshJti,
  },
  actions: {
    announceRevoked: emit(({ context }) => ({
      type: 'session.revoked' as const,
      sessionId: context.sessionId,
      userId: context.userId,
      reason: context.revokeReason ?? 'logout',
    })),
  },
}).createMachine({
  id: 'session',
  initial: 'active',
  context: ({ input }) => ({ ...input }),
  states: {
    active: {
      on: {
        'session.refresh': [
          {
            guard: 'isCurrentRefreshToken',
            actions: assign({ refreshJti: ({ event }) => event.nextJti, refreshedAt: ({ event }) => event.at }),
          },
          {
            // Any other token of this family is a replay: revoke everything.
            target: 'revoked',
            actions: [assign({ revokedAt: ({ event }) => event.at, revokeReason: 'refresh_reuse' as const }), 'announceRevoked'],
          },
        ],
        'session.logout': {
          target: 'revoked',
          actions: [assign({ revokedAt: ({ event }) => event.at, revokeReason: 'logout' as const }), 'announceRevoked'],
        },
      },
    },
    revoked: { type: 'final' },
  },
});

export const sessionDefinition: MachineDefinition<SessionContext, SessionEvent, SessionInput> = {
  type: 'session',
  version: 1,
  machine: sessionMachine,
  indexNames: ['userId'],
  indexes: (context) => ({ userId: context.userId }),
  stream: () => AUTH_STREAM,
};
